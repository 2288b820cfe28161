// Commands that run another command (sudo, nice, timeout, npx, ...): how
// their options are read, so the command they run can be found. Private to
// policy/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "policy/matcher/command_word.h"

namespace corral::policy {

enum WrapperMode : std::uint8_t {
  kAssignments = 1u << 0,   // NAME=VALUE words may come before the command
  kJoinShell = 1u << 1,     // the remaining words are joined into shell code (ssh, watch)
  kNoCommand = 1u << 2,     // runs no command word (only its shell-code option)
  kPackageName = 1u << 3,   // the command may carry @version (npx kubectl@1.30)
};

struct WrapperSpec {
  std::string_view name;
  std::string_view subcommands;  // "exec dlx": only after one of these; "" always
  std::string_view short_args;   // option letters that take an argument
  std::string_view short_flags;  // option letters that do not (others: read both ways)
  std::string_view long_args;    // long options that take an argument, space separated
  std::string_view long_flags;   // long options that do not
  char shell_short = 0;          // -c TEXT: TEXT is shell code (su, flock, script)
  std::string_view shell_long;   // --command TEXT
  int positionals = 0;           // operands before the command (timeout's DURATION)
  std::uint8_t mode = 0;
};

// Where the wrapped command may start. When an option's arity is unknown
// both readings are kept, so there may be several candidates.
struct WrapperPlan {
  std::vector<std::size_t> starts;
  // Shell code given by option: the word index and the offset of the code in
  // its text (--command=CODE has offset 10).
  std::vector<std::pair<std::size_t, std::size_t>> shell_code;
  bool missing = false;  // some reading runs no command word
};

// The names of the commands that run another command given as their
// arguments, for tables built once. Any name starting with "with-" does too
// (FindWrapper knows those).
std::vector<std::string_view> WrapperNames();

// The spec for args[0] (and its subcommand); `first` is set to the index of
// the first word after the wrapper's name and subcommand.
const WrapperSpec* FindWrapper(std::string_view name, std::span<const Arg> args,
                               std::size_t* first);

WrapperPlan PlanWrapper(const WrapperSpec& spec, std::span<const Arg> args, std::size_t first);

// Options of `git` before its subcommand; returns the subcommand's index
// (args.size() when none), collects -c NAME=VALUE words and the words read
// as options that are only known at run time.
std::size_t SkipGitGlobalOptions(std::span<const Arg> args, std::vector<std::size_t>* configs,
                                 std::vector<std::size_t>* unknown);

}  // namespace corral::policy
