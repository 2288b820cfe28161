// Starting the exec check across PID 1's fork: the child that becomes the
// agent installs the filter (exec_filter.h) and hands the listener to PID 1,
// whose supervisor thread (exec_supervisor.h) answers before the agent's
// first exec. Private to the shim.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "base/unique_fd.h"

namespace corral::shim {

// The `exec_check` setting, given as `init --exec-check MODE`.
enum class ExecCheckMode { kOff, kOn, kRequire };
std::optional<ExecCheckMode> ParseExecCheckMode(std::string_view text);

class ExecCheckStart {
 public:
  // Before the fork. Fails (125) only for kRequire on a kernel without
  // what the check needs; says so on stderr.
  static std::optional<ExecCheckStart> Prepare(ExecCheckMode mode);

  // Whether the check may run: on or require, and nothing known against it.
  bool may_run() const { return mode_ != ExecCheckMode::kOff && unavailable_.empty(); }

  // In the child: installs the filter, hands the listener over, and waits
  // for PID 1 to answer. False when the agent must not start.
  bool InChild();

  // In PID 1: takes the child's listener into `listener` (to be given to
  // the supervisor, exec_supervisor.h; the child's execs wait until it
  // answers), or says at start that the check is off and why. 0, or 125 when
  // exec_check is `require` and the check cannot run (the child then ends).
  int InParent(pid_t child, UniqueFd& listener);

 private:
  ExecCheckMode mode_ = ExecCheckMode::kOff;
  std::string unavailable_;  // why the check cannot run, known before the fork
  UniqueFd parent_end_, child_end_;
};

}  // namespace corral::shim
