// The agent's box in the network mode: the same plan, with what came from
// the host's session folder taken from the session volume or from the
// engine's own masking. The network stays none: the shim reaches the
// sidecar's sockets through the volume, as it reaches corral's locally.
#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

// The value of NAME in KEY=VALUE lines, "" when it is not set.
std::string EnvValue(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& line : env) {
    if (line.rfind(name + "=", 0) == 0) return line.substr(name.size() + 1);
  }
  return "";
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

Result<SessionPlan> AgentPlan(const SessionPlan& plan, const Layout& layout,
                              const std::string& seccomp_on_engine, const Visible& visible) {
  SessionPlan agent = plan;
  agent.seccomp_path = seccomp_on_engine;
  agent.mounts.clear();
  const std::string folder = plan.session_dir + "/";
  // The CA bundle is the file SSL_CERT_FILE names; it travels in the volume.
  const std::string ca_target = EnvValue(plan.env, "SSL_CERT_FILE");
  const std::string ca_in_volume = std::string(kSessionMountPoint) + "/" + kCaFile;
  for (const Mount& m : plan.mounts) {
    if (m.kind != MountKind::kBind) {
      agent.mounts.push_back(m);
    } else if (m.source == plan.session_dir) {
      agent.mounts.push_back({MountKind::kVolume,
                              layout.session_volume,
                              m.target,
                              true,
                              {},
                              m.why + " (the session volume: no host folder)"});
    } else if (m.target == kShimInBox || m.target == kShellInBox ||
               (!ca_target.empty() && m.target == ca_target)) {
      continue;  // in the session volume
    } else if (m.source == folder + "empty") {
      agent.masked_paths.push_back(m.target);
    } else if (m.source == folder + "emptydir") {
      agent.mounts.push_back({MountKind::kTmpfs,
                              "",
                              m.target,
                              true,
                              {"ro", "nosuid", "nodev", "noexec", "size=4k"},
                              m.why});
    } else if (m.source.rfind(folder, 0) == 0) {
      // passwd and group: Docker 20.10 cannot mount one file of a volume.
      agent.notes.push_back("network mode: " + m.target + " is the image's own (" + m.why +
                            " is not delivered yet)");
    } else if (visible && visible(m.source)) {
      agent.mounts.push_back(m);
    } else {
      return Error("the engine cannot see " + m.source + " (" + m.why + ", at " + m.target +
                   "): run on an engine that shares this folder at the same path, or on a "
                   "local engine");
    }
  }
  if (!ca_target.empty()) {
    for (std::string& line : agent.env) ReplaceAll(line, "=" + ca_target, "=" + ca_in_volume);
  }
  return agent;
}

}  // namespace corral::launcher::network_mode
