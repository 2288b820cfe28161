// IP addresses: parsing every spelling a URL host may use, CIDR ranges, and
// the address classes the proxy refuses unless allowed explicitly.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "netfilter/netfilter.h"

namespace corral::netfilter {

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // v4 uses the first 4

  bool operator==(const IpAddress&) const = default;
  std::string ToString() const;  // "10.0.0.1", "2001:db8::1" (no brackets)
};

// IPv4 in any spelling browsers and inet_aton accept: 1 to 4 parts, each
// decimal, octal (leading 0) or hex (0x); the last part fills the remaining
// bytes ("127.1", "0x7f000001", "017700000001"). nullopt when not such a form.
std::optional<IpAddress> ParseIpv4AnySpelling(std::string_view text);
// Strict textual IPv6 (inet_pton); no brackets, no zone.
std::optional<IpAddress> ParseIpv6(std::string_view text);
// "1.2.3.4" (strict dotted quad) or an IPv6 text, with or without brackets.
std::optional<IpAddress> ParseIpStrict(std::string_view text);

Result<Cidr> ParseCidr(std::string_view text);
bool CidrContains(const Cidr& cidr, const IpAddress& address);

// Why an address is not for the open internet ("loopback", "private (RFC
// 1918)", "link-local (cloud metadata)", "IPv4-mapped IPv6", ...), or
// nullopt for a public unicast address.
std::optional<std::string_view> SpecialAddressClass(const IpAddress& address);

// The IPv4 address an IPv4-mapped or IPv4-compatible IPv6 address carries.
std::optional<IpAddress> EmbeddedIpv4(const IpAddress& address);

// Socket address conversion.
struct SockAddr {
  sockaddr_storage storage{};
  socklen_t length = 0;
};
SockAddr ToSockAddr(const IpAddress& address, uint16_t port);
std::optional<IpAddress> FromSockAddr(const sockaddr* sa);

}  // namespace corral::netfilter
