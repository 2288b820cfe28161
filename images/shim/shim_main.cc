// corral-shim: dispatches on the first argument to a mode, or is a gate.
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "images/shim/door.h"
#include "images/shim/exec_gate.h"
#include "images/shim/relay.h"
#include "images/shim/shim.h"

int main(int argc, char** argv) {
  // Under a listed program's name, covering it: the exec gate (exec_gate.h).
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self);
  if (n > 0 && corral::shim::IsGate(std::string(self, static_cast<std::size_t>(n)))) {
    return corral::shim::RunGate(argc, argv);
  }
  struct Mode {
    const char* name;
    int (*run)(int, char**);
  };
  for (const Mode& mode : {Mode{"init", corral::shim::Init}, Mode{"connect", corral::shim::Connect},
                           Mode{"check-locally", corral::shim::CheckLocally},
                           Mode{"enter", corral::shim::Enter},
                           Mode{"forward", corral::shim::Forward}}) {
    if (argc >= 2 && std::strcmp(argv[1], mode.name) == 0) return mode.run(argc - 2, argv + 2);
  }
  std::fprintf(stderr,
               "corral-shim: a mode is needed: corral-shim init [--exec-check on|require|off] -- "
               "COMMAND [ARGS...]\n"
               "  or: corral-shim connect HOST PORT (ssh ProxyCommand through the proxy)\n"
               "  or: corral-shim enter [--] [COMMAND...] (corral exec: COMMAND as the agent's)\n"
               "  or: corral-shim forward PORT (corral run --publish: the box's port on stdin/stdout)\n"
               "  (corral runs this inside every box; you do not need to run it yourself;\n"
               "  the shell names in /run/corral/bin run corral-shell, not this)\n");
  return 2;
}
