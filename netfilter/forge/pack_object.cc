#include "netfilter/forge/pack_object.h"

#include <openssl/evp.h>

#include <cstdint>

namespace corral::netfilter::forge {
namespace {

// Reads a delta header size: 7 bits a byte, least significant first.
bool ReadDeltaSize(std::string_view delta, std::size_t& at, uint64_t& size) {
  size = 0;
  for (int shift = 0; at < delta.size(); shift += 7) {
    uint64_t bits = static_cast<unsigned char>(delta[at]) & 0x7f;
    if (shift > 63 || (shift > 57 && (bits >> (64 - shift)) != 0)) return false;
    size |= bits << shift;
    if (!(static_cast<unsigned char>(delta[at++]) & 0x80)) return true;
  }
  return false;
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// "<name> <hex oid>\n" at the start of `line`, with the oid lower-cased (git
// reads either case as the same id).
bool ReadOidLine(std::string_view rest, std::string_view name, std::size_t hex_len,
                 std::string& oid) {
  if (rest.size() < name.size() + 1 + hex_len + 1 || rest.substr(0, name.size()) != name ||
      rest[name.size()] != ' ' || rest[name.size() + 1 + hex_len] != '\n') {
    return false;
  }
  oid.assign(rest.substr(name.size() + 1, hex_len));
  for (char& c : oid) {
    if (!IsHex(c)) return false;
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return true;
}

}  // namespace

std::size_t OidBytes(ObjectFormat format) { return format == ObjectFormat::kSha256 ? 32 : 20; }

std::string Hex(std::string_view raw) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(raw.size() * 2, '\0');
  for (std::size_t i = 0; i < raw.size(); ++i) {
    hex[2 * i] = kDigits[static_cast<unsigned char>(raw[i]) >> 4];
    hex[2 * i + 1] = kDigits[static_cast<unsigned char>(raw[i]) & 15];
  }
  return hex;
}

Hasher::Hasher(ObjectFormat format) {
  md_ = EVP_MD_fetch(nullptr, format == ObjectFormat::kSha256 ? "SHA256" : "SHA1", nullptr);
  if (md_ != nullptr) ctx_ = EVP_MD_CTX_new();
  if (ctx_ != nullptr) Start();
}

Hasher::~Hasher() {
  EVP_MD_CTX_free(ctx_);
  EVP_MD_free(md_);
}

void Hasher::Start() { EVP_DigestInit_ex(ctx_, md_, nullptr); }

void Hasher::Update(const void* data, std::size_t size) { EVP_DigestUpdate(ctx_, data, size); }

std::string Hasher::Finish() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx_, digest, &size);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

std::string ObjectId(Hasher& hasher, std::string_view type, std::string_view content) {
  std::string header = std::string(type) + " " + std::to_string(content.size());
  hasher.Start();
  hasher.Update(header.data(), header.size() + 1);  // with its '\0'
  hasher.Update(content.data(), content.size());
  return Hex(hasher.Finish());
}

Result<std::string> ApplyDelta(std::string_view base, std::string_view delta,
                               std::size_t max_result) {
  std::size_t at = 0;
  uint64_t base_size = 0, result_size = 0;
  if (!ReadDeltaSize(delta, at, base_size) || !ReadDeltaSize(delta, at, result_size)) {
    return Error("delta header is cut short or too large");
  }
  if (base_size != base.size()) return Error("delta is for a base of another size");
  if (result_size > max_result) return Error("delta result is larger than corral keeps");
  std::string result;
  while (at < delta.size()) {
    unsigned char op = static_cast<unsigned char>(delta[at++]);
    if (op & 0x80) {  // copy from the base: offset and size bytes named by the bits
      uint64_t offset = 0, size = 0;
      for (int bit = 0; bit < 7; ++bit) {
        if (!(op & (1u << bit))) continue;
        if (at == delta.size()) return Error("delta copy instruction is cut short");
        uint64_t byte = static_cast<unsigned char>(delta[at++]);
        if (bit < 4) {
          offset |= byte << (8 * bit);
        } else {
          size |= byte << (8 * (bit - 4));
        }
      }
      if (size == 0) size = 0x10000;
      if (offset > base.size() || size > base.size() - offset) {
        return Error("delta copies from outside its base");
      }
      if (size > result_size - result.size()) return Error("delta writes past its result size");
      result.append(base.substr(offset, size));
    } else if (op != 0) {  // insert the next `op` bytes
      if (op > delta.size() - at) return Error("delta insert instruction is cut short");
      if (op > result_size - result.size()) return Error("delta writes past its result size");
      result.append(delta.substr(at, op));
      at += op;
    } else {
      return Error("delta has the reserved instruction 0");
    }
  }
  if (result.size() != result_size) return Error("delta result is shorter than its header says");
  return result;
}

Result<std::vector<std::string>> ParseParents(std::string_view commit, ObjectFormat format) {
  const std::size_t hex_len = 2 * OidBytes(format);
  std::string oid;
  if (!ReadOidLine(commit, "tree", hex_len, oid)) {
    return Error("commit does not start with a valid tree line");
  }
  std::size_t at = 5 + hex_len + 1;
  std::vector<std::string> parents;
  while (commit.substr(at, 7) == "parent ") {
    if (!ReadOidLine(commit.substr(at), "parent", hex_len, oid)) {
      return Error("commit has a malformed parent line");
    }
    parents.push_back(oid);
    at += 7 + hex_len + 1;
  }
  // The other headers, up to the first empty line: none may be a parent.
  while (at < commit.size() && commit[at] != '\n') {
    if (commit.substr(at, 7) == "parent ") return Error("commit has a parent line out of place");
    std::size_t end = commit.find('\n', at);
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return parents;
}

}  // namespace corral::netfilter::forge
