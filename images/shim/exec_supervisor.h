// The exec check's supervisor: answers each exec the filter (exec_filter.h)
// hands over, on a thread of PID 1. While somebody is watching every exec
// goes on at once; otherwise the program, its arguments and what its file is
// are read from the process and decided on with the session's deny list.
// Private to the shim.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/unique_fd.h"
#include "images/shim/host_answers.h"

namespace corral::shim {

struct SupervisorSettings {
  std::string deny_list_file;  // the session's current list (the built-in one when missing)
  std::string search_path;     // the box's PATH: where listed programs are recorded
  std::string front_dirs;      // where corral-shell is (`:`-separated): its execs go on, it
                               // checks the command text itself and says why it refuses
};

// Execs PID 1 decided on itself (the exec gate's, exec_gate.h): the gate
// cannot be read once it holds its program's file, so its one exec goes on
// unread, within a few seconds of the decision.
class ApprovedExecs {
 public:
  void Add(pid_t pid);
  bool Take(pid_t pid);

 private:
  std::mutex mutex_;
  std::vector<std::pair<pid_t, long>> approved_;  // pid, when (monotonic ms)
};

// Answers `listener`'s notifications until no filtered process is left.
void SuperviseExecs(UniqueFd listener, const SupervisorSettings& settings,
                    std::unique_ptr<HostAnswers> host,
                    std::shared_ptr<ApprovedExecs> approved);

// The exec gate's decision on its listed program `name` (its file at
// `path`) started with `argv` in `cwd`: true when refused. The same list
// and oracle as the supervisor's, read on the caller's thread.
using GateDecision = std::function<bool(const std::string& name, const std::string& path,
                                        const std::vector<std::string>& argv,
                                        const std::string& cwd)>;
GateDecision MakeGateDecision();

// SuperviseExecs on a thread of its own, with what the box's environment
// says: CORRAL_DENY_LIST_FILE, CORRAL_ORACLE_SOCKET (the session folder's
// files without them), PATH, and corral-shell beside this program.
void StartExecSupervisor(UniqueFd listener, std::shared_ptr<ApprovedExecs> approved);

}  // namespace corral::shim
