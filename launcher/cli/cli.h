// launcher/cli/: the corral executable's command-line surface: the subcommand
// table, what every command shares, and one Add<Name>Command per cmd_<name>.cc.
// Private to the corral executable.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/base.h"
#include "policy/config/config.h"
#include "policy/matcher/matcher.h"

namespace corral::cli {

// Options every command accepts, and the exit code the chosen command sets.
struct Globals {
  std::string config_path;         // --config
  std::vector<std::string> sets;   // --set KEY=VALUE
  // run, spec: AGENT [ARGS...]; exec: SESSION [COMMAND...]; check: the command line's words
  std::vector<std::string> command_words;
  int exit_code = 0;
};

// Exit codes shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;  // a check said no / validation failed
inline constexpr int kExitUsage = 2;    // bad flags or bad input

// A row of the subcommand table: Add registers the subcommand on the app,
// with its options and a callback that stores its exit code in Globals.
// Words after a command's options that CLI11 must not parse (SplitCommandWords).
enum class Words {
  kOptions,      // CLI11 parses every word
  kAgent,        // AGENT [ARGS...]; a `--` right after the name is dropped
  kCommandLine,  // a shell command line, kept word for word
};
struct Command {
  const char* name;
  const char* summary;
  std::function<void(CLI::App& app, Globals& globals)> add;
  Words words = Words::kOptions;
};
const std::vector<Command>& Commands();

// Where the policy comes from (--config, --set and extra overrides), for
// whoever reloads it later (the oracle).
Result<policy::LoadOptions> PolicySource(const Globals& globals,
                                         std::vector<policy::LoadOptions::Override> extra = {});

// Loads the policy from --config/--set/environment, with extra overrides
// from a command's own flags (highest precedence).
Result<policy::Policy> LoadPolicy(const Globals& globals,
                                  std::vector<policy::LoadOptions::Override> extra = {});

// `corral run` and `corral spec` take the agent's command as `docker run`
// does, and `corral check` its command line: corral's options first, every
// word from the first other one (or after `--`) on verbatim. `args` is argv
// without the program name; CLI11 parses corral_words only.
struct WordsSplit {
  std::vector<std::string> corral_words;
  std::vector<std::string> command_words;
};
WordsSplit SplitCommandWords(const CLI::App& app, const std::vector<std::string>& args);

// Prints "corral: <message>" to stderr, once, and returns `exit_code`.
int Fail(const Error& error, int exit_code);

// A subcommand's callback: loads the policy (one that does not load fails
// with kExitUsage), then the exit status is `command`'s.
template <class Options>
std::function<void()> WithPolicy(Globals& globals, std::shared_ptr<Options> options,
                                 int (*command)(const policy::Policy&, const Options&)) {
  return [&globals, options = std::move(options), command] {
    auto policy = LoadPolicy(globals);
    if (!policy) {
      globals.exit_code = Fail(policy.error(), kExitUsage);
      return;
    }
    globals.exit_code = command(*policy, *options);
  };
}

// Library code's lines (base/report.h) go to this terminal: news and
// progress on stderr, a command's answer on stdout (terminal_sink.cc).
void InstallTerminalSink();

// The closest command name within a small edit distance, or "".
std::string SuggestCommand(const std::string& typed);

// corral check --batch: decides each line of `fd` ({"command": "..."}) and
// writes one JSON verdict line per input line to stdout (check_batch.cc).
int RunCheckBatch(int fd, const policy::Matcher& matcher, const policy::Policy& policy);

// The command tree as shell completion sees it (completion.cc): one node per
// command path, "corral", "corral/image", "corral/image/ls", parents first,
// hidden commands and options left out. Made from the CLI::App itself, so a
// new command or option is completed without touching the scripts.
struct CompletionOption {
  std::vector<std::string> names;  // "-h", "--help"
  std::string help;
  enum class Value { kNone, kText, kFile, kDir, kChoice } value = Value::kNone;
  std::vector<std::string> choices;  // kChoice: from CLI::IsMember
};
struct CompletionNode {
  std::string path;
  // Subcommands, or the choices of the first positional (completion's SHELL).
  std::vector<std::pair<std::string, std::string>> words;  // name, help
  std::vector<CompletionOption> options;  // its own, then its parents' (fallthrough)
};
std::vector<CompletionNode> CompletionTable(const CLI::App& root);
// The scripts (completion_scripts.cc); `shell` is bash, zsh or fish.
std::string CompletionScript(const std::string& shell, const std::vector<CompletionNode>& table);

// One registration function per subcommand (cmd_<name>.cc).
void AddCheckCommand(CLI::App& app, Globals& globals);
void AddConfigCommand(CLI::App& app, Globals& globals);
void AddConfigImportCommand(CLI::App* config, Globals& globals);  // config import
void AddSpecCommand(CLI::App& app, Globals& globals);
void AddRunCommand(CLI::App& app, Globals& globals);
void AddAgentsCommand(CLI::App& app, Globals& globals);
void AddImageCommand(CLI::App& app, Globals& globals);
void AddCacheCommand(CLI::App& app, Globals& globals);
void AddPsCommand(CLI::App& app, Globals& globals);
void AddStopCommand(CLI::App& app, Globals& globals);
void AddExecCommand(CLI::App& app, Globals& globals);
void AddPresenceCommand(CLI::App& app, Globals& globals);
void AddInboxCommand(CLI::App& app, Globals& globals);
void AddReportCommand(CLI::App& app, Globals& globals);
void AddSeccompCommand(CLI::App& app, Globals& globals);
void AddProxyCommand(CLI::App& app, Globals& globals);
void AddDoctorCommand(CLI::App& app, Globals& globals);
void AddAllowCommand(CLI::App& app, Globals& globals);
void AddHeldCommand(CLI::App& app, Globals& globals);
void AddReviewCommand(CLI::App& app, Globals& globals);
void AddUndoCommand(CLI::App& app, Globals& globals);
void AddRelayCommand(CLI::App& app, Globals& globals);
void AddProjectCopyCommand(CLI::App& app, Globals& globals);
void AddCompletionCommand(CLI::App& app, Globals& globals);
// --engine-tls-ca/-cert/-key on a command that reaches an engine (engine_flags.cc).
void AddEngineTlsFlags(CLI::App* sub);

}  // namespace corral::cli
