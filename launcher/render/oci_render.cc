// SessionPlan → OCI runtime config.json, the spec of record. Runs unchanged
// under `runc run --bundle` (root.path "rootfs"); named volumes become binds
// of folders under plan.volume_root.
#include "launcher/render/render.h"

namespace corral::launcher::oci {
namespace {

using json = nlohmann::json;

json Namespaces() {
  json out = json::array();
  for (const char* type : {"pid", "ipc", "uts", "mount", "network", "cgroup"}) {
    out.push_back({{"type", type}});
  }
  return out;
}

// The kernel file systems every Linux container has.
json BaseMounts() {
  return json::array({
      {{"destination", "/proc"}, {"type", "proc"}, {"source", "proc"},
       {"options", {"nosuid", "noexec", "nodev"}}},
      {{"destination", "/dev"}, {"type", "tmpfs"}, {"source", "tmpfs"},
       {"options", {"nosuid", "strictatime", "mode=755", "size=65536k"}}},
      {{"destination", "/dev/pts"}, {"type", "devpts"}, {"source", "devpts"},
       {"options", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}}},
      {{"destination", "/dev/shm"}, {"type", "tmpfs"}, {"source", "shm"},
       {"options", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}}},
      {{"destination", "/dev/mqueue"}, {"type", "mqueue"}, {"source", "mqueue"},
       {"options", {"nosuid", "noexec", "nodev"}}},
      {{"destination", "/sys"}, {"type", "sysfs"}, {"source", "sysfs"},
       {"options", {"nosuid", "noexec", "nodev", "ro"}}},
  });
}

json PlanMount(const SessionPlan& plan, const Mount& m) {
  json options = json::array();
  if (m.kind == MountKind::kTmpfs) {
    for (const auto& o : m.options) options.push_back(o);
    return {{"destination", m.target}, {"type", "tmpfs"}, {"source", "tmpfs"}, {"options", options}};
  }
  std::string source = m.kind == MountKind::kVolume ? plan.volume_root + "/" + m.source : m.source;
  options = {"rbind", "rprivate", "nosuid", "nodev", m.read_only ? "ro" : "rw"};
  return {{"destination", m.target}, {"type", "bind"}, {"source", source}, {"options", options}};
}

json Resources(const SessionPlan& plan) {
  json resources = {{"devices", json::array({{{"allow", false}, {"access", "rwm"}}})}};
  if (plan.limits.pids > 0) resources["pids"] = {{"limit", plan.limits.pids}};
  if (plan.limits.memory_bytes > 0) resources["memory"] = {{"limit", plan.limits.memory_bytes}};
  if (plan.limits.cpu_quota > 0) {
    resources["cpu"] = {{"quota", plan.limits.cpu_quota}, {"period", plan.limits.cpu_period}};
  }
  return resources;
}

json Process(const SessionPlan& plan) {
  json rlimits = json::array();
  for (const auto& u : plan.ulimits) {
    std::string type = "RLIMIT_";
    for (char c : u.name) type += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    rlimits.push_back({{"type", type}, {"soft", u.soft}, {"hard", u.hard}});
  }
  json none = json::array();
  json gate = json::array();
  for (const char* cap : kGateCapabilities) gate.push_back(std::string("CAP_") + cap);
  json held = plan.exec_gate ? gate : none;
  return {{"terminal", plan.tty},
          {"user", {{"uid", plan.exec_gate ? 0 : plan.uid}, {"gid", plan.exec_gate ? 0 : plan.gid}}},
          {"args", plan.command},
          {"env", plan.env},
          {"cwd", plan.workdir},
          {"capabilities",
           {{"bounding", held}, {"effective", held}, {"inheritable", none},
            {"permitted", held}, {"ambient", none}}},
          {"rlimits", rlimits},
          {"noNewPrivileges", true}};
}

}  // namespace

nlohmann::json Render(const SessionPlan& plan) {
  json mounts = BaseMounts();
  for (const Mount& m : plan.mounts) mounts.push_back(PlanMount(plan, m));
  json annotations = json::object();
  for (const auto& [key, value] : plan.labels) annotations[key] = value;
  return {
      {"ociVersion", "1.0.2"},
      {"process", Process(plan)},
      {"root", {{"path", "rootfs"}, {"readonly", true}}},
      {"hostname", plan.hostname},
      {"mounts", mounts},
      {"annotations", annotations},
      {"linux",
       {{"namespaces", Namespaces()},
        {"resources", Resources(plan)},
        {"seccomp", plan.seccomp},
        {"maskedPaths", plan.masked_paths},
        {"readonlyPaths", plan.readonly_paths}}},
  };
}

}  // namespace corral::launcher::oci
