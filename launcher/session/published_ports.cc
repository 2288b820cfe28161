// corral run --publish: corral listens on the host, and carries each
// connection it accepts to the box's port through `corral-shim forward
// PORT`, which the engine runs in the box (an exec per connection). The box
// has no network the engine could publish a port on, and the same way works
// where the engine is on another machine (the network mode).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "launcher/engine/engine.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

Result<UniqueFd> ListenOn(const PublishedPort& port) {
  bool v6 = port.host_address.find(':') != std::string::npos;
  UniqueFd fd(::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int on = 1;
  sockaddr_storage address{};
  socklen_t size = 0;
  if (v6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(static_cast<std::uint16_t>(port.host_port));
    ::inet_pton(AF_INET6, port.host_address.c_str(), &in6->sin6_addr);
    size = sizeof *in6;
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&address);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(static_cast<std::uint16_t>(port.host_port));
    ::inet_pton(AF_INET, port.host_address.c_str(), &in4->sin_addr);
    size = sizeof *in4;
  }
  if (!fd.valid() || ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::listen(fd.get(), 64) != 0) {
    std::string where = DescribePublishedPort(port);
    return Error::FromErrno("listen on " + where.substr(0, where.find(' ')) +
                            " for --publish (choose another host port)");
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<PublishedPorts>> PublishedPorts::Listen(
    const std::vector<PublishedPort>& ports) {
  auto published = std::unique_ptr<PublishedPorts>(new PublishedPorts());
  published->stop_.Reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!published->stop_.valid()) return Error::FromErrno("eventfd");
  for (const PublishedPort& port : ports) {
    auto fd = ListenOn(port);
    if (!fd) return fd.error();
    published->listeners_.emplace_back(port, std::move(*fd));
  }
  return published;
}

void PublishedPorts::Serve(Engine& engine, const std::string& container, const std::string& shim,
                           const std::string& user) {
  if (listeners_.empty()) return;
  accepting_ = std::thread([this, &engine, container, shim, user] {
    for (;;) {
      std::vector<pollfd> fds{{stop_.get(), POLLIN, 0}};
      for (const auto& listener : listeners_) fds.push_back({listener.second.get(), POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
      if (fds[0].revents) return;
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & POLLIN)) continue;
        int client = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        int box_port = listeners_[i - 1].first.box_port;
        std::lock_guard lock(mutex_);
        carrying_.emplace_back([this, &engine, container, shim, user, client, box_port] {
          Carry(engine, container, {shim, "forward", std::to_string(box_port)}, user,
                UniqueFd(client));
        });
      }
    }
  });
}

void PublishedPorts::Carry(Engine& engine, const std::string& container,
                           const std::vector<std::string>& forward, const std::string& user,
                           UniqueFd client) {
  auto stream = engine.ExecStream(container, forward, user);
  if (!stream) return;  // the client sees its connection close
  std::string frames;
  bool client_open = true;
  char buffer[32768];
  for (;;) {
    long n = stream->Recv(buffer, sizeof buffer);
    while (n > 0) {
      frames.append(buffer, static_cast<std::size_t>(n));
      bool sent = true;
      TakeFrames(frames, [&](int which, std::string_view data) {
        // SIGPIPE is ignored while a session runs (SignalPipe::Install).
        if (which == 1 && sent) sent = WriteAll(client.get(), data.data(), data.size());
      });
      if (!sent) return;
      n = stream->Recv(buffer, sizeof buffer);
    }
    if (n == 0 || n == -1) {  // the box's side ended
      ::shutdown(client.get(), SHUT_WR);
      return;
    }
    pollfd fds[3] = {{stream->fd(), POLLIN, 0}, {client_open ? client.get() : -1, POLLIN, 0},
                     {stop_.get(), POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0 && errno != EINTR) return;
    if (fds[2].revents) return;
    if (client_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t got = ::recv(client.get(), buffer, sizeof buffer, 0);
      if (got > 0) {
        if (!stream->Send(buffer, static_cast<std::size_t>(got))) return;
      } else if (got == 0 || errno != EINTR) {
        client_open = false;
        stream->CloseWrite();
      }
    }
  }
}

PublishedPorts::~PublishedPorts() {
  std::uint64_t one = 1;
  if (stop_.valid()) (void)!::write(stop_.get(), &one, sizeof one);
  if (accepting_.joinable()) accepting_.join();
  std::lock_guard lock(mutex_);
  for (std::thread& thread : carrying_) thread.join();
}

std::string PublishedLine(const std::vector<PublishedPort>& ports) {
  if (ports.empty()) return "";
  std::string line = "published: ";
  for (std::size_t i = 0; i < ports.size(); ++i) {
    line += (i ? ", " : "") + DescribePublishedPort(ports[i]);
  }
  return line + " (the host's address and port -> the box's 127.0.0.1 port)";
}

}  // namespace corral::launcher
