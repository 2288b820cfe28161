// netfilter/rules/: which hosts and addresses a box may reach. The config's
// lists as validated rules, the canonical host and port of a request's
// target, the address classes refused unless allowed, and the allowlist as a
// pure first-match function. The room's one public header.
#pragma once

#include <cstdint>
#include <netinet/in.h>
#include <optional>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <vector>

#include "base/base.h"
#include "policy/network/network.h"

namespace corral::netfilter {

// The three lists, as the user wrote them (config file or flags).
struct RuleLists {
  std::vector<std::string> allowed_domains;  // "example.com", "*.example.com", ":port" optional
  std::vector<std::string> denied_domains;   // same forms; denied wins
  std::vector<std::string> allow_addresses;  // "10.0.0.5", "127.0.0.0/8", "fd00::/8"
};

// One allow or deny entry, and one address or range: parsed by policy/'s
// rules (ParseDomainEntry, ParseCidr), which the config is checked by too.
using policy::Cidr;
using policy::DomainEntry;

// Validated, immutable rules; share them read-only.
struct Rules {
  std::vector<DomainEntry> allowed;
  std::vector<DomainEntry> denied;
  std::vector<Cidr> allow_addresses;
};

// Validates every entry; an error names the list and the entry, and says
// how to fix it ("*" and "*.com" are refused, as are URLs and malformed
// addresses). A loaded policy's lists always pass.
Result<Rules> ParseRules(const RuleLists& lists);

// ---------------------------------------------------------------- hosts

// A request's target, "host:port", as the canonical host and a port.
// The canonical host is policy/'s (network_host.cc): one spelling for the
// config's entries and the requests alike.
using policy::CanonicalHost;
using policy::Canonicalize;
using policy::ParsePort;

// "host:port" or "[v6]:port" with the port required (CONNECT's target).
struct HostPort {
  CanonicalHost host;
  uint16_t port = 0;
};
Result<HostPort> ParseAuthority(std::string_view authority, std::optional<uint16_t> default_port);

// ---------------------------------------------------------------- addresses

// IP addresses: whether a CIDR range holds one, the address classes the proxy
// refuses unless allowed explicitly, and socket addresses.
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

// ---------------------------------------------------------------- decisions

// The allowlist as a pure first-match function, and the address policy that
// every resolved (or literal) address must pass before it is dialed.
enum class Method { kConnect, kHttp };

struct Verdict {
  bool allowed = false;
  std::string error;   // X-Corral-Error code: "denied-domain", "not-allowed", ...
  std::string reason;  // for the log and the 403 body
  std::string hint;    // the config line that would allow it, or what to remove
};

// Port a bare entry allows: 443 for CONNECT, 80 for plain HTTP.
uint16_t DefaultPort(Method method);

Verdict DecideHost(const Rules& rules, const CanonicalHost& host, uint16_t port, Method method);

// nullopt when the address may be dialed; else why not, with the hint.
std::optional<Verdict> CheckAddress(const Rules& rules, const IpAddress& address);

}  // namespace corral::netfilter
