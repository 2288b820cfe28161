// The box's runtime (the `runtime` setting): the engine's default, or gVisor's
// runsc, whose kernel stands between the agent and this machine's. Under
// gVisor the exec check cannot run: its kernel refuses seccomp user
// notification (SECCOMP_FILTER_FLAG_NEW_LISTENER: EINVAL), which the check is
// made of. The shell front still asks the host about every shell command.
#include <algorithm>

#include "launcher/plan/plan.h"

namespace corral::launcher {

Result<std::string> ExecCheckUnder(const policy::Policy& policy, SessionPlan& plan) {
  std::string asked = policy.exec_check == policy::ExecCheck::kRequire ? "require"
                      : policy.exec_check == policy::ExecCheck::kOff   ? "off"
                                                                       : "on";
  if (policy.runtime != policy::BoxRuntime::kGvisor) return asked;
  plan.runtime = kGvisorRuntime;
  if (policy.exec_check == policy::ExecCheck::kRequire) {
    return Error(
        "exec_check is require, and runtime gvisor cannot run the exec check: gVisor's kernel "
        "has no seccomp user notification, which the check is made of. Set exec_check: on "
        "(under gVisor the shell front still asks the host about every shell command) or "
        "runtime: default");
  }
  if (policy.exec_check == policy::ExecCheck::kOn) {
    plan.notes.push_back(kGvisorExecCheckLine);
  }
  return std::string("off");
}

namespace {

// runsc (the Debian 12 package, 2022) answers EPERM for every errnoRet of the
// box's profile: glibc then does not fall back from clone3 to clone, and no
// thread starts. clone3 is left to gVisor's kernel, which has none (ENOSYS).
void LeaveClone3ToGvisor(nlohmann::json& seccomp) {
  auto& rules = seccomp["syscalls"];
  for (auto rule = rules.begin(); rule != rules.end();) {
    if (rule->value("names", nlohmann::json::array()) == nlohmann::json::array({"clone3"})) {
      rule = rules.erase(rule);
    } else {
      ++rule;
    }
  }
  rules.push_back({{"names", {"clone3"}}, {"action", "SCMP_ACT_ALLOW"}});
}

// runsc looks a profile's names up in gVisor's own table, skips the ones it
// does not know ("OCI seccomp: ignoring syscall"), and a call whose name was
// skipped is refused. Its 2022 table names some calls differently from
// Linux's: each rule naming one gets gVisor's name beside it. Without this
// pselect6 was refused and `make -j2` stopped ("pselect jobs pipe").
void AddGvisorNames(nlohmann::json& seccomp) {
  static const std::pair<const char*, const char*> kGvisorNames[] = {{"pselect6", "pselect"}};
  for (auto& rule : seccomp["syscalls"]) {
    auto names = rule.find("names");
    if (names == rule.end() || !names->is_array()) continue;
    nlohmann::json added = nlohmann::json::array();
    for (const auto& name : *names) {
      for (const auto& [linux_name, gvisor_name] : kGvisorNames) {
        if (name == linux_name && std::find(names->begin(), names->end(), gvisor_name) ==
                                      names->end()) {
          added.push_back(gvisor_name);
        }
      }
    }
    for (auto& name : added) names->push_back(std::move(name));
  }
}

// gVisor's kernel holds the box's process count: RLIMIT_NPROC there counts
// the box's tasks alone. The cgroup's pids limit counts gVisor's own threads:
// on the ptrace platform 7 to 8.5 per live box process (400 processes held
// 3,017 tasks; threads of one process cost none), and more while processes
// come and go (128 live at most, started and ended as fast as a shell can,
// peaked at 3,579). At the box's own limit it would end the whole box instead
// of failing a fork, so it becomes a ceiling above that
// (kGvisorTasksPerProcess).
void HoldPidsInGvisor(SessionPlan& plan) {
  if (plan.limits.pids <= 0) return;
  CapUlimit(plan.ulimits, "nproc", static_cast<std::uint64_t>(plan.limits.pids));
  plan.limits.pids = plan.limits.pids * kGvisorTasksPerProcess + kGvisorBaseTasks;
  plan.notes.push_back(GvisorPidsLine(plan));
}

}  // namespace

std::string GvisorPidsLine(const SessionPlan& plan) {
  if (plan.runtime.empty() || plan.limits.pids <= 0) return "";
  for (const Ulimit& ulimit : plan.ulimits) {
    if (ulimit.name != "nproc") continue;
    return "pids " + std::to_string(ulimit.hard) +
           " held by RLIMIT_NPROC in gVisor's kernel; the cgroup's pids limit (" +
           std::to_string(plan.limits.pids) + ") is a ceiling on gVisor's own threads";
  }
  return "";
}

void FitToGvisor(SessionPlan& plan) {
  if (plan.runtime.empty()) return;
  LeaveClone3ToGvisor(plan.seccomp);
  AddGvisorNames(plan.seccomp);
  HoldPidsInGvisor(plan);
}

std::string RuntimeName(const SessionPlan& plan) {
  return plan.runtime.empty() ? "default" : "gvisor (" + plan.runtime + ")";
}

}  // namespace corral::launcher
