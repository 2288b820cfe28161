// Reading a shell's arguments the way bash, dash and zsh do: options first
// (bundled short flags, -o/+o NAME, -O/+O NAME, --long), then -c TEXT or a
// script file, or commands on stdin.
#include <string_view>

#include "images/shim/shell.h"

namespace corral::shim {
namespace {

// bash long options that take the next argument.
bool LongTakesArgument(std::string_view opt) { return opt == "--rcfile" || opt == "--init-file"; }

}  // namespace

bool IsShellName(const std::string& argv0) {
  std::string_view name = argv0;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (!name.empty() && name.front() == '-') name.remove_prefix(1);  // login shell
  return name == "sh" || name == "bash" || name == "zsh" || name == "dash" || name == "ksh";
}

ShellCall ParseShellArgs(const std::vector<std::string>& args) {
  ShellCall call;
  bool command_flag = false, stdin_flag = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string_view arg = args[i];
    if (arg == "--" || arg == "-") {  // end of options
      ++i;
      break;
    }
    if (arg.starts_with("--")) {
      if (arg == "--version" || arg == "--help") {
        call.kind = ShellCall::Kind::kInfo;
        return call;
      }
      if (LongTakesArgument(arg)) ++i;
      continue;
    }
    if (arg.size() < 2 || (arg[0] != '-' && arg[0] != '+')) break;  // first operand
    bool takes_name = false;
    for (char flag : arg.substr(1)) {
      if (flag == 'c') command_flag = true;
      if (flag == 's') stdin_flag = true;
      if (flag == 'i') call.interactive = true;
      if (flag == 'o' || flag == 'O') takes_name = true;  // -o pipefail, -O extglob
    }
    if (takes_name) ++i;
  }
  if (command_flag) {
    call.kind = ShellCall::Kind::kCommand;
    // With no text, bash fails ("-c: option requires an argument"): nothing runs.
    call.text = i < args.size() ? args[i] : "";
    return call;
  }
  if (!stdin_flag && i < args.size()) {
    call.kind = ShellCall::Kind::kScript;
    call.text = args[i];
    return call;
  }
  call.kind = ShellCall::Kind::kStdin;
  return call;
}

}  // namespace corral::shim
