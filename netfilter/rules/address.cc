#include "netfilter/rules/rules.h"

#include <arpa/inet.h>

#include <cstring>
#include <vector>

namespace corral::netfilter {
namespace {

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
