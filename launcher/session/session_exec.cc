// corral exec: a command in a running session's box. The engine starts
// `corral-shim enter` as the agent's user; the shim's door (images/shim/
// door.h) runs the command as one of the agent's own processes, so the
// exec check, the exec gate's covers and the shell front hold for it as
// they do for the agent.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "launcher/engine/engine.h"
#include "launcher/launcher.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

constexpr int kExitCodeWaitMs = 3000;  // the engine records the status just after the stream ends

std::string LabelOf(const nlohmann::json& c, const std::string& key) {
  const auto& labels = c.value("Labels", nlohmann::json::object());
  return labels.is_object() && labels.contains(key) && labels[key].is_string()
             ? labels[key].get<std::string>()
             : "";
}

// The session's box (not a network mode's proxy or helper): the container
// labelled with the session that runs its agent.
Result<std::string> FindBox(Engine& engine, const std::string& id) {
  auto list = engine.ListByLabel(kLabelSession, /*all=*/false);
  if (!list) return list.error();
  std::string session, box;
  for (const auto& c : *list) {
    std::string labelled = LabelOf(c, kLabelSession);
    if (!labelled.starts_with(id) || LabelOf(c, "corral.agent").empty() ||
        !LabelOf(c, "corral.part").empty()) {
      continue;
    }
    if (!session.empty() && session != labelled) {
      return Error("'" + id + "' names more than one running session (" + session + ", " +
                   labelled + "): give more of its id");
    }
    session = labelled;
    box = c.value("Id", "");
  }
  if (box.empty()) return Error("no running session '" + id + "' on this engine: `corral ps` lists them");
  return box;
}

struct BoxEntry {
  std::string shim;  // corral-shim's path in the box
  std::string user;  // the agent's UID:GID
};

// What PID 1 was started with: `SHIM init [--user UID:GID] ... -- AGENT...`.
Result<BoxEntry> EntryOf(const nlohmann::json& box, const std::string& id) {
  BoxEntry entry;
  entry.shim = box.value("Path", "");
  std::vector<std::string> args;
  if (box.contains("Args") && box["Args"].is_array()) {
    for (const auto& arg : box["Args"]) args.push_back(arg.is_string() ? arg.get<std::string>() : "");
  }
  if (entry.shim.empty() || args.empty() || args[0] != "init") {
    return Error("session " + id + "'s box was not started by corral-shim init, so corral exec "
                 "cannot enter it");
  }
  for (std::size_t i = 1; i + 1 < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--user") entry.user = args[i + 1];
  }
  if (entry.user.empty() && box.contains("Config") && box["Config"].is_object()) {
    entry.user = box["Config"].value("User", "");
  }
  return entry;
}

// Without --engine, the engine the session's record names when it has not
// ended (as `corral stop` does), else the configured or default one.
Result<Engine> ConnectFor(const policy::Policy& policy, const std::string& flag,
                          const std::string& id) {
  std::optional<RecordedSession> recorded;
  if (flag.empty()) recorded = RecordedSessionFor(policy::StateDir(), id);
  if (recorded && !recorded->ended && !recorded->endpoint.empty()) {
    auto engine = ConnectRecorded(recorded->endpoint);
    if (!engine) {
      return engine.error().Context("session " + recorded->id + " was started on " +
                                    recorded->endpoint + " (its record says)");
    }
    return engine;
  }
  auto choice = ChooseEndpoints(flag, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  return Engine::Connect(*choice);
}

}  // namespace

Result<int> ExecInSession(const policy::Policy& policy, const std::string& flag,
                          const std::string& id, const std::vector<std::string>& command) {
  if (id.empty() || id.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Error("'" + id + "' is not a session id (12 hex digits, or the start of one: "
                 "`corral ps` lists them)");
  }
  auto engine = ConnectFor(policy, flag, id);
  if (!engine) return engine.error();
  auto box = FindBox(*engine, id);
  if (!box) return box.error();
  auto described = engine->Inspect(*box);
  if (!described) return described.error();
  auto entry = EntryOf(*described, id);
  if (!entry) return entry.error();

  ExecOptions options;
  options.user = entry->user;
  options.tty = ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  options.errors = true;
  if (const char* term = std::getenv("TERM"); options.tty && term && *term) {
    options.env.push_back(std::string("TERM=") + term);
  }
  std::vector<std::string> enter = {entry->shim, "enter", "--"};
  enter.insert(enter.end(), command.begin(), command.end());
  auto signals = SignalPipe::Install();
  if (!signals) return signals.error();
  auto started = engine->StartExec(*box, enter, options);
  if (!started) return started.error();
  std::optional<RawTerminal> raw;
  auto resize = [&] {
    auto [rows, cols] = TerminalSize();
    if (rows > 0) (void)engine->ResizeExec(started->id, rows, cols);
  };
  if (options.tty) {
    raw.emplace();
    resize();
  }
  int interrupted = Pump(started->stream, options.tty, *signals, resize);
  raw.reset();
  if (interrupted != 0) return 128 + interrupted;
  for (int waited = 0;; waited += 50) {
    auto code = engine->ExecExitCode(started->id);
    if (!code) return code.error();
    if (*code) return **code;
    if (waited >= kExitCodeWaitMs) return Error("the command's exit status did not come");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace corral::launcher
