// The agent's box in the network mode: the same plan, with what came from
// the host's session folder taken from the session volume. The network stays none: the shim reaches the
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

}  // namespace

Result<SessionPlan> AgentPlan(const SessionPlan& plan, const Layout& layout,
                              const std::string& volume_on_engine, const Visible& visible) {
  SessionPlan agent = plan;
  agent.seccomp_path = volume_on_engine + "/seccomp.json";
  // The box starts while the sidecar does: the shim runs the agent only
  // once the relay's watchdog and the proxy answer.
  agent.env.push_back("CORRAL_WATCHDOG_WAIT_MS=" + std::to_string(kRelayWaitMs));
  agent.mounts.clear();
  const std::string folder = plan.session_dir + "/";
  // The CA bundle is the file SSL_CERT_FILE names; it travels in the volume.
  const std::string ca_target = EnvValue(plan.env, "SSL_CERT_FILE");
  // A file of the session folder is bound from the volume's own folder on
  // the engine's host: the engine resolves a bind's source on its machine,
  // and the volume is there (Docker 20.10 mounts no part of a volume).
  auto from_volume = [&](const Mount& m, const std::string& name) {
    Mount bound = m;
    bound.source = volume_on_engine + "/" + name;
    bound.read_only = true;
    bound.options = {"rslave", kLateSource};  // the volume is filled while the box is made
    agent.mounts.push_back(bound);
  };
  for (const Mount& m : plan.mounts) {
    if (m.kind != MountKind::kBind) {
      agent.mounts.push_back(m);
    } else if (m.source == plan.session_dir) {
      agent.mounts.push_back({MountKind::kVolume,
                              layout.session_volume,
                              m.target,
                              true,
                              {kNoCopy},
                              m.why + " (the session volume: no host folder)"});
      agent.mounts.push_back({MountKind::kVolume,
                              layout.relay_volume,
                              m.target + "/" + kRelayFolder,
                              true,
                              {kNoCopy},
                              "the proxy sidecar's sockets (the relay volume)"});
    } else if (m.target == kShimInBox) {
      from_volume(m, "bin/corral-shim");
    } else if (m.target == kShellInBox) {
      from_volume(m, "bin/corral-shell");
    } else if (!ca_target.empty() && m.target == ca_target) {
      from_volume(m, kCaFile);
    } else if (m.source.rfind(folder, 0) == 0) {
      from_volume(m, m.source.substr(folder.size()));
    } else if (visible && visible(m.source)) {
      agent.mounts.push_back(m);
    } else {
      return Error("the engine cannot see " + m.source + " (" + m.why + ", at " + m.target +
                   "): run on an engine that shares this folder at the same path, or on a "
                   "local engine");
    }
  }
  return agent;
}

}  // namespace corral::launcher::network_mode
