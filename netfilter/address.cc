#include "netfilter/address.h"

#include <arpa/inet.h>

#include <cstring>
#include <vector>

namespace corral::netfilter {
namespace {

// One part of a loose IPv4 spelling: decimal, 0-prefixed octal or 0x hex.
std::optional<uint64_t> ParsePart(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
    if (part.empty()) return 0;  // "0x" is zero, as in browsers
  } else if (part.size() >= 2 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  uint64_t value = 0;
  for (char c : part) {
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    if (digit >= base) return std::nullopt;
    value = value * base + digit;
    if (value > 0xffffffffULL) return std::nullopt;
  }
  return value;
}

struct Range {
  bool v6;
  std::array<uint8_t, 16> bytes;
  int prefix;
  std::string_view name;
};

bool PrefixMatches(const uint8_t* a, const uint8_t* b, int prefix) {
  int full = prefix / 8, rest = prefix % 8;
  if (std::memcmp(a, b, full) != 0) return false;
  if (rest == 0) return true;
  uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[full] & mask) == (b[full] & mask);
}

Range V4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, int prefix, std::string_view name) {
  return Range{false, {a, b, c, d}, prefix, name};
}

Range V6(std::string_view text, int prefix, std::string_view name) {
  auto ip = ParseIpv6(text);
  return Range{true, ip ? ip->bytes : std::array<uint8_t, 16>{}, prefix, name};
}

const std::vector<Range>& SpecialRanges() {
  static const std::vector<Range> kRanges = {
      V4(0, 0, 0, 0, 8, "unspecified (0.0.0.0/8)"),
      V4(10, 0, 0, 0, 8, "private (RFC 1918)"),
      V4(100, 64, 0, 0, 10, "shared address space (CGNAT)"),
      V4(127, 0, 0, 0, 8, "loopback"),
      V4(169, 254, 0, 0, 16, "link-local (includes cloud metadata 169.254.169.254)"),
      V4(172, 16, 0, 0, 12, "private (RFC 1918)"),
      V4(192, 0, 0, 0, 24, "IETF protocol assignments"),
      V4(192, 0, 2, 0, 24, "documentation (TEST-NET-1)"),
      V4(192, 88, 99, 0, 24, "6to4 relay anycast"),
      V4(192, 168, 0, 0, 16, "private (RFC 1918)"),
      V4(198, 18, 0, 0, 15, "benchmarking"),
      V4(198, 51, 100, 0, 24, "documentation (TEST-NET-2)"),
      V4(203, 0, 113, 0, 24, "documentation (TEST-NET-3)"),
      V4(224, 0, 0, 0, 4, "multicast"),
      V4(240, 0, 0, 0, 4, "reserved (includes broadcast)"),
      V6("::", 96, "IPv4-compatible IPv6"),
      V6("::", 128, "unspecified"),
      V6("::1", 128, "loopback"),
      V6("::ffff:0:0", 96, "IPv4-mapped IPv6"),
      V6("::ffff:0:0:0", 96, "IPv4-translated IPv6"),
      V6("64:ff9b::", 96, "NAT64 (embeds IPv4)"),
      V6("64:ff9b:1::", 48, "local NAT64 (embeds IPv4)"),
      V6("100::", 64, "discard-only"),
      V6("2001::", 32, "Teredo (embeds IPv4)"),
      V6("2001:db8::", 32, "documentation"),
      V6("2002::", 16, "6to4 (embeds IPv4)"),
      V6("fc00::", 7, "unique local (private IPv6)"),
      V6("fe80::", 10, "link-local"),
      V6("fec0::", 10, "site-local (deprecated)"),
      V6("ff00::", 8, "multicast"),
  };
  return kRanges;
}

}  // namespace

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<IpAddress> ParseIpv4AnySpelling(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::vector<uint64_t> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    auto part = ParsePart(text.substr(start, dot == std::string_view::npos ? text.npos : dot - start));
    if (!part) return std::nullopt;
    parts.push_back(*part);
    if (parts.size() > 4) return std::nullopt;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  uint64_t value = 0;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] > 255) return std::nullopt;
    value |= parts[i] << (8 * (3 - i));
  }
  uint64_t last = parts.back();
  std::size_t last_bytes = 4 - (parts.size() - 1);
  if (last_bytes < 4 && last >= (1ULL << (8 * last_bytes))) return std::nullopt;
  value |= last;
  IpAddress ip;
  for (int i = 0; i < 4; ++i) ip.bytes[i] = static_cast<uint8_t>(value >> (8 * (3 - i)));
  return ip;
}

