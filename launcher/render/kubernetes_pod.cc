// The agent's Pod: the plan's container with a restricted securityContext,
// its mounts as volumes a Pod may have (Pod Security "restricted" allows
// emptyDir, configMap and persistentVolumeClaim, not hostPath), its
// environment with the proxy's Service and the Secret for passed variables.
#include <algorithm>
#include <map>

#include "launcher/render/kubernetes_parts.h"

namespace corral::launcher::kubernetes {
namespace {

using json = nlohmann::json;

// The session folder's sockets are on corral's host; in a cluster nothing
// answers there (corral-shell then checks against the deny list itself).
const char* const kHostOnlyVariables[] = {"CORRAL_WATCHDOG", "CORRAL_PROXY_SOCKET",
                                          "CORRAL_ORACLE_SOCKET", "GIT_SSH_COMMAND"};
inline constexpr const char* kBinInBox = "/run/corral/bin";

bool Within(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

// "1g" (tmpfs size) as a quantity, "1Gi".
std::string Quantity(const std::string& size) {
  if (size.empty()) return size;
  char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(size.back())));
  if (unit == 'K' || unit == 'M' || unit == 'G' || unit == 'T') {
    return size.substr(0, size.size() - 1) + unit + "i";
  }
  return size;
}

std::string MemoryQuantity(std::int64_t bytes) {
  const char* units[] = {"Ki", "Mi", "Gi", "Ti"};
  int unit = -1;
  while (unit < 3 && bytes % 1024 == 0 && bytes >= 1024) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + (unit < 0 ? "" : units[unit]);
}

// The volumes and mounts, built together so each mount names a volume.
class Volumes {
 public:
  explicit Volumes(const Names& names) : names_(names) {}

  void Add(const std::string& name, const json& source) {
    if (std::none_of(volumes_.begin(), volumes_.end(),
                     [&](const json& v) { return v["name"] == name; })) {
      json volume = source;
      volume["name"] = name;
      volumes_.push_back(volume);
    }
  }
  void Attach(const std::string& volume, const std::string& target, bool read_only,
              const std::string& sub_path = "") {
    json mount = {{"name", volume}, {"mountPath", target}, {"readOnly", read_only}};
    if (!sub_path.empty()) mount["subPath"] = sub_path;
    mounts_.push_back(mount);
  }
  void Project(const SessionPlan& plan, const Mount& m) {
    Add("project", {{"persistentVolumeClaim", {{"claimName", names_.claim}}}});
    std::string sub =
        m.source == plan.project_dir ? "" : m.source.substr(plan.project_dir.size() + 1);
    Attach("project", m.target, m.read_only, sub);
  }
  void Files() { Add("session-files", {{"configMap", {{"name", names_.base}}}}); }

  json volumes_ = json::array();
  json mounts_ = json::array();

