// `corral doctor`: the checks in the order a session needs them, and the
// report, for people and for programs.
#include <unistd.h>

#include <cstdlib>

#include "launcher/doctor/doctor.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

const char* StatusName(CheckStatus status) {
  switch (status) {
    case CheckStatus::kOk: return "ok";
    case CheckStatus::kWarn: return "warn";
    case CheckStatus::kFail: return "fail";
  }
  return "fail";
}

DoctorCheck NotChecked(const char* name) {
  return {name, CheckStatus::kWarn, "not checked: no engine answered", ""};
}

}  // namespace

std::vector<DoctorCheck> RunDoctor(const DoctorOptions& options) {
  const policy::Policy& policy = *options.policy;
  PlanInput host = HostPlanInput(policy);
  std::vector<DoctorCheck> checks;
  std::optional<Engine> engine;
  checks.push_back(CheckEngine(options.engine, policy, engine));
  checks.push_back(engine ? CheckRuntime(*engine, policy) : NotChecked("runtime"));
  if (policy.runtime == policy::BoxRuntime::kGvisor) {
    checks.push_back(engine ? CheckGvisor(*engine, policy) : NotChecked("gvisor"));
  }
  checks.push_back(CheckSeccomp(policy.seccomp, engine ? &*engine : nullptr));
  // No engine: the private Podman a session starts runs as the user.
  bool rootless = engine ? engine->rootless() : ::getuid() != 0;
  checks.push_back(JudgeUserNamespace(::getuid(), ReadRootlessHost(), rootless));
  checks.push_back(engine ? CheckImage(*engine, policy) : NotChecked("image"));
  const char* named_shim = std::getenv("CORRAL_SHIM");
  checks.push_back(CheckShim(host.shim_path, named_shim ? named_shim : ""));
  checks.push_back(CheckShell(host.shell_path, host.shim_path));
  checks.push_back(CheckSessionFolder(host.runtime_dir));
  checks.push_back(CheckPresenceSources(policy.presence));
  checks.push_back(CheckProxy(policy.network));
  checks.push_back(CheckCaBundle(host.ca_bundle));
  checks.push_back(CheckConfig(policy, options.config_error));
  return checks;
}

bool SessionCanStart(const std::vector<DoctorCheck>& checks) {
  for (const auto& check : checks) {
    if (check.status == CheckStatus::kFail) return false;
  }
  return true;
}

std::string DoctorText(const std::vector<DoctorCheck>& checks) {
  std::string out;
  int failed = 0;
  for (const auto& check : checks) {
    std::string status = StatusName(check.status);
    status.resize(6, ' ');
    out += status + check.name + ": " + check.detail + "\n";
    if (!check.fix.empty()) out += "      fix: " + check.fix + "\n";
    failed += check.status == CheckStatus::kFail;
  }
  out += failed == 0
             ? "A boxed session can start here.\n"
             : "A boxed session cannot start here: " + std::to_string(failed) +
                   (failed == 1 ? " check failed" : " checks failed") + "; each says what to do.\n";
  return out;
}

nlohmann::json DoctorJson(const std::vector<DoctorCheck>& checks) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& check : checks) {
    list.push_back({{"name", check.name},
                    {"status", StatusName(check.status)},
                    {"detail", check.detail},
                    {"fix", check.fix}});
  }
  return {{"ok", SessionCanStart(checks)}, {"checks", list}};
}

}  // namespace corral::launcher
