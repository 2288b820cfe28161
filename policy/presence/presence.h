// policy/presence/: whether somebody is at the machine (a terminal in use,
// a logind session, the heartbeat file), each source bounded in time.
// The one public header of policy/presence/ (docs/architecture.md).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/base.h"
#include "policy/config/config.h"

namespace corral::policy {

// What one source says about whether somebody is watching, and why.
struct PresenceReport {
  std::string source;
  bool watching = false;
  std::string detail;
};

// A way to tell that the user is at the machine. Check is bounded in time.
class PresenceSource {
 public:
  virtual ~PresenceSource() = default;
  virtual PresenceReport Check() const = 0;
};

struct PresenceVerdict {
  bool watching = false;  // any source says so; no sources means nobody
  std::vector<PresenceReport> reports;
};

// The real sources named by `presence.sources`; an unknown name is an error.
Result<std::vector<std::unique_ptr<PresenceSource>>> MakePresenceSources(
    const PresencePolicy& policy);
PresenceVerdict CheckPresence(const std::vector<std::unique_ptr<PresenceSource>>& sources);

// The heartbeat file (`corral presence ping` touches it).
std::string HeartbeatPath(const PresencePolicy& policy);
Result<void> TouchHeartbeat(const PresencePolicy& policy);

}  // namespace corral::policy