 private:
  const Names& names_;
};

// One plan mount; what a Pod cannot express goes to `notes`.
void AddMount(const SessionPlan& plan, const Options& options, const Mount& m, Volumes& volumes,
              int index, std::vector<std::string>& notes) {
  std::string name =
      DnsLabel("v" + std::to_string(index) + "-" + m.target.substr(m.target.rfind('/') + 1));
  if (m.kind == MountKind::kTmpfs) {
    json empty = {{"medium", "Memory"}};
    std::vector<std::string> lost;
    for (const std::string& option : m.options) {
      if (option.rfind("size=", 0) == 0)
        empty["sizeLimit"] = Quantity(option.substr(5));
      else
        lost.push_back(option);
    }
    volumes.Add(name, {{"emptyDir", empty}});
    volumes.Attach(name, m.target, m.read_only);
    if (!lost.empty()) {
      std::string text;
      for (const auto& option : lost) text += (text.empty() ? "" : ",") + option;
      notes.push_back("tmpfs " + m.target + " is an emptyDir in memory; its options " + text +
                      " cannot be set on one.");
    }
  } else if (m.kind == MountKind::kVolume) {
    volumes.Add(name, {{"emptyDir", json::object()}});
    volumes.Attach(name, m.target, m.read_only);
    notes.push_back("volume " + m.source + " at " + m.target +
                    " is an emptyDir: it starts empty in every Pod (a PersistentVolumeClaim "
                    "would keep it between sessions).");
  } else if (m.source == plan.project_dir || Within(m.source, plan.project_dir)) {
    volumes.Project(plan, m);
  } else if (m.source == plan.session_dir + "/" + kCaBundleFile &&
             !options.logins.box_bundle.empty()) {
    volumes.Files();  // the bundle with the session CA, from the ConfigMap
    volumes.Attach("session-files", m.target, true, kCaBundleFile);
  } else if (m.source == plan.session_dir + "/empty") {
    volumes.Files();  // a masked file: the ConfigMap's empty entry over it
    volumes.Attach("session-files", m.target, true, "empty");
  } else if (m.source == plan.session_dir + "/emptydir") {
    volumes.Add("masked-folder", {{"emptyDir", {{"sizeLimit", "1Ki"}}}});
    volumes.Attach("masked-folder", m.target, true);
  } else if (m.source == plan.session_dir || m.target == kShimInBox || m.target == kShellInBox) {
    // The session folder and the shim are replaced: see AgentPod.
  } else {
    notes.push_back("not in the Pod: " + m.source + " at " + m.target + " (" + m.why +
                    "), a path on corral's host; a Pod may not mount host paths under Pod "
                    "Security \"restricted\".");
  }
}

json Environment(const SessionPlan& plan, const Names& names, std::vector<std::string>& notes) {
  json env = json::array();
  for (const std::string& entry : plan.env) {
    std::size_t eq = entry.find('=');
    std::string name = entry.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
    bool host_only = std::find(std::begin(kHostOnlyVariables), std::end(kHostOnlyVariables),
                               name) != std::end(kHostOnlyVariables);
    bool secret = std::find(plan.passed_by_name.begin(), plan.passed_by_name.end(), name) !=
                  plan.passed_by_name.end();
    if (name == "GIT_SSH_COMMAND") {
      notes.push_back(
          "git over ssh is not built in a cluster (corral-shim connect reaches the "
          "proxy through a socket on corral's host); use https remotes.");
    }
    if (host_only || secret) continue;
    if (value == kProxyUrlInBox) value = names.proxy_url;
    env.push_back({{"name", name}, {"value", value}});
  }
  for (const std::string& name : plan.passed_by_name) {
    env.push_back({{"name", name},
                   {"valueFrom", {{"secretKeyRef", {{"name", names.secret}, {"key", name}}}}}});
  }
  return env;
}

json Resources(const SessionPlan& plan, std::vector<std::string>& notes) {
  json limits = json::object();
  if (plan.limits.memory_bytes > 0) limits["memory"] = MemoryQuantity(plan.limits.memory_bytes);
  if (plan.limits.cpu_quota > 0 && plan.limits.cpu_period > 0) {
    limits["cpu"] = std::to_string(plan.limits.cpu_quota * 1000 / plan.limits.cpu_period) + "m";
  }
  if (plan.limits.pids > 0) {
    notes.push_back("pids limit " + std::to_string(plan.limits.pids) +
                    " is not a Pod field: the kubelet's podPidsLimit sets it for every Pod of "
                    "a node.");
  }
  for (const Ulimit& u : plan.ulimits) {
    notes.push_back("ulimit " + u.name + "=" + std::to_string(u.hard) +
                    " is not a Pod field: the container runtime's default applies.");
  }
  return {{"limits", limits}};
}

// corral-shim and corral-shell come from the corral image, copied by an init
// container into the folder that is first in the agent's PATH.
json BinInit(const Options& options, const json& security) {
  std::string script = "cp /usr/lib/corral/corral-shim /usr/lib/corral/corral-shell " +
                       std::string(kBinInBox) + "/ && cd " + kBinInBox + " && for n in";
  for (const char* name : kShellNames) script += std::string(" ") + name;
  script += "; do ln -s corral-shell $n; done";
  return {{"name", "corral-bin"},
          {"image", options.proxy_image},
          {"command", {"/bin/sh", "-c", script}},
          {"volumeMounts", {{{"name", "corral-bin"}, {"mountPath", kBinInBox}}}},
          {"securityContext", security}};
}

}  // namespace

