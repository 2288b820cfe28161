#include "images/shim/watchdog.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace corral::shim {
namespace {

long NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ConnectOnce(const char* path) {
  if (path == nullptr || *path == '\0') {
    errno = ENOENT;
    return -1;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

}  // namespace

int AwaitWatchdog(const char* path, long wait_ms, const std::string& proxy_socket) {
  if (wait_ms <= 0) return ConnectOnce(path);
  const long until = NowMs() + wait_ms;
  useconds_t pause_us = 500;  // a sidecar starts in tenths of a second: ask often, then less
  auto wait_a_little = [&] {
    if (NowMs() >= until) return false;
    usleep(pause_us);
    pause_us = std::min<useconds_t>(pause_us * 2, 20000);
    return true;
  };
  int fd;
  while ((fd = ConnectOnce(path)) < 0) {
    // Not there yet (ENOENT: the link's target; ECONNREFUSED: bound, not
    // listening); anything else is an answer.
    if (errno != ENOENT && errno != ECONNREFUSED) return -1;
    if (!wait_a_little()) {
      errno = ETIMEDOUT;
      return -1;
    }
  }
  while (!proxy_socket.empty() && access(proxy_socket.c_str(), F_OK) != 0) {
    if (!wait_a_little()) {
      close(fd);
      errno = ETIMEDOUT;
      return -1;
    }
  }
  return fd;
}

}  // namespace corral::shim
