// corral-shim: the in-box program. One function per mode. Private.
#pragma once

#include <string>

namespace corral::shim {

// `corral-shim init [--exec-check on|require|off] -- COMMAND [ARGS...]`: PID 1
// of the box. Runs COMMAND with every exec of its processes checked
// (exec_check.h), reaps every child, forwards signals, and ends the box when
// the session's watchdog socket closes (corral gone). Returns the exit
// status for PID 1.
int Init(int argc, char** argv);

// `corral-shim check-locally FD REAL -- ARGV0 [ARGS...]`: where corral-shell
// (images/shell) hands over when the host's oracle could not be asked. FD
// holds the command text. A command the matcher finds on the session's deny
// list is refused; anything else runs as REAL with ARGV0 and ARGS.
int CheckLocally(int argc, char** argv);

// The refusal for `command` when the host could not be asked, or "" when it
// may run: the list in `deny_list_file`, or the built-in one without it.
std::string RefusalWithoutHost(const std::string& deny_list_file, const std::string& command);

}  // namespace corral::shim
