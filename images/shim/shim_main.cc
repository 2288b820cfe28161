// corral-shim: dispatches on the first argument to a mode.
#include <cstdio>
#include <cstring>

#include "images/shim/relay.h"
#include "images/shim/shell.h"
#include "images/shim/shim.h"

int main(int argc, char** argv) {
  // Under a shell's name (sh, bash, ...), the shim checks, then runs the real one.
  if (argc >= 1 && corral::shim::IsShellName(argv[0])) return corral::shim::RunShell(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "init") == 0) {
    return corral::shim::Init(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "connect") == 0) {
    return corral::shim::Connect(argc - 2, argv + 2);
  }
  std::fprintf(stderr,
               "corral-shim: a mode is needed: corral-shim init -- COMMAND [ARGS...]\n"
               "  or: corral-shim connect HOST PORT (ssh ProxyCommand through the proxy)\n"
               "  (corral runs this inside every box; you do not need to run it yourself)\n");
  return 2;
}
