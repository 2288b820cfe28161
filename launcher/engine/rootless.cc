// Rootless engines: what the engine says it can hold (/info), which of the
// plan's limits are then in force, and the host's setup for running without
// root (subordinate ranges, newuidmap, the cgroup version).
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

constexpr long kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

int VersionNumber(const std::string& text) {  // "v1", "1", "v2", "2"
  if (text == "v1" || text == "1") return 1;
  if (text == "v2" || text == "2") return 2;
  return 0;
}

std::string Joined(const std::vector<std::string>& parts, const std::string& last_sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? last_sep : ", ";
    out += parts[i];
  }
  return out;
}

std::string Mib(std::int64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// A program setuid root or with file capabilities (newuidmap needs one).
bool Privileged(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  if ((st.st_mode & S_ISUID) && st.st_uid == 0) return true;
  return ::getxattr(path.c_str(), "security.capability", nullptr, 0) > 0;
}

std::string FindProgram(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(std::string(path ? path : "") + ":/usr/bin:/usr/sbin:/bin:/sbin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// Linux 5.14 counts RLIMIT_NPROC per user namespace (ucounts); before, a
// limit counted every process of the user on the machine.
bool NprocCountedPerUserNamespace() {
  utsname name{};
  if (::uname(&name) != 0) return false;
  int major = 0, minor = 0;
  if (std::sscanf(name.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 5 || (major == 5 && minor >= 14);
}

}  // namespace

EngineFacts PodmanFacts(const nlohmann::json& info) {
  EngineFacts facts;
  if (!info.is_object()) return facts;
  const auto host = info.value("host", nlohmann::json::object());
  facts.rootless = host.value("/security/rootless"_json_pointer, false);
  facts.cgroup_version = VersionNumber(host.value("cgroupVersion", ""));
  if (host.contains("cgroupControllers") && host["cgroupControllers"].is_array()) {
    facts.controllers = host["cgroupControllers"].get<std::vector<std::string>>();
  }
  facts.runtime = host.value("/ociRuntime/name"_json_pointer, "");
  if (auto seccomp = host.find("security"); seccomp != host.end() && seccomp->is_object() &&
                                            seccomp->contains("seccompEnabled")) {
    facts.seccomp = seccomp->value("seccompEnabled", false);
  }
  return facts;
}

EngineFacts DockerFacts(const nlohmann::json& info) {
  EngineFacts facts;
  if (!info.is_object()) return facts;
  const auto options = info.value("SecurityOptions", nlohmann::json::array());
  if (info.contains("SecurityOptions")) facts.seccomp = false;
  for (const auto& option : options) {
    if (!option.is_string()) continue;
    const std::string text = option.get<std::string>();
    if (text == "name=rootless") facts.rootless = true;
    if (text.rfind("name=seccomp", 0) == 0) facts.seccomp = true;
  }
  facts.runtime = info.value("DefaultRuntime", "");
  if (auto runtimes = info.find("Runtimes"); runtimes != info.end() && runtimes->is_object()) {
    for (const auto& [name, runtime] : runtimes->items()) {
      std::vector<std::string> args;
      if (runtime.is_object() && runtime.contains("runtimeArgs") &&
          runtime["runtimeArgs"].is_array()) {
        for (const auto& arg : runtime["runtimeArgs"]) {
          if (arg.is_string()) args.push_back(arg.get<std::string>());
        }
      }
      facts.runtimes[name] = args;
    }
  }
  facts.cgroup_version = VersionNumber(info.value("CgroupVersion", ""));
  std::vector<std::string> controllers;
  for (const auto& [field, controller] :
       {std::pair{"MemoryLimit", "memory"}, std::pair{"PidsLimit", "pids"},
        std::pair{"CpuCfsQuota", "cpu"}}) {
    if (info.value(field, false)) controllers.push_back(controller);
  }
  facts.controllers = controllers;
  return facts;
}

LimitsVerdict JudgeLimits(const Limits& limits, const EngineFacts& facts, bool podman) {
  LimitsVerdict verdict;
  verdict.held = limits;
  if (!facts.controllers) return verdict;  // the engine did not say: taken as held
  const auto& have = *facts.controllers;
  if (limits.pids > 0 && !Has(have, "pids")) {
    verdict.held.pids = 0;
    // keep-id gives the box a user namespace of its own, where RLIMIT_NPROC
    // counts only the box's processes.
    if (podman && facts.rootless && NprocCountedPerUserNamespace()) {
      verdict.pids_by_nproc = true;
    } else {
      verdict.not_in_force.push_back("pids " + std::to_string(limits.pids));
    }
  }
  if (limits.memory_bytes > 0 && !Has(have, "memory")) {
    verdict.held.memory_bytes = 0;
    verdict.not_in_force.push_back("memory " + Mib(limits.memory_bytes));
  }
  if (limits.cpu_quota > 0 && !Has(have, "cpu")) {
    verdict.held.cpu_quota = 0;
    verdict.not_in_force.push_back("cpu " + std::to_string(limits.cpu_quota / 1000) + "/" +
                                   std::to_string(limits.cpu_period / 1000) + " ms");
  }
  std::string engine = std::string(facts.rootless ? "rootless " : "") + (podman ? "Podman" : "Docker");
  if (facts.rootless && facts.cgroup_version == 1) {
    verdict.why = engine + " on cgroups v1 cannot set cgroup limits (on cgroups v2 it can, "
                  "with the controllers delegated to your user)";
  } else if (facts.rootless) {
    verdict.why = "the cgroup controllers are not delegated to your user (systemd: "
                  "Delegate=cpu memory pids in user@.service)";
  } else {
    verdict.why = engine + " reports no cgroup controller for them";
  }
  return verdict;
}

void ApplyVerdict(SessionPlan& plan, const LimitsVerdict& verdict) {
  if (verdict.pids_by_nproc) {
    CapUlimit(plan.ulimits, "nproc", static_cast<std::uint64_t>(plan.limits.pids));
  }
  plan.limits = verdict.held;
}

std::string LimitsLine(const Limits& wanted, const LimitsVerdict& verdict) {
  std::string line;
  if (!verdict.not_in_force.empty()) {
    line = Joined(verdict.not_in_force, " and ") + " not in force: " + verdict.why;
  }
  if (verdict.pids_by_nproc) {
    if (!line.empty()) line += "; ";
    line += "pids " + std::to_string(wanted.pids) +
            " held by RLIMIT_NPROC in the box's own user namespace instead of a cgroup";
  }
  return line;
}

std::vector<std::string> SubordinateRanges(const std::string& file_text, const std::string& user,
                                           unsigned uid) {
  std::vector<std::string> ranges;
  std::istringstream lines(file_text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string who, start, count;
    if (!std::getline(fields, who, ':') || !std::getline(fields, start, ':') ||
        !std::getline(fields, count)) {
      continue;
    }
    if (who != user && who != std::to_string(uid)) continue;
    char* end = nullptr;
    unsigned long long first = std::strtoull(start.c_str(), &end, 10);
    if (*end != '\0' || start.empty()) continue;
    unsigned long long size = std::strtoull(count.c_str(), &end, 10);
    if (*end != '\0' || count.empty() || size == 0) continue;
    ranges.push_back(std::to_string(first) + "-" + std::to_string(first + size - 1));
  }
  return ranges;
}

RootlessHost ReadRootlessHost() {
  RootlessHost host;
  unsigned uid = ::getuid();
  const passwd* pw = ::getpwuid(uid);
  host.user = pw ? pw->pw_name : std::to_string(uid);
  host.subuids = SubordinateRanges(ReadWholeFile("/etc/subuid").value_or(""), host.user, uid);
  host.subgids = SubordinateRanges(ReadWholeFile("/etc/subgid").value_or(""), host.user, uid);
  for (auto [name, found] : {std::pair{"newuidmap", &host.newuidmap},
                             std::pair{"newgidmap", &host.newgidmap}}) {
    std::string path = FindProgram(name);
    *found = path.empty()       ? IdMapTool::kMissing
             : Privileged(path) ? IdMapTool::kInstalled
                                : IdMapTool::kUnprivileged;
  }
  struct statfs fs {};
  if (::statfs("/sys/fs/cgroup", &fs) == 0) {
    host.cgroup_version = static_cast<long>(fs.f_type) == kCgroup2Magic ? 2 : 1;
  }
  return host;
}

std::string DescribeRootlessHost(const RootlessHost& host) {
  std::vector<std::string> parts;
  for (auto [kind, file, ranges, flag] :
       {std::tuple{"uids", "/etc/subuid", &host.subuids, "--add-subuids"},
        std::tuple{"gids", "/etc/subgid", &host.subgids, "--add-subgids"}}) {
    parts.push_back(ranges->empty()
                        ? std::string("no subordinate ") + kind + " for " + host.user + " in " +
                              file + " (usermod " + flag + " 100000-165535 " + host.user +
                              ", a range no other user has)"
                        : std::string("subordinate ") + kind + " " + Joined(*ranges, ", "));
  }
  for (auto [name, state] : {std::pair{"newuidmap", &host.newuidmap},
                             std::pair{"newgidmap", &host.newgidmap}}) {
    parts.push_back(std::string(name) +
                    (*state == IdMapTool::kInstalled ? " installed"
                     : *state == IdMapTool::kMissing ? " missing (apt-get install uidmap)"
                                                     : " neither setuid root nor with file "
                                                       "capabilities"));
  }
  if (host.cgroup_version) parts.push_back("cgroups v" + std::to_string(host.cgroup_version));
  return "rootless setup of " + host.user + ": " + Joined(parts, ", ");
}

}  // namespace corral::launcher
