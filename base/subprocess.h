#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"

namespace corral {

struct ProcessOutput {
  int exit_status = -1;  // the exit code, or 128+signal
  std::string out;       // stdout (stderr is discarded)
};

// What a started program gets as its stdin, stdout and stderr (-1: /dev/null).
// It gets no other descriptor of this process.
struct ChildStdio {
  int in = -1;
  int out = -1;
  int err = -1;
};

// Starts argv[0] (searched in PATH) with `stdio` as 0, 1 and 2 and every other
// descriptor closed, whether or not it is close-on-exec. Its environment is
// this process's with `env` ("NAME=value" each) set over it.
Result<pid_t> Spawn(const std::vector<std::string>& argv, ChildStdio stdio,
                    const std::vector<std::string>& env = {});

// Runs argv[0] (searched in PATH) with stdin from /dev/null, collecting
// stdout up to 1 MiB. Past `timeout` the child is killed and this returns an
// error, so a hung helper program never holds up a decision.
Result<ProcessOutput> RunCapture(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout);

// The exit code of a waitpid() status, or 128+signal; -1 for neither.
int WaitStatusCode(int wait_status);

// The executable regular file `name` names, searched in `path` (a PATH value)
// as execvp would; a name holding a '/' is returned as it is. "" when none.
std::string FindInPath(const std::string& name, const std::string& path);
// The same, in this process's PATH (or /usr/local/bin:/usr/bin:/bin).
std::string FindInPath(const std::string& name);

}  // namespace corral
