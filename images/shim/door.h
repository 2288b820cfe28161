// The box's door: how `corral exec` runs a command in a running box as one
// of the agent's own processes (its user, its mount namespace with the exec
// gate's covers, its exec check, no capabilities), not as a stranger the
// engine starts beside it. Private to the shim.
//
// The agent's first process opens the door (an abstract unix socket of the
// box's network namespace) after its exec check is in place and before it
// becomes the agent, and leaves a keeper behind (reparented to PID 1, in a
// session of its own) that starts each command it is asked for.
// `corral-shim enter`, which the engine starts as the agent's user, asks
// for one with its own standard descriptors and its working directory, then
// forwards its signals and exits with the command's status.
#pragma once

#include <string>

#include "base/unique_fd.h"

namespace corral::shim {

// The door's socket, listening; invalid (errno set) when it cannot be made.
UniqueFd OpenDoor();

// Leaves the keeper of `door` running in the background (double fork: the
// caller has no new child to wait for) and returns.
void StartDoorKeeper(const UniqueFd& door);

// `corral-shim enter [--] [COMMAND...]`: COMMAND's words, joined with
// spaces as ssh does, are given to `sh -c`; none opens an interactive
// shell (bash, else sh), each found on the box's PATH, where corral's shell
// front comes first. Returns the command's exit status, or 125 when the box
// has no door.
int Enter(int argc, char** argv);

}  // namespace corral::shim