std::optional<IpAddress> ParseIpv6(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  std::string copy(text);
  IpAddress ip;
  ip.v6 = true;
  if (inet_pton(AF_INET6, copy.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  return ip;
}

std::optional<IpAddress> ParseIpStrict(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    return ParseIpv6(text.substr(1, text.size() - 2));
  }
  if (text.find(':') != std::string_view::npos) return ParseIpv6(text);
  if (text.empty() || text.size() >= INET_ADDRSTRLEN) return std::nullopt;
  std::string copy(text);
  IpAddress ip;
  if (inet_pton(AF_INET, copy.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  return ip;
}

Result<Cidr> ParseCidr(std::string_view text) {
  Cidr cidr;
  cidr.text = std::string(text);
  std::string_view address = text;
  std::optional<int> prefix;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    address = text.substr(0, slash);
    std::string_view digits = text.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) return Error("bad prefix length in " + cidr.text);
    int p = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return Error("bad prefix length in " + cidr.text);
      p = p * 10 + (c - '0');
    }
    prefix = p;
  }
  auto ip = ParseIpStrict(address);
  if (!ip) {
    return Error("'" + cidr.text +
                 "' is not an IP address or CIDR range (write e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)");
  }
  int max = ip->v6 ? 128 : 32;
  cidr.prefix = prefix.value_or(max);
  if (cidr.prefix > max) return Error("prefix length past /" + std::to_string(max) + " in " + cidr.text);
  cidr.v6 = ip->v6;
  std::memcpy(cidr.bytes, ip->bytes.data(), 16);
  return cidr;
}

bool CidrContains(const Cidr& cidr, const IpAddress& address) {
  if (cidr.v6 != address.v6) return false;
  return PrefixMatches(cidr.bytes, address.bytes.data(), cidr.prefix);
}

std::optional<std::string_view> SpecialAddressClass(const IpAddress& address) {
  // The last matching range wins, so a more specific name (loopback) beats
  // the broad one it sits in (IPv4-compatible ::/96).
  std::optional<std::string_view> found;
  for (const Range& range : SpecialRanges()) {
    if (range.v6 == address.v6 && PrefixMatches(range.bytes.data(), address.bytes.data(), range.prefix)) {
      found = range.name;
    }
  }
  return found;
}

std::optional<IpAddress> EmbeddedIpv4(const IpAddress& address) {
  if (!address.v6) return std::nullopt;
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  static const uint8_t kZero[12] = {};
  if (std::memcmp(address.bytes.data(), kMapped, 12) != 0 &&
      std::memcmp(address.bytes.data(), kZero, 12) != 0) {
    return std::nullopt;
  }
  IpAddress v4;
  std::memcpy(v4.bytes.data(), address.bytes.data() + 12, 4);
  return v4;
}

SockAddr ToSockAddr(const IpAddress& address, uint16_t port) {
  SockAddr out;
  if (address.v6) {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&out.storage);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    std::memcpy(&sin6->sin6_addr, address.bytes.data(), 16);
    out.length = sizeof(sockaddr_in6);
  } else {
    auto* sin = reinterpret_cast<sockaddr_in*>(&out.storage);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    std::memcpy(&sin->sin_addr, address.bytes.data(), 4);
    out.length = sizeof(sockaddr_in);
  }
  return out;
}

std::optional<IpAddress> FromSockAddr(const sockaddr* sa) {
  IpAddress ip;
  if (sa->sa_family == AF_INET) {
    std::memcpy(ip.bytes.data(), &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, 4);
    return ip;
  }
  if (sa->sa_family == AF_INET6) {
    ip.v6 = true;
    std::memcpy(ip.bytes.data(), &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, 16);
    return ip;
  }
  return std::nullopt;
}

}  // namespace corral::netfilter
