#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/result.h"

namespace corral {

struct ProcessOutput {
  int exit_status = -1;  // the exit code, or 128+signal
  std::string out;       // stdout (stderr is discarded)
};

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
