// The kernel side of the exec check: a seccomp filter that hands every
// execve/execveat of the calling process and its descendants to a listener
// (SECCOMP_RET_USER_NOTIF). Private to the shim.
#pragma once

#include <linux/seccomp.h>

#include <cstdint>
#include <optional>
#include <string>

namespace corral::shim {

// Installs the filter on the calling thread (after setting no_new_privs,
// which the box has anyway) and returns the listener, or -1 with errno set.
// Irreversible: call it in the child that becomes the agent.
int InstallExecFilter();

// Why the exec check cannot run here, in words for the user: the kernel's
// version (it needs 5.5 for SECCOMP_USER_NOTIF_FLAG_CONTINUE), or `error`
// from InstallExecFilter. "" when `error` is 0 and the kernel is new enough.
std::string ExecFilterUnavailable(int error);

// What one notified call asks for, read from its registers.
struct ExecCall {
  int dirfd;              // AT_FDCWD for execve
  std::uint64_t path;     // address of the path in the process
  std::uint64_t argv;     // address of its argument vector
  int flags;              // execveat's flags (AT_EMPTY_PATH, ...)
  unsigned pointer_size;  // 4 for 32-bit callers
};
std::optional<ExecCall> ReadExecCall(const seccomp_data& data);

}  // namespace corral::shim
