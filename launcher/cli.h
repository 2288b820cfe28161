// The command-line surface: the subcommand table and what every command
// shares. Private to launcher/ (the corral executable).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "base/base.h"
#include "policy/policy.h"

namespace corral::cli {

// Options every command accepts, and the exit code the chosen command sets.
struct Globals {
  std::string config_path;         // --config
  std::vector<std::string> sets;   // --set KEY=VALUE
  int exit_code = 0;
};

// Exit codes shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;  // a check said no / validation failed
inline constexpr int kExitUsage = 2;    // bad flags or bad input

// A row of the subcommand table: Add registers the subcommand on the app,
// with its options and a callback that stores its exit code in Globals.
struct Command {
  const char* name;
  const char* summary;
  std::function<void(CLI::App& app, Globals& globals)> add;
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

// Prints "corral: <message>" to stderr, once, and returns `exit_code`.
int Fail(const Error& error, int exit_code);

// The closest command name within a small edit distance, or "".
std::string SuggestCommand(const std::string& typed);

}  // namespace corral::cli
