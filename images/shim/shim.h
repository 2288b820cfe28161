// corral-shim: the in-box program. One function per mode. Private.
#pragma once

namespace corral::shim {

// `corral-shim init -- COMMAND [ARGS...]`: PID 1 of the box. Runs COMMAND,
// reaps every child, forwards signals, and ends the box when the session's
// watchdog socket closes (corral gone). Returns the exit status for PID 1.
int Init(int argc, char** argv);

}  // namespace corral::shim
