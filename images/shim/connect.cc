// `corral-shim connect HOST PORT`: ssh's ProxyCommand. One CONNECT through
// the session's proxy, then stdin/stdout are the tunnel. The proxy decides:
// the git host answers, other hosts are refused with the proxy's reason.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "images/shim/relay.h"

namespace corral::shim {
namespace {

constexpr std::size_t kMaxHead = 16 * 1024;

// The proxy's answer head, and any tunnel bytes read past it.
bool ReadHead(int fd, std::string& head, std::string& rest) {
  char buffer[4096];
  while (head.size() < kMaxHead) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    head.append(buffer, static_cast<std::size_t>(n));
    if (auto end = head.find("\r\n\r\n"); end != std::string::npos) {
      rest = head.substr(end + 4);
      head.resize(end);
      return true;
    }
  }
  return false;
}

// "HTTP/1.1 403 Forbidden" plus the X-Corral-Error line, when there is one.
std::string Refusal(const std::string& head) {
  std::string text = head.substr(0, head.find("\r\n"));
  std::size_t at = 0;
  while ((at = head.find("\r\n", at)) != std::string::npos) {
    at += 2;
    std::string line = head.substr(at, head.find("\r\n", at) - at);
    if (strncasecmp(line.c_str(), "x-corral-error:", 15) == 0) text += " (" + line.substr(16) + ")";
  }
  return text;
}

}  // namespace

int Connect(int argc, char** argv) {
  if (argc != 2 || argv[0][0] == '\0' || argv[1][0] == '\0') {
    std::fprintf(stderr,
                 "usage: corral-shim connect HOST PORT\n"
                 "  a CONNECT tunnel through the session's proxy on stdin/stdout, for ssh:\n"
                 "  ssh -o ProxyCommand='/run/corral/bin/corral-shim connect %%h %%p' HOST\n");
    return 2;
  }
  std::string host = argv[0];
  char* end = nullptr;
  long port = std::strtol(argv[1], &end, 10);
  if (*end != '\0' || port <= 0 || port > 65535) {
    std::fprintf(stderr, "corral-shim connect: %s is not a port number\n", argv[1]);
    return 2;
  }
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
  std::string target = host + ":" + std::to_string(port);

  std::string socket_path = ProxySocketPath();
  int proxy = ConnectUnix(socket_path);
  if (proxy < 0) {
    std::fprintf(stderr, "corral-shim connect: the session's proxy (%s) cannot be reached: %s\n",
                 socket_path.c_str(), std::strerror(errno));
    return 1;
  }
  std::string request = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n";
  if (::write(proxy, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    std::fprintf(stderr, "corral-shim connect: cannot ask the proxy: %s\n", std::strerror(errno));
    return 1;
  }
  std::string head, rest;
  if (!ReadHead(proxy, head, rest)) {
    std::fprintf(stderr, "corral-shim connect: the proxy closed the connection to %s\n",
                 target.c_str());
    return 1;
  }
  if (head.compare(0, 9, "HTTP/1.1 ") != 0 && head.compare(0, 9, "HTTP/1.0 ") != 0) {
    std::fprintf(stderr, "corral-shim connect: unexpected answer from the proxy\n");
    return 1;
  }
  if (head.compare(9, 3, "200") != 0) {
    std::fprintf(stderr, "corral-shim connect: %s refused: %s\n", target.c_str(),
                 Refusal(head).c_str());
    return 1;
  }
  if (!rest.empty() && ::write(STDOUT_FILENO, rest.data(), rest.size()) < 0) return 1;
  Relay(STDIN_FILENO, STDOUT_FILENO, proxy, proxy);
  ::close(proxy);
  return 0;
}

int Forward(int argc, char** argv) {
  char* end = nullptr;
  long port = argc == 1 ? std::strtol(argv[0], &end, 10) : 0;
  if (argc != 1 || *end != '\0' || port <= 0 || port > 65535) {
    std::fprintf(stderr, "usage: corral-shim forward PORT\n"
                         "  a connection to 127.0.0.1:PORT in the box on stdin/stdout\n"
                         "  (corral run --publish starts one per connection)\n");
    return 2;
  }
  int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (server < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    std::fprintf(stderr, "corral-shim forward: nothing answers on the box's port %ld (%s)\n", port,
                 std::strerror(errno));
    return 1;
  }
  Relay(STDIN_FILENO, STDOUT_FILENO, server, server);
  ::close(server);
  return 0;
}

}  // namespace corral::shim