json AgentPod(const SessionPlan& plan, const Names& names, const Options& options,
              std::vector<std::string>& notes) {
  std::uint32_t uid = plan.uid, gid = plan.gid;
  if (uid == 0) {
    uid = gid = 65534;
    notes.push_back(
        "The plan runs as root (corral ran as root); a Pod with runAsNonRoot may "
        "not, so the agent runs as 65534:65534. Run corral spec as the user the "
        "agent should be.");
  }
  json security =
      LockedDown(uid, gid, {{"type", "Localhost"}, {"localhostProfile", names.seccomp}});
  Volumes volumes(names);
  int index = 0;
  for (const Mount& m : plan.mounts) AddMount(plan, options, m, volumes, index++, notes);
  volumes.Add("corral-bin", {{"emptyDir", {{"sizeLimit", "64Mi"}}}});
  volumes.Attach("corral-bin", kBinInBox, true);
  volumes.Files();
  volumes.Attach("session-files", std::string(kSessionMountPoint) + "/" + kDenyListFile, true,
                 kDenyListFile);
  if (!plan.masked_paths.empty() || !plan.readonly_paths.empty()) {
    notes.push_back(
        "The masked and read-only /proc and /sys paths are the container "
        "runtime's defaults, which a Pod gets with procMount Default.");
  }

  json labels = names.agent_labels, annotations = json::object();
  for (const auto& [key, value] : plan.labels) {
    if (labels.contains(key)) continue;
    (IsLabelValue(value) ? labels : annotations)[key] = value;
  }
  annotations["corral.not-built"] =
      "the oracle and the inbox: corral-shell checks commands against the deny list in "
      "ConfigMap " +
      names.base + " as if nobody were watching; refusals are in the logs only";
  annotations["corral.seccomp"] = std::string(kSeccompRoot) + "/" + names.seccomp +
                                  " on the node, from ConfigMap " + names.base + " seccomp.json";

  json container = {{"name", "agent"},
                    {"image", plan.image},
                    {"command", plan.command},
                    {"workingDir", plan.workdir},
                    {"env", Environment(plan, names, notes)},
                    {"resources", Resources(plan, notes)},
                    {"securityContext", security},
                    {"volumeMounts", volumes.mounts_}};
  json init_security = LockedDown(uid, gid, {{"type", "RuntimeDefault"}});
  json pod = {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", names.base}, {"labels", labels}, {"annotations", annotations}}},
          {"spec",
           {{"hostname", DnsLabel(plan.hostname)},
            {"restartPolicy", "Never"},
            {"automountServiceAccountToken", false},
            {"enableServiceLinks", false},
            {"securityContext", {{"runAsNonRoot", true}}},
            {"initContainers", {BinInit(options, init_security)}},
            {"containers", {container}},
            {"volumes", volumes.volumes_}}}};
  if (!plan.runtime.empty()) {  // runtime: gvisor
    pod["spec"]["runtimeClassName"] = kGvisorRuntimeClass;
    notes.push_back(std::string("runtime gvisor: the Pod asks for RuntimeClass ") +
                    kGvisorRuntimeClass + "; the cluster needs one whose handler is runsc "
                    "(GKE Sandbox has it), else the Pod is refused rather than run on the node's "
                    "kernel.");
  }
  return pod;
}

}  // namespace corral::launcher::kubernetes
