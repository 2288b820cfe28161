// corral-shim: dispatches on the first argument to a mode.
#include <cstdio>
#include <cstring>

#include "images/shim/relay.h"
#include "images/shim/shim.h"

int main(int argc, char** argv) {
  struct Mode {
    const char* name;
    int (*run)(int, char**);
  };
  for (const Mode& mode : {Mode{"init", corral::shim::Init}, Mode{"connect", corral::shim::Connect},
                           Mode{"check-locally", corral::shim::CheckLocally}}) {
    if (argc >= 2 && std::strcmp(argv[1], mode.name) == 0) return mode.run(argc - 2, argv + 2);
  }
  std::fprintf(stderr,
               "corral-shim: a mode is needed: corral-shim init [--exec-check on|require|off] -- "
               "COMMAND [ARGS...]\n"
               "  or: corral-shim connect HOST PORT (ssh ProxyCommand through the proxy)\n"
               "  (corral runs this inside every box; you do not need to run it yourself;\n"
               "  the shell names in /run/corral/bin run corral-shell, not this)\n");
  return 2;
}
