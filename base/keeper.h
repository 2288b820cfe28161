// A keeper: a process forked to keep something alive for its parent (the
// embedded Podman service, the ssh tunnel) or to clean up after it (the
// reaper). A pipe from the parent tells it how the parent ended: a byte when
// the parent is done, the pipe's end (EOF) when it died, also by SIGKILL.
#pragma once

#include <sys/types.h>

#include <functional>
#include <initializer_list>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace corral {

class Keeper {
 public:
  // Forks. The child leaves the terminal's session (Ctrl-C is the parent's
  // to handle), ignores the signals in `ignored` and runs `main` with its
  // end of the pipe; `main` ends the process itself (_exit). Errors read
  // "<pipe_what>: why" and "<fork_what>: why".
  static Result<Keeper> Start(std::initializer_list<int> ignored,
                              const std::function<void(int done)>& main,
                              const std::string& fork_what, const std::string& pipe_what = "pipe");

  Keeper() = default;
  Keeper(Keeper&& other) noexcept;
  Keeper& operator=(Keeper&& other) noexcept;
  // Dropped without Done, the keeper reads EOF, as if the parent had died.
  ~Keeper() = default;

  bool running() const { return pid_ > 0; }
  // Tells the keeper the parent is done, once.
  void Done();
  // True, once, when the keeper has ended; does not wait.
  bool Ended();
  // Waits for a running keeper to end.
  void Wait();

 private:
  pid_t pid_ = -1;
  UniqueFd done_;
};

// In the keeper: reads the parent's word on `done`. True when the parent
// said it is done; false when it died (EOF).
bool ParentDone(int done);

}  // namespace corral
