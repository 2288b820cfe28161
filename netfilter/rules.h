// The allowlist as a pure first-match function, and the address policy that
// every resolved (or literal) address must pass before it is dialed.
#pragma once

#include <optional>
#include <string>

#include "netfilter/address.h"
#include "netfilter/host.h"

namespace corral::netfilter {

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
