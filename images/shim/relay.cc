#include "images/shim/relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "base/base.h"

namespace corral::shim {
namespace {

constexpr std::size_t kBuffer = 64 * 1024;

// Ends the writing side: a socket is shut down for writing; a pipe (ssh's
// end of `connect`) is closed, which is how a pipe says "no more".
void EndOutput(int fd) {
  if (::shutdown(fd, SHUT_WR) != 0 && errno == ENOTSOCK) ::close(fd);
}

}  // namespace

void Relay(int in_a, int out_a, int in_b, int out_b) {
  char buffer[kBuffer];
  bool a_open = true, b_open = true;  // a → b, b → a still flowing
  while (a_open || b_open) {
    pollfd fds[2] = {{a_open ? in_a : -1, POLLIN, 0}, {b_open ? in_b : -1, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int from = i == 0 ? in_a : in_b;
      int to = i == 0 ? out_b : out_a;
      ssize_t n = ::read(from, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || !WriteAll(to, buffer, static_cast<std::size_t>(n))) {
        if (n > 0) return;  // the other side is gone for good
        EndOutput(to);
        (i == 0 ? a_open : b_open) = false;
      }
    }
  }
}

socklen_t AbstractAddress(std::string_view name, sockaddr_un& address) {
  address = {};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

int ConnectUnix(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int ListenLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 128) != 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

void StartBridge(int listener, const std::string& target) {
  std::thread([listener, target] {
    for (;;) {
      int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          ::usleep(50 * 1000);  // out of descriptors: let some close
          continue;
        }
        return;
      }
      std::thread([client, target] {
        int upstream = ConnectUnix(target);
        if (upstream >= 0) {
          Relay(client, client, upstream, upstream);
          ::close(upstream);
        }
        ::close(client);
      }).detach();
    }
  }).detach();
}

std::string ProxySocketPath() {
  const char* path = std::getenv("CORRAL_PROXY_SOCKET");
  return path && *path ? path : "/run/corral/proxy.sock";
}

}  // namespace corral::shim
