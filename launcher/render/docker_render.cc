// SessionPlan → the body of POST /containers/create (Docker Engine API >= 1.41).
#include "launcher/render/render.h"

namespace corral::launcher::docker {
namespace {

using json = nlohmann::json;

json Mounts(const SessionPlan& plan) {
  json mounts = json::array();
  for (const Mount& m : plan.mounts) {
    if (m.kind == MountKind::kTmpfs) continue;  // HostConfig.Tmpfs carries the options
    if (DockerLateBind(m)) continue;            // HostConfig.Binds
    json mount = {{"Target", m.target}, {"ReadOnly", m.read_only}};
    if (m.kind == MountKind::kVolume) {
      mount["Type"] = "volume";
      mount["Source"] = m.source;
      mount["VolumeOptions"] = {{"Labels", {{kLabelSession, "volume"}}}};
      if (HasOption(m, kNoCopy)) mount["VolumeOptions"]["NoCopy"] = true;
    } else {
      mount["Type"] = "bind";
      mount["Source"] = m.source;
      mount["BindOptions"] = {{"Propagation", BindPropagation(m)}};
    }
    mounts.push_back(mount);
  }
  return mounts;
}

// Binds whose source is there only once the box starts (kLateSource).
json Binds(const SessionPlan& plan) {
  json binds = json::array();
  for (const Mount& m : plan.mounts) {
    if (!DockerLateBind(m)) continue;
    binds.push_back(m.source + ":" + m.target + ":" + (m.read_only ? "ro," : "rw,") +
                    BindPropagation(m));
  }
  return binds;
}

json Tmpfs(const SessionPlan& plan) {
  json tmpfs = json::object();
  for (const Mount& m : plan.mounts) {
    if (m.kind != MountKind::kTmpfs) continue;
    std::string options = "rw";
    for (const auto& o : m.options) options += "," + o;
    tmpfs[m.target] = options;
  }
  return tmpfs;
}

json HostConfig(const SessionPlan& plan) {
  json ulimits = json::array();
  for (const auto& u : plan.ulimits) {
    ulimits.push_back({{"Name", u.name}, {"Soft", u.soft}, {"Hard", u.hard}});
  }
  json host = {
      {"NetworkMode", plan.network_mode},
      {"CapDrop", {"ALL"}},
      {"CapAdd", GateCapabilities(plan)},
      {"SecurityOpt", {"no-new-privileges", "seccomp=" + plan.seccomp.dump()}},
      {"ReadonlyRootfs", true},
      {"Mounts", Mounts(plan)},
      {"Binds", Binds(plan)},
      {"Tmpfs", Tmpfs(plan)},
      {"Ulimits", ulimits},
      {"MaskedPaths", plan.masked_paths},
      {"ReadonlyPaths", plan.readonly_paths},
      {"Devices", json::array()},
      {"Privileged", false},
      {"Init", false},
      {"AutoRemove", false},
  };
  if (!plan.runtime.empty()) host["Runtime"] = plan.runtime;  // registered with the daemon
  if (plan.limits.pids > 0) host["PidsLimit"] = plan.limits.pids;
  if (plan.limits.memory_bytes > 0) host["Memory"] = plan.limits.memory_bytes;
  if (plan.limits.cpu_quota > 0) {
    host["CpuQuota"] = plan.limits.cpu_quota;
    host["CpuPeriod"] = plan.limits.cpu_period;
  }
  return host;
}

}  // namespace

nlohmann::json Render(const SessionPlan& plan) {
  return {
      {"Image", plan.image},
      {"Hostname", plan.hostname},
      {"User", plan.exec_gate ? "0:0" : std::to_string(plan.uid) + ":" + std::to_string(plan.gid)},
      {"Entrypoint", plan.command},
      {"Cmd", json::array()},
      {"Env", plan.env},
      {"WorkingDir", plan.workdir},
      {"Labels", plan.labels},
      {"Tty", plan.tty},
      {"OpenStdin", true},
      {"StdinOnce", true},
      {"AttachStdin", true},
      {"AttachStdout", true},
      {"AttachStderr", true},
      {"NetworkDisabled", plan.network_mode == "none"},
      {"HostConfig", HostConfig(plan)},
  };
}

}  // namespace corral::launcher::docker
