#include "base/paths.h"
#include "base/report.h"
#include "launcher/session/session.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "launcher/plan/plan.h"
#include "launcher/launcher.h"

extern char** environ;

namespace corral::launcher {
namespace {

std::string Value(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& line : env) {
    if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
        line[name.size()] == '=') {
      return line.substr(name.size() + 1);
    }
  }
  return "";
}

// The user's shell name when the shim stands in for it, else bash.
std::string ShellName(const std::string& shell) {
  std::string name = shell.substr(shell.rfind('/') + 1);
  for (const char* known : kShellNames) {
    if (name == known) return name;
  }
  return "bash";
}

pid_t g_child = 0;
void ForwardToChild(int sig) {
  if (g_child > 0) ::kill(g_child, sig);
}

// Runs argv with env and waits. The terminal's Ctrl-C reaches the agent
// directly (same process group); SIGTERM and SIGHUP sent to corral are
// passed on.
Result<int> SpawnAndWait(const std::string& program, const std::vector<std::string>& args,
                         const std::vector<std::string>& env) {
  std::vector<char*> argv, envp;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  struct sigaction ignore {}, forward {}, old_int {}, old_quit {}, old_term {}, old_hup {};
  ignore.sa_handler = SIG_IGN;
  forward.sa_handler = ForwardToChild;
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t child = ::fork();
  if (child < 0) return Error::FromErrno("cannot start " + program);
  if (child == 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    CloseInheritedDescriptors();
    ::execve(program.c_str(), argv.data(), envp.data());
    std::fprintf(stderr, "corral: cannot run %s: %s\n", program.c_str(), std::strerror(errno));
    ::_exit(errno == ENOENT ? 127 : 126);
  }
  g_child = child;
  ::sigaction(SIGTERM, &forward, &old_term);
  ::sigaction(SIGHUP, &forward, &old_hup);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  for (auto [sig, old] : {std::pair{SIGINT, &old_int}, {SIGQUIT, &old_quit},
                          {SIGTERM, &old_term}, {SIGHUP, &old_hup}}) {
    ::sigaction(sig, old, nullptr);
  }
  return WaitStatusCode(status);
}

}  // namespace

BoxDecision DecideBox(policy::Level level, bool headless, bool at_terminal,
                      const std::function<bool()>& watching) {
  switch (level) {
    case policy::Level::kAlways: return {true, "level is always"};
    case policy::Level::kOff: return {false, "level is off"};
    case policy::Level::kUnattended: break;
  }
  if (headless) return {true, "started headless"};
  if (!at_terminal) return {true, "started without a terminal"};
  if (!watching || !watching()) return {true, "nobody is watching"};
  return {false, "you are at this terminal (level unattended)"};
}

std::vector<std::string> UnboxedEnvironment(const std::vector<std::string>& current,
                                            const std::string& session_dir,
                                            const std::string& session_id) {
  std::string bin = session_dir + "/bin";
  std::string path = Value(current, "PATH");
  auto set = ShellEnvironment(bin, ShellName(Value(current, "SHELL")), Value(current, "MAKEFLAGS"));
  set.insert(set.end(), {
      {"PATH", bin + (path.empty() ? "" : ":" + path)},
      {"CORRAL_SESSION", session_id},
      {"CORRAL_ORACLE_SOCKET", session_dir + "/" + kOracleSocket},
      {"CORRAL_DENY_LIST_FILE", session_dir + "/" + kDenyListFile},
  });
  std::vector<std::string> env;
  for (const std::string& line : current) {
    std::string name = line.substr(0, line.find('='));
    bool replaced = false;
    for (const auto& [key, value] : set) replaced = replaced || key == name;
    if (!replaced) env.push_back(line);
  }
  for (const auto& [key, value] : set) env.push_back(key + "=" + value);
  return env;
}

Result<RunOutcome> RunUnboxed(const policy::Policy& policy, const PlanInput& input,
                              const RunOptions& options, const std::string& why,
                              std::vector<nlohmann::json> held) {
  SessionPlan plan;  // only what the oracle needs: no box
  plan.session_id = input.session_id.empty() ? RandomSessionId() : input.session_id;
  plan.session_dir = input.runtime_dir + "/sessions/" + plan.session_id;
  plan.project_dir = NormalPath(input.cwd);
  plan.labels = {{"corral.agent", input.agent_command.front()}};

  std::vector<std::string> current;
  for (char** e = environ; *e != nullptr; ++e) current.emplace_back(*e);
  std::vector<std::string> env = UnboxedEnvironment(current, plan.session_dir, plan.session_id);
  // By the agent's PATH, so a shell name finds the shim.
  std::string program = FindInPath(input.agent_command.front(), Value(env, "PATH"));
  if (program.empty()) {
    return Error(input.agent_command.front() + " is not installed on this host (not in PATH)");
  }
  if (options.print_only) {
    report::Output("unboxed: " + why +
                   "\nthe agent runs on this host as you; its shell commands go through the shim "
                   "in " + plan.session_dir + "/bin and the deny list applies\n");
    return RunOutcome{0};
  }
  if (auto ok = PrepareRuntimeDir(input.runtime_dir); !ok) return ok.error();
  if (auto ok = PrepareUnboxedSessionDir(plan.session_dir, input.shell_path); !ok) return ok.error();
  auto recorder = Recorder::Start(plan, options,
                                  StartedEvent(plan, {false, why}, input.agent_command, "", ""),
                                  std::move(held));
  if (!recorder) {
    RemoveSessionDir(plan);
    return recorder.error();
  }
  auto services = StartServices(policy, options.policy_source, plan, /*with_proxy=*/false,
                                recorder->record());
  Result<RunOutcome> outcome = RunOutcome{};
  if (services) {
    report::Line("corral: " + input.agent_command.front() + " runs unboxed (" + why +
                 "); the deny list still applies");
    auto code = SpawnAndWait(program, input.agent_command, env);
    std::uint64_t blocked = services->Stop();
    if (code) {
      outcome->exit_code = *code;
      outcome->blocked_while_away = blocked;
      outcome->blocked_named = services->refused_while_away->Named();
    } else {
      outcome = code.error();
    }
  } else {
    outcome = services.error();
  }
  RemoveSessionDir(plan);
  recorder->End(outcome, outcome ? outcome->blocked_while_away : 0, Watching(policy.presence));
  return outcome;
}

}  // namespace corral::launcher
