// The shim's shell mode: it stands in for sh/bash/zsh/dash/ksh, asks the
// host's oracle whether the command may run, then runs the real shell with
// the original arguments or refuses. Private to the shim.
#pragma once

#include <string>
#include <vector>

namespace corral::shim {

// What a shell was asked to do, read from its arguments as that shell would.
struct ShellCall {
  enum class Kind {
    kCommand,  // -c TEXT
    kScript,   // a script file
    kStdin,    // commands on standard input (-s, or no arguments)
    kInfo,     // --version / --help: nothing runs
  };
  Kind kind = Kind::kStdin;
  std::string text;         // kCommand: the command text; kScript: the path
  bool interactive = false;  // -i
};

ShellCall ParseShellArgs(const std::vector<std::string>& args);  // args after argv[0]

// The oracle's answer, or the fallback's when the host could not be asked.
struct ShellVerdict {
  bool allowed = true;
  std::string message;  // printed to stderr when refused
};

struct ShellSettings {
  std::string oracle_socket = "/run/corral/oracle.sock";
  std::string deny_list = "/run/corral/deny-list";
  int timeout_ms = 10'000;
};
ShellSettings SettingsFromEnvironment();

// Asks the oracle; when it cannot be reached or does not answer in time,
// refuses only what the local matcher finds on the session's deny list.
ShellVerdict AskHost(const ShellSettings& settings, const std::string& shell,
                     const std::string& command, const std::string& cwd);

// The real shell for `name`, never the shim itself: $CORRAL_REAL_<NAME>, then
// /bin, /usr/bin, /usr/local/bin; "" when the image has none.
std::string FindRealShell(const std::string& name);

// `corral-shim` invoked as a shell (argv[0] = sh, bash, ...). Returns only
// on refusal or error; otherwise it becomes the real shell.
int RunShell(int argc, char** argv);

// True when argv[0]'s basename is a shell name the shim stands in for.
bool IsShellName(const std::string& argv0);

}  // namespace corral::shim
