// The session's end step for the project's auto-run files: once the box is
// gone (and the network mode's copy is home), what the box changed there is
// held for `corral review` and the host's versions put back.
#include <sys/stat.h>

#include "launcher/network_mode/network_mode.h"
#include "launcher/session/session.h"

namespace corral::launcher {

bool CopyBackPending(const std::string& session_id) {
  struct stat st {};
  return ::stat(network_mode::ManifestPath(policy::StateDir(), session_id).c_str(), &st) == 0;
}

std::optional<Result<autorun::Report>> CompareAutorunFiles(const std::string& session_id) {
  if (CopyBackPending(session_id)) return std::nullopt;
  return autorun::EndSession(policy::StateDir(), session_id);
}

Result<autorun::Report> HoldAutorunFiles(const std::string& session_id) {
  if (CopyBackPending(session_id)) {
    autorun::Report nothing;
    nothing.session = session_id;
    return nothing;
  }
  return autorun::EndSessionAndRecord(policy::StateDir(), session_id);
}

std::vector<std::string> MountPointPaths(const SessionPlan& plan) {
  std::vector<std::string> paths;
  for (const HostMountPoint& point : MountPointsOnHost(plan.mounts, KindOnHost)) {
    paths.push_back(point.path);
  }
  return paths;
}

}  // namespace corral::launcher
