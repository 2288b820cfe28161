// SessionPlan → Podman's SpecGenerator, the body of
// POST /v4.0.0/libpod/containers/create. Podman reads the seccomp profile
// from a path on its host: the session folder's seccomp.json.
#include "launcher/render/render.h"

namespace corral::launcher::libpod {
namespace {

using json = nlohmann::json;

json Env(const SessionPlan& plan) {
  json env = json::object();
  for (const std::string& entry : plan.env) {
    auto eq = entry.find('=');
    env[entry.substr(0, eq)] = eq == std::string::npos ? "" : entry.substr(eq + 1);
  }
  return env;
}

json Resources(const SessionPlan& plan) {
  json resources = json::object();
  if (plan.limits.pids > 0) resources["pids"] = {{"limit", plan.limits.pids}};
  if (plan.limits.memory_bytes > 0) resources["memory"] = {{"limit", plan.limits.memory_bytes}};
  if (plan.limits.cpu_quota > 0) {
    resources["cpu"] = {{"quota", plan.limits.cpu_quota}, {"period", plan.limits.cpu_period}};
  }
  return resources;
}

}  // namespace

nlohmann::json Render(const SessionPlan& plan) {
  json mounts = json::array();
  json volumes = json::array();
  for (const Mount& m : plan.mounts) {
    if (m.kind == MountKind::kVolume) {
      // Without "ro" Podman mounts a named volume writable, whatever the plan
      // says (the network mode's session volume is the agent's read-only).
      json options = m.read_only ? json::array({"ro"}) : json::array();
      // Podman before containers/podman#26945 hands "nocopy" on to the OCI
      // runtime, and runsc refuses a mount option it does not know: under
      // gVisor the volume goes without it (Podman then fills an empty volume
      // from the image's files at its path; corral's are at paths images
      // do not have: the session folder, the project).
      if (HasOption(m, kNoCopy) && plan.runtime.empty()) options.push_back("nocopy");
      volumes.push_back({{"Name", m.source}, {"Dest", m.target}, {"Options", options}});
    } else if (m.kind == MountKind::kTmpfs) {
      mounts.push_back({{"destination", m.target}, {"type", "tmpfs"}, {"source", "tmpfs"},
                        {"options", m.options}});
    } else {
      mounts.push_back({{"destination", m.target}, {"type", "bind"}, {"source", m.source},
                        {"options", {"rbind", BindPropagation(m), m.read_only ? "ro" : "rw"}}});
    }
  }
  json rlimits = json::array();
  for (const auto& u : plan.ulimits) {
    rlimits.push_back({{"type", u.name}, {"soft", u.soft}, {"hard", u.hard}});
  }
  json spec = {
      {"name", plan.container_name},
      {"image", plan.image},
      {"entrypoint", plan.command},
      {"command", json::array()},
      {"env", Env(plan)},
      {"work_dir", plan.workdir},
      {"labels", plan.labels},
      {"hostname", plan.hostname},
      {"user", plan.exec_gate ? "0:0" : std::to_string(plan.uid) + ":" + std::to_string(plan.gid)},
      {"terminal", plan.tty},
      {"stdin", true},
      {"netns", {{"nsmode", plan.network_mode}}},
      {"cap_drop", {"ALL"}},
      {"cap_add", GateCapabilities(plan)},
      {"no_new_privileges", true},
      {"seccomp_profile_path", plan.seccomp_path},
      {"read_only_filesystem", true},
      {"read_only_tmpfs", false},
      {"mounts", mounts},
      {"volumes", volumes},
      {"r_limits", rlimits},
      {"mask", plan.masked_paths},
      {"remove", false},
      {"init", false},
      {"systemd", "false"},
  };
  // Podman before the fix of containers/podman#28429 drops it: the session
  // checks the runtime the engine really gave the box (EnsureBoxRuntime).
  if (!plan.runtime.empty()) spec["oci_runtime"] = plan.runtime;
  if (!plan.userns.empty()) spec["userns"] = {{"nsmode", plan.userns}};
  // Podman warns that limits are ignored (rootless on cgroups v1) whenever
  // the field is there, even empty; corral says which limits hold itself.
  if (json resources = Resources(plan); !resources.empty()) spec["resource_limits"] = resources;
  return spec;
}

}  // namespace corral::launcher::libpod
