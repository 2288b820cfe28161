// IP addresses: whether a CIDR range holds one, the address classes the proxy
// refuses unless allowed explicitly, and socket addresses.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "netfilter/netfilter.h"

namespace corral::netfilter {

// Parsed by policy/ (network_address.cc), the config's rules and the proxy's alike.
using policy::Cidr;
using policy::IpAddress;
using policy::ParseCidr;
using policy::ParseIpStrict;
using policy::ParseIpv4AnySpelling;
using policy::ParseIpv6;

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
