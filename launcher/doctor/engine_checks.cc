// The doctor's checks of the engine and what it makes: reachable, its
// runtime and cgroups, seccomp, the user-namespace mapping, the image.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "launcher/agents/agents.h"
#include "launcher/doctor/doctor.h"
#include "launcher/plan/plan.h"

#ifdef CORRAL_HAVE_SECCOMP
#include "seccomp/seccomp.h"
#endif

namespace corral::launcher {
namespace {

DoctorCheck Passed(const char* name, std::string detail) {
  return {name, CheckStatus::kOk, std::move(detail), ""};
}

std::string Joined(const std::vector<std::string>& list, const char* separator) {
  std::string out;
  for (const auto& item : list) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string WithoutSuffix(std::string text, const std::string& suffix) {
  if (text.size() >= suffix.size() &&
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0) {
    text.resize(text.size() - suffix.size());
  }
  return text;
}

}  // namespace

DoctorCheck CheckEngine(const std::string& flag, const policy::Policy& policy,
                        std::optional<Engine>& engine) {
  auto choice = ChooseEndpoints(flag, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) {
    return {
        "engine", CheckStatus::kFail, choice.error().message,
        "name the engine as unix:///path/to/socket or tcp://host:port (--engine, CORRAL_ENGINE)"};
  }
  // Bounded: an engine that accepts and never answers is reported after
  // the ping's timeout, and no private Podman is started (embed_dir unset).
  choice->starting_wait_seconds = 0;
  choice->all_facts = true;
  auto connected = Engine::Connect(*choice);
  if (!connected) {
    std::string detail = WithoutSuffix(connected.error().message, std::string(". ") + kNoEngineFix);
    std::string podman = FindInPath("podman");
    if (!choice->named && !podman.empty()) {
      return {"engine", CheckStatus::kWarn,
              detail + "; corral run starts a private Podman (" + podman +
                  ") for each session, which doctor does not try",
              "for faster starts, start a shared engine: systemctl start docker, or "
              "podman system service --time=0 unix://$XDG_RUNTIME_DIR/podman/podman.sock"};
    }
    return {"engine", CheckStatus::kFail, detail,
            choice->named ? "start the engine there (systemctl start docker, or podman system "
                            "service URL), or name another with --engine or CORRAL_ENGINE"
                          : "apt-get install podman (corral then starts one for each session), "
                            "or start Docker (systemctl start docker), or name one with --engine"};
  }
  engine.emplace(std::move(*connected));
  const Endpoint& at = engine->endpoint();
  std::string from = choice->named ? "from " + at.source : "the first usual socket that answered";
  std::string detail = engine->name() + " at " + at.url + ", " + from + ", " +
                       (engine->rootless() ? "rootless" : "rootful");
  if (engine->rootless() && !engine->podman()) {
    return {"engine", CheckStatus::kFail,
            detail +
                ": rootless Docker cannot keep your uid in the box, so the agent could "
                "not write your project",
            "use rootless Podman (apt-get install podman), or Docker through the docker group "
            "(--engine unix:///var/run/docker.sock)"};
  }
  return Passed("engine", detail);
}

DoctorCheck JudgeRuntime(const EngineFacts& facts, bool podman, const Limits& limits,
                         bool require_limits) {
  std::string detail = facts.runtime.empty() ? "runtime not said" : "runtime " + facts.runtime;
  detail += facts.cgroup_version ? ", cgroups v" + std::to_string(facts.cgroup_version) : "";
  if (facts.controllers) {
    detail += facts.controllers->empty() ? ", no cgroup controllers"
                                         : ", controllers " + Joined(*facts.controllers, " ");
  }
  LimitsVerdict verdict = JudgeLimits(limits, facts, podman);
  std::string missing = LimitsLine(limits, verdict);
  if (verdict.not_in_force.empty()) {
    return Passed("runtime", detail + (missing.empty() ? "" : "; " + missing));
  }
  std::string fix =
      "unset those limits (limits.memory: \"\", limits.cpus: \"\"), or run an engine "
      "on cgroups v2 with the controllers delegated to your user";
  if (require_limits) {
    return {"runtime", CheckStatus::kFail, detail + "; limits.require is set, and " + missing,
            "set limits.require: false, or " + fix};
  }
  return {"runtime", CheckStatus::kWarn, detail + "; " + missing, fix};
}

DoctorCheck CheckRuntime(const Engine& engine, const policy::Policy& policy) {
  Limits limits;
  limits.pids = policy.limits.pids;
  auto memory = ParseMemory(policy.limits.memory);
  auto cpus = ParseCpus(policy.limits.cpus, limits);
  if (!memory || !cpus) {
    return {"runtime", CheckStatus::kFail, (memory ? cpus.error() : memory.error()).message,
            "fix limits.memory (\"4g\") or limits.cpus (\"1.5\") in the config"};
  }
  limits = *cpus;
  limits.memory_bytes = *memory;
  return JudgeRuntime(engine.facts(), engine.podman(), limits, policy.limits.require);
}

DoctorCheck JudgeGvisor(const EngineFacts& facts, bool podman, const std::string& engine_name,
                        const std::string& url, policy::ExecCheck exec_check) {
  if (exec_check == policy::ExecCheck::kRequire) {
    return {"gvisor", CheckStatus::kFail,
            "runtime gvisor and exec_check: require: gVisor's kernel has no seccomp user "
            "notification, so the exec check cannot run there",
            "set exec_check: on (the shell front still asks the host about every shell command) "
            "or runtime: default"};
  }
  const char* exec_line = "; the exec check is off under gVisor (the shell front still asks "
                          "about every shell command)";
  if (podman) {
    if (facts.runtime == kGvisorRuntime) {
      return Passed("gvisor", engine_name + "'s default runtime is runsc" + exec_line);
    }
    return {"gvisor", CheckStatus::kWarn,
            engine_name + " is asked for runsc per box; Podman before the fix of "
                          "containers/podman#28429 ignores that, and the session then refuses "
                          "to start" + exec_line,
            "run a Podman service whose default runtime is runsc with --host-uds=open, "
            "--oci-seccomp and --network=none (docs/sessions.md, gVisor), or use Docker with runsc registered"};
  }
  std::string problem = GvisorProblem(facts, podman, url);
  if (!problem.empty()) {
    return {"gvisor", CheckStatus::kFail, problem, kRegisterRunscWithDocker};
  }
  return Passed("gvisor", "runsc is registered with " + engine_name +
                              " (--host-uds=open, --network=none, --oci-seccomp)" + exec_line);
}

DoctorCheck CheckGvisor(const Engine& engine, const policy::Policy& policy) {
  return JudgeGvisor(engine.facts(), engine.podman(), engine.name(), engine.endpoint().url,
                     policy.exec_check);
}

DoctorCheck JudgeUserNamespace(unsigned uid, const RootlessHost& host, bool rootless_engine) {
  if (uid == 0) return Passed("user namespace", "running as root: no mapping needed");
  std::string described = DescribeRootlessHost(host);
  if (!rootless_engine) {
    return Passed("user namespace", "not needed: the engine runs as root; " + described);
  }
  std::vector<std::string> fixes;
  if (host.subuids.empty() || host.subgids.empty()) {
    fixes.push_back("usermod --add-subuids 100000-165535 --add-subgids 100000-165535 " + host.user +
                    " (a range no other user has)");
  }
  if (host.newuidmap == IdMapTool::kMissing || host.newgidmap == IdMapTool::kMissing) {
    fixes.push_back("apt-get install uidmap");
  } else if (host.newuidmap != IdMapTool::kInstalled || host.newgidmap != IdMapTool::kInstalled) {
    fixes.push_back(
        "apt-get install --reinstall uidmap (newuidmap and newgidmap must be setuid "
        "root or have file capabilities)");
  }
  if (fixes.empty()) return Passed("user namespace", described);
  std::string fix;
  for (const auto& f : fixes) fix += (fix.empty() ? "" : "; and ") + f;
  return {"user namespace", CheckStatus::kFail, described, fix};
}

DoctorCheck JudgeSeccomp(const std::string& kernel_actions, const Result<std::string>& profile,
                         std::optional<bool> engine_seccomp) {
  if (!profile) {
    return {"seccomp", CheckStatus::kFail,
            "the box's profile does not build: " + profile.error().message,
            "fix seccomp.allow / seccomp.deny in the config (corral seccomp prints the profile)"};
  }
  std::string actions = kernel_actions.substr(0, kernel_actions.find('\n'));
  if (engine_seccomp && !*engine_seccomp) {
    return {"seccomp", CheckStatus::kFail,
            "the engine applies no seccomp profiles, so the box's would be ignored",
            "install an engine built with seccomp, with libseccomp2 (Debian's docker.io and "
            "podman are)"};
  }
  std::string detail = "profile " + *profile +
                       "; kernel: " + (actions.empty() ? "actions not readable" : actions) +
                       (engine_seccomp ? "; the engine applies it" : "");
  if (!actions.empty() && actions.find("errno") == std::string::npos) {
    return {"seccomp", CheckStatus::kFail, detail + " (no errno action)",
            "a kernel with CONFIG_SECCOMP_FILTER (every distribution kernel has it)"};
  }
  return Passed("seccomp", detail);
}

DoctorCheck CheckSeccomp(const policy::SeccompPolicy& user, const Engine* engine) {
  Result<std::string> profile = Error("not built");
#ifdef CORRAL_HAVE_SECCOMP
  auto built = seccomp::BuildProfile(user);
  if (!built) {
    profile = built.error();
  } else if (auto size = seccomp::CompiledSize(*built); !size) {
    profile = size.error();
  } else {
    profile = std::to_string(built->rules.size()) + " rules, " +
              std::to_string(size->instructions) + " BPF instructions";
  }
#else
  auto json = SeccompJson(user, true);
  if (!json) {
    profile = json.error();
  } else {
    profile = std::to_string(json->value("syscalls", nlohmann::json::array()).size()) +
              " rules (the stand-in: corral was built without libseccomp)";
  }
#endif
  return JudgeSeccomp(ReadText("/proc/sys/kernel/seccomp/actions_avail"), profile,
                      engine ? engine->facts().seccomp : std::nullopt);
}

DoctorCheck CheckImage(Engine& engine, const policy::Policy& policy) {
  auto setting = policy.settings.find("image");
  bool named =
      setting != policy.settings.end() && setting->second.origin != policy::Origin::kDefault;
  if (named) {  // the user's own image: there, or pulled by the first run
    auto exists = engine.ImageExists(policy.image);
    if (!exists)
      return {"image", CheckStatus::kFail, exists.error().message, "check the engine's log"};
    if (*exists) return Passed("image", policy.image + " is on the engine");
    return {"image", CheckStatus::kWarn,
            policy.image +
                " is not on the engine; the first corral run pulls it, which needs a "
                "registry",
            "docker pull " + policy.image + " (or podman pull), or corral run --build DIR"};
  }
  auto images = ListCorralImages(engine);
  if (!images)
    return {"image", CheckStatus::kFail, images.error().message, "check the engine's log"};
  std::vector<std::string> agents;
  for (const CorralImage& image : *images) {
    if (!image.agent.empty() &&
        std::find(agents.begin(), agents.end(), image.agent) == agents.end()) {
      agents.push_back(image.agent);
    }
  }
  std::string built = agents.empty()
                          ? "no agent image built yet"
                          : "agent images built for " + Joined(agents, ", ") + " (corral image ls)";
  BaseImagePlan base = PlanBaseImage(engine);
  if (!base.ready) {
    return {"image", CheckStatus::kWarn,
            built + "; a new one needs " + base.image +
                " from a registry: mmdebstrap cannot "
                "make a base image here",
            base.fix};
  }
  return Passed("image", built + "; new ones build on " + base.how);
}

}  // namespace corral::launcher
