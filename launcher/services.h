// The session's host services: the oracle (answers the shim's questions) and
// the proxy (the box's only way out), both on unix sockets in the session
// folder. Private to launcher/.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/base.h"
#include "launcher/launcher.h"
#include "launcher/notifier.h"
#include "netfilter/netfilter.h"
#include "policy/policy.h"

namespace corral::launcher {

struct HostServices {
  std::unique_ptr<Notifier> notifier;  // outlives the oracle, which feeds it
  std::unique_ptr<policy::Oracle> oracle;
  std::unique_ptr<netfilter::Proxy> proxy;  // null for an unboxed session
  std::string oracle_log;                   // where the decisions are written
  std::string proxy_log;

  // Stops both; returns the number of commands refused while nobody watched.
  std::uint64_t Stop();
};

// "Is somebody watching?" by the policy's presence sources, each bounded in
// time; a broken source list counts as nobody (with a warning).
std::function<bool()> Watching(const policy::PresencePolicy& presence);

// Starts the oracle, and the proxy when `with_proxy`. Either failing is an
// error: the session does not start without them.
Result<HostServices> StartServices(const policy::Policy& policy,
                                   const policy::LoadOptions& policy_source,
                                   const SessionPlan& plan, bool with_proxy);

}  // namespace corral::launcher
