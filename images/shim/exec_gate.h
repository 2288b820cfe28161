// The exec gate (docs/exec-check.md, "The gate"): each listed program found
// in the box at start is covered, in the agent's own mount namespace, by
// this program, so the agent's processes reach only the gate by any path (a
// link, a copy, the loader, /proc/self/root, a `#!` line). The gate asks
// PID 1, which keeps the real file open from before the cover, for it, and
// execs it: the exec check decides on that exec like on any other, with the
// arguments the agent gave. Private to the shim.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/unique_fd.h"
#include "images/shim/exec_supervisor.h"

namespace corral::shim {

struct GatedProgram {
  std::string name;  // as the deny list names it
  std::string path;  // where its file is (symbolic links followed): where the gate goes
  struct stat st {};
  UniqueFd file;  // O_PATH, held by PID 1
};

class ExecGate {
 public:
  // PID 1, before the agent starts: each program of `listed` found in the
  // `:`-separated `search_path` whose file is a compiled program (a script
  // is a few lines over a package any interpreter imports: the exec check's
  // text and module checks keep it), but never an interpreter (`skip`: a
  // multi-call busybox is every other program too) nor corral's own files.
  // Listens for gates. Empty when nothing is found.
  static ExecGate Find(const std::vector<std::string>& listed, std::string_view search_path,
                       const std::vector<std::string>& skip);

  bool empty() const { return programs_.empty(); }
  const std::vector<GatedProgram>& programs() const { return programs_; }

  // The agent's first process, with the capabilities to mount in effect:
  // a mount namespace of its own with each program's file covered by the
  // gate (read-only). "" or why it could not.
  std::string Cover() const;

  // PID 1, once the agent's process has covered: answers gates on a thread
  // of its own for the rest of the box's life. A gate gets its program's
  // file only when it is the gate file, at a covered path, in the agent's
  // mount namespace, `decide` does not refuse its arguments, and no other
  // process can read it any more; its exec is then `approved` (the
  // supervisor cannot read it). Without `decide` (no exec check), every
  // real gate gets its file.
  void Serve(pid_t agent, GateDecision decide, std::shared_ptr<ApprovedExecs> approved);

  // The listening socket's abstract name (tests).
  static std::string SocketName();

 private:
  std::vector<GatedProgram> programs_;
  UniqueFd listener_;
};

// What a gate sees of its caller, decided by PID 1 (pure, for tests): the
// program at `exe_path` when `exe` is the gate file and `mount_ns` the
// agent's; nullptr otherwise.
const GatedProgram* GateFor(const std::vector<GatedProgram>& programs, const std::string& exe_path,
                            const struct stat& exe, const struct stat& gate,
                            ino_t mount_ns, ino_t agent_mount_ns);

// The gate: runs as a listed program's name, asks PID 1 for the real file
// and execs it with `argv` and the environment as they are. Returns only
// when it cannot (126, said on stderr).
int RunGate(int argc, char** argv);

// Whether this process is a gate: its file is not named corral-shim.
bool IsGate(std::string_view exe_path);

}  // namespace corral::shim
