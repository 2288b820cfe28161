// launcher/doctor/: `corral doctor`: whether a boxed session can start on
// this host and, when not, what to do. One check per line, in the order a
// session needs them; each bounded in time. Private to launcher/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher/engine/engine.h"
#include "launcher/session_plan.h"
#include "policy/config/config.h"

namespace corral::launcher {

enum class CheckStatus { kOk, kWarn, kFail };

// One line of the report. A failure always has a fix (a package, a
// setting, a command); a warning may.
struct DoctorCheck {
  std::string name;  // "engine", "runtime", "seccomp", ...
  CheckStatus status = CheckStatus::kOk;
  std::string detail;
  std::string fix;
};

struct DoctorOptions {
  std::string engine;  // --engine, else the policy's and the environment's
  // The config's policy, or the built-in defaults when it did not load.
  const policy::Policy* policy = nullptr;
  std::optional<Error> config_error;  // why the config did not load
};

// Every check, in order: engine, runtime, seccomp, user namespace, image,
// shim, shell, session folder, presence, proxy, CA bundle, config. Starts
// no engine (the private Podman a session would start is only named).
std::vector<DoctorCheck> RunDoctor(const DoctorOptions& options);

// No check failed: a boxed session can start here.
bool SessionCanStart(const std::vector<DoctorCheck>& checks);
// A line per check ("ok    engine: ..."), its fix on the next line, and a
// last line with the verdict.
std::string DoctorText(const std::vector<DoctorCheck>& checks);
// {"ok": bool, "checks": [{"name", "status": "ok|warn|fail", "detail", "fix"}]}
nlohmann::json DoctorJson(const std::vector<DoctorCheck>& checks);

// ------------------------------------------------ the checks

// engine_checks.cc. CheckEngine sets `engine` when one answers.
DoctorCheck CheckEngine(const std::string& flag, const policy::Policy& policy,
                        std::optional<Engine>& engine);
DoctorCheck CheckRuntime(const Engine& engine, const policy::Policy& policy);
// runtime: gvisor only: runsc as the box needs it on this engine.
DoctorCheck CheckGvisor(const Engine& engine, const policy::Policy& policy);
DoctorCheck CheckSeccomp(const policy::SeccompPolicy& user, const Engine* engine);
DoctorCheck CheckImage(Engine& engine, const policy::Policy& policy);
// host_checks.cc
DoctorCheck CheckPresenceSources(const policy::PresencePolicy& presence);
DoctorCheck CheckProxy(const policy::NetworkPolicy& network);
DoctorCheck CheckConfig(const policy::Policy& policy, const std::optional<Error>& error);

// Their pure parts, and the ones that need only a path:

// The runtime line from the engine's /info: runtime, cgroup version and
// controllers, and which of the policy's limits would not be in force.
DoctorCheck JudgeRuntime(const EngineFacts& facts, bool podman, const Limits& limits,
                         bool require_limits);
// The gvisor line (runtime: gvisor): Docker's runsc registered with
// --host-uds=open, --network=none and --oci-seccomp; Podman's default
// runtime; exec_check: require cannot hold there.
DoctorCheck JudgeGvisor(const EngineFacts& facts, bool podman, const std::string& engine_name,
                        const std::string& url, policy::ExecCheck exec_check);
// The user-namespace line. `rootless_engine`: the engine runs without root
// (or none answers, and a session would start a rootless Podman).
DoctorCheck JudgeUserNamespace(unsigned uid, const RootlessHost& host, bool rootless_engine);
// The seccomp line: the kernel's actions (/proc/sys/kernel/seccomp/
// actions_avail, "" when missing), whether the profile builds (its size in
// words, or the error), and what the engine says.
DoctorCheck JudgeSeccomp(const std::string& kernel_actions, const Result<std::string>& profile,
                         std::optional<bool> engine_seccomp);

// Binds a unix socket in `runtime_dir` (made as a session makes it) and
// removes it; checks the longest path a session's socket will have fits.
DoctorCheck CheckSessionFolder(const std::string& runtime_dir);
// corral-shim at `path` ("" when not found; `named` is CORRAL_SHIM's
// value): there, and it runs (its usage exits 2).
DoctorCheck CheckShim(const std::string& path, const std::string& named);
// corral-shell at `path`: there, executable, an ELF program for this machine.
DoctorCheck CheckShell(const std::string& path, const std::string& shim_path);
// The host's CA bundle: found, readable, holds certificates.
DoctorCheck CheckCaBundle(const std::string& path);

// The longest socket path a session in `runtime_dir` binds, and the most a
// unix socket address holds (sun_path less its NUL).
std::size_t LongestSessionSocket(const std::string& runtime_dir);
std::size_t MaxSocketPath();

}  // namespace corral::launcher
