// A request's target, "host:port", as the canonical host and a port.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "netfilter/address.h"

namespace corral::netfilter {

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

}  // namespace corral::netfilter
