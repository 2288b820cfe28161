// What a child process starts with: 0, 1, 2 and what it is handed on purpose,
// never the engine connections, pipes and sockets of the process that made it
// (a child holding corral's engine socket can talk to the engine as corral).
#pragma once

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <initializer_list>

namespace corral {

// For a child between fork and exec: closes every descriptor from 3 up but
// those in `keep`. Async-signal-safe (no allocation), so it is safe after
// fork in a process with threads. close_range closes each gap at once; where
// the kernel has none (before 5.9) or a filter refuses it, one close per
// descriptor up to the descriptor limit.
inline void CloseInheritedDescriptors(std::initializer_list<int> keep = {}) {
  constexpr int kMaxKeep = 8;
  int kept[kMaxKeep];
  int count = 0;
  for (int fd : keep) {  // kept in order, as they are few
    if (fd <= 2 || count == kMaxKeep) continue;
    int at = count++;
    for (; at > 0 && kept[at - 1] > fd; --at) kept[at] = kept[at - 1];
    kept[at] = fd;
  }
  unsigned int from = 3;
  bool ranged = true;
  for (int i = 0; i <= count && ranged; ++i) {
    unsigned int to = i < count ? static_cast<unsigned int>(kept[i]) : ~0U;
    if (to > from) ranged = ::syscall(SYS_close_range, from, to - 1, 0) == 0;
    if (i < count) from = static_cast<unsigned int>(kept[i]) + 1;
  }
  if (ranged) return;
  rlimit limit{};
  int last = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < (1u << 20)
                 ? static_cast<int>(limit.rlim_cur)
                 : (1 << 20);
  for (int fd = 3; fd < last; ++fd) {
    if (std::find(kept, kept + count, fd) == kept + count) ::close(fd);
  }
}

}  // namespace corral
