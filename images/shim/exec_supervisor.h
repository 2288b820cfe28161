// The exec check's supervisor: answers each exec the filter (exec_filter.h)
// hands over, on a thread of PID 1. While somebody is watching every exec
// goes on at once; otherwise the program, its arguments and what its file is
// are read from the process and decided on with the session's deny list.
// Private to the shim.
#pragma once

#include <memory>
#include <string>

#include "base/unique_fd.h"
#include "images/shim/host_answers.h"

namespace corral::shim {

struct SupervisorSettings {
  std::string deny_list_file;  // the session's current list (the built-in one when missing)
  std::string search_path;     // the box's PATH: where listed programs are recorded
  std::string front_dirs;      // where corral-shell is (`:`-separated): its execs go on, it
                               // checks the command text itself and says why it refuses
};

// Answers `listener`'s notifications until no filtered process is left.
void SuperviseExecs(UniqueFd listener, const SupervisorSettings& settings,
                    std::unique_ptr<HostAnswers> host);

// SuperviseExecs on a thread of its own, with what the box's environment
// says: CORRAL_DENY_LIST_FILE, CORRAL_ORACLE_SOCKET (the session folder's
// files without them), PATH, and corral-shell beside this program.
void StartExecSupervisor(UniqueFd listener);

}  // namespace corral::shim
