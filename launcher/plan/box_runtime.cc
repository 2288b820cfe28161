// The box's runtime (the `runtime` setting): the engine's default, or gVisor's
// runsc, whose kernel stands between the agent and this machine's. Under
// gVisor the exec check cannot run: its kernel refuses seccomp user
// notification (SECCOMP_FILTER_FLAG_NEW_LISTENER: EINVAL), which the check is
// made of. The shell front still asks the host about every shell command.
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

std::string RuntimeName(const SessionPlan& plan) {
  return plan.runtime.empty() ? "default" : "gvisor (" + plan.runtime + ")";
}

}  // namespace corral::launcher
