#include "netfilter/tls/tls.h"

#include <cstdint>

namespace corral::netfilter {
namespace {

constexpr uint8_t kHandshake = 22;
constexpr uint8_t kClientHello = 1;
constexpr uint16_t kServerNameExtension = 0;

// Bounds-checked big-endian reader over the handshake message.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool ok() const { return ok_; }
  std::size_t left() const { return data_.size() - pos_; }
  uint32_t Int(int bytes) {
    if (!ok_ || left() < static_cast<std::size_t>(bytes)) return Fail();
    uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(data_[pos_++]);
    return v;
  }
  std::string_view Bytes(std::size_t n) {
    if (!ok_ || left() < n) return Fail(), std::string_view();
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view Vector(int length_bytes) { return Bytes(Int(length_bytes)); }

 private:
  uint32_t Fail() {
    ok_ = false;
    return 0;
  }
  std::string_view data_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

HelloPeek Malformed(std::string reason) { return {HelloState::kMalformed, "", std::move(reason)}; }

HelloPeek ParseServerName(std::string_view ext) {
  Reader r(ext);
  Reader list(r.Vector(2));
  if (!r.ok() || r.left() != 0) return Malformed("bad server_name extension");
  std::string name;
  while (list.ok() && list.left() > 0) {
    uint32_t type = list.Int(1);
    std::string_view value = list.Vector(2);
    if (!list.ok()) break;
    if (type != 0) continue;
    if (!name.empty()) return Malformed("more than one host name in server_name");
    if (value.empty()) return Malformed("empty server_name");
    // RFC 6066: an ASCII host name. A UTF-8 one that maps to the target (a
    // U+3002 dot) would reach the origin other than it was checked.
    for (char c : value) {
      if (static_cast<unsigned char>(c) >= 0x80) return Malformed("server_name is not an ASCII host name");
    }
    name = std::string(value);
  }
  if (!list.ok()) return Malformed("bad server_name list");
  if (name.empty()) return {HelloState::kNoSni, "", ""};
  return {HelloState::kSni, name, ""};
}

HelloPeek ParseHello(std::string_view body) {
  Reader r(body);
  r.Int(2);      // legacy_version
  r.Bytes(32);   // random
  r.Vector(1);   // legacy_session_id
  r.Vector(2);   // cipher_suites
  r.Vector(1);   // legacy_compression_methods
  if (!r.ok()) return Malformed("truncated ClientHello");
  if (r.left() == 0) return {HelloState::kNoSni, "", ""};
  Reader extensions(r.Vector(2));
  if (!r.ok() || r.left() != 0) return Malformed("bad extensions length");
  bool seen = false;
  HelloPeek result{HelloState::kNoSni, "", ""};
  while (extensions.ok() && extensions.left() > 0) {
    uint32_t type = extensions.Int(2);
    std::string_view data = extensions.Vector(2);
    if (!extensions.ok()) break;
    if (type != kServerNameExtension) continue;
    if (seen) return Malformed("two server_name extensions");
    seen = true;
    result = ParseServerName(data);
    if (result.state == HelloState::kMalformed) return result;
  }
  if (!extensions.ok()) return Malformed("truncated extensions");
  return result;
}

}  // namespace

HelloPeek PeekClientHello(std::string_view data) {
  if (data.empty()) return {};
  if (static_cast<uint8_t>(data[0]) != kHandshake) return {HelloState::kNotTls, "", ""};
  // Gather the handshake bytes from consecutive records.
  std::string handshake;
  std::size_t pos = 0;
  while (true) {
    if (data.size() - pos < 5) return {};
    auto type = static_cast<uint8_t>(data[pos]);
    if (type != kHandshake) return Malformed("ClientHello interrupted by another record type");
    if (data[pos + 1] != 3) return Malformed("not a TLS record version");
    std::size_t length = (static_cast<uint8_t>(data[pos + 3]) << 8) | static_cast<uint8_t>(data[pos + 4]);
    if (length == 0 || length > 16384) return Malformed("bad TLS record length");
    if (data.size() - pos - 5 < length) {
      handshake.append(data.substr(pos + 5));  // enough to check the type early
    } else {
      handshake.append(data.substr(pos + 5, length));
    }
    if (handshake.empty()) return {};  // a record header alone so far
    if (static_cast<uint8_t>(handshake[0]) != kClientHello) return Malformed("first handshake message is not a ClientHello");
    if (data.size() - pos - 5 < length) return {};
    pos += 5 + length;
    if (handshake.size() >= 4) {
      std::size_t hello_length = (static_cast<uint8_t>(handshake[1]) << 16) |
                                 (static_cast<uint8_t>(handshake[2]) << 8) |
                                 static_cast<uint8_t>(handshake[3]);
      if (handshake.size() >= 4 + hello_length) {
        return ParseHello(std::string_view(handshake).substr(4, hello_length));
      }
    }
    if (pos >= data.size()) return {};
  }
}

std::optional<HelloRefusal> JudgeHello(const HelloPeek& peek, const CanonicalHost& host) {
  if (peek.state == HelloState::kMalformed) {
    return HelloRefusal{"bad-client-hello", "malformed TLS ClientHello: " + peek.reason};
  }
  if (peek.state != HelloState::kSni) return std::nullopt;
  auto sni = Canonicalize(peek.server_name);
  if (sni && sni->name == host.name) return std::nullopt;
  return HelloRefusal{"sni-mismatch",
                      "TLS server name '" + peek.server_name + "' differs from the CONNECT host " + host.name};
}

}  // namespace corral::netfilter
