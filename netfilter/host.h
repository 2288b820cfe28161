// The canonical host: one spelling of a request's target, used alike by the
// matcher, the resolver, the dialer and the forwarded Host header.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "netfilter/address.h"

namespace corral::netfilter {

struct CanonicalHost {
  // Lower case, one trailing dot removed, IDN labels as punycode; an IP
  // literal in its standard form ("127.0.0.1", "[::1]").
  std::string name;
  std::optional<IpAddress> ip;  // set for IP literals in any spelling
};

// Fails (with a reason fit for a 400 body) on anything ambiguous: empty
// labels, control or URL-special characters, percent-encoding, zone ids,
// numeric-looking names that are not a valid IPv4 spelling, over-long names.
Result<CanonicalHost> Canonicalize(std::string_view raw);

// "host:port" or "[v6]:port" with the port required (CONNECT's target).
struct HostPort {
  CanonicalHost host;
  uint16_t port = 0;
};
Result<HostPort> ParseAuthority(std::string_view authority, std::optional<uint16_t> default_port);

// A decimal port 1..65535: ASCII digits only, no sign, no leading zero.
std::optional<uint16_t> ParsePort(std::string_view digits);

}  // namespace corral::netfilter
