// corral's state folder, where the sessions, the inbox and the heartbeat live.
#include <cstdlib>

#include "policy/config/config.h"

namespace corral::policy {

std::string StateDir() {
  if (const char* xdg = ::getenv("XDG_STATE_HOME"); xdg && *xdg == '/') {
    return std::string(xdg) + "/corral";
  }
  const char* home = ::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/state/corral";
}

}  // namespace corral::policy
