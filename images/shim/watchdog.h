// The box's watchdog: a unix socket corral (or, in the network mode, the
// relay in the sidecar) holds open for the session. PID 1 ends the box when
// it closes. Private to the shim.
#pragma once

#include <string>

namespace corral::shim {

// Connects to the watchdog at `path`. Without `wait_ms` (0), -1 with errno
// ENOENT means there is none (no session folder mounted), as for a box
// started by hand. With it (the network mode, where the box starts while
// the sidecar does), the watchdog and then `proxy_socket` (when not empty)
// are waited for, up to `wait_ms`: -1 with errno ETIMEDOUT when they do not
// come, so the agent never runs without them.
int AwaitWatchdog(const char* path, long wait_ms, const std::string& proxy_socket);

}  // namespace corral::shim
