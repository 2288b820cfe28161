#pragma once

#include <sys/types.h>

#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace corral {

struct UnixListenOptions {
  mode_t mode = 0600;      // who may connect: the socket file's mode
  int backlog = 128;
  bool nonblocking = false;  // for an event loop's accept
};

// A listening unix stream socket at `path`, replacing a socket already there
// (never another kind of file). It is made under a name of its own, given its
// mode, set listening, and only then renamed into place, so a client that
// finds the path is never refused by a mode not set yet or a listen not made
// yet. No umask is touched (umask is the whole process's).
Result<UniqueFd> ListenUnix(const std::string& path, const UnixListenOptions& options = {});

// The longest path ListenUnix takes.
std::size_t MaxUnixListenPath();

}  // namespace corral
