// `corral relay`: the sidecar's half of the oracle channel (docs/network-mode.md).
// The shim's questions arrive on a unix socket in the session volume; each
// goes out on stdout as {"id":N,"request":...}, and the answer that comes
// back on stdin as {"id":N,"answer":...} goes to that connection. When stdin
// ends (corral's stream is gone), the socket goes too: the shim falls back.
// The watchdog socket beside it is held open by the box's shim; when the
// stream ends its connections close, and the shim ends the box, as it does
// when a local corral dies.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "launcher/launcher.h"
#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

constexpr std::size_t kMaxLine = (1 << 20) + 64 * 1024;  // the oracle's own bound

// base's WriteAll for a whole line.
bool WriteLine(int fd, const std::string& line) { return WriteAll(fd, line.data(), line.size()); }

struct Relay {
  int in = -1, out = -1;
  std::vector<UniqueFd> watched;               // the shims' watchdog connections
  std::uint64_t next_id = 1;
  std::map<int, std::string> reading;          // connection -> bytes so far
  std::map<std::uint64_t, UniqueFd> awaiting;  // question id -> its connection
  std::string from_corral;

  // One whole line from a connection: sent on as a question; false drops it.
  bool Ask(int fd, const std::string& line) {
    auto request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded()) return false;
    std::uint64_t id = next_id++;
    if (!WriteLine(out, nlohmann::json{{"id", id}, {"request", request}}.dump() + "\n"))
      return false;
    awaiting.emplace(id, UniqueFd(fd));
    return true;
  }

  void ReadConnection(int fd) {
    char buffer[65536];
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    std::string& text = reading[fd];
    if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
    std::size_t newline = text.find('\n');
    if (n > 0 && newline == std::string::npos && text.size() <= kMaxLine) return;
    std::string line = newline == std::string::npos ? "" : text.substr(0, newline);
    reading.erase(fd);
    if (line.empty() || !Ask(fd, line)) ::close(fd);
  }

  // Answers from corral, a line each; one for an unknown id is dropped.
  void Answer(const std::string& line) {
    auto message = nlohmann::json::parse(line, nullptr, false);
    if (!message.is_object() || !message["id"].is_number_unsigned()) return;
    auto it = awaiting.find(message["id"].get<std::uint64_t>());
    if (it == awaiting.end()) return;
    // No answer (corral could not ask its oracle): closed unanswered, so
    // the shim's fallback decides.
    if (message["answer"].is_object()) {
      (void)WriteLine(it->second.get(), message["answer"].dump() + "\n");
    }
    awaiting.erase(it);
  }

  // false when corral's side has ended.
  bool ReadCorral() {
    char buffer[65536];
    ssize_t n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n <= 0) return false;
    from_corral.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t newline; (newline = from_corral.find('\n')) != std::string::npos;) {
      Answer(from_corral.substr(0, newline));
      from_corral.erase(0, newline + 1);
    }
    return true;
  }
};

}  // namespace

Result<void> RunRelay(const RelaySockets& sockets, int in, int out) {
  // Nothing listens until corral says the copy landed: the shim waits for
  // these sockets before it runs the agent.
  std::string first;
  for (char c; first.size() <= 64;) {
    ssize_t n = ::read(in, &c, 1);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      pollfd waiting{in, POLLIN, 0};
      ::poll(&waiting, 1, -1);
      continue;
    }
    if (n <= 0) return Ok();  // corral is gone before it said so
    if (c == '\n') break;
    first += c;
  }
  if (first != kRelayListen) return Error("the relay expected " + std::string(kRelayListen));
  // The agent runs as another uid; reaching these sockets is their whole purpose.
  const UnixListenOptions open_to_the_agent{.mode = 0666, .backlog = 64, .nonblocking = true};
  auto listener = ListenUnix(sockets.oracle, open_to_the_agent);
  if (!listener) return listener.error().Context("the relay's oracle socket");
  UniqueFd watchdog;
  if (!sockets.watchdog.empty()) {
    auto listening = ListenUnix(sockets.watchdog, open_to_the_agent);
    if (!listening) return listening.error().Context("the relay's watchdog socket");
    watchdog = std::move(*listening);
  }
  ::signal(SIGPIPE, SIG_IGN);  // a shim that gave up, or corral gone: an error, not death
  Relay relay;
  relay.in = in;
  relay.out = out;
  // Both sockets listen: corral may start the box.
  if (!WriteLine(out, std::string(kRelayReady) + "\n")) return Error("corral's stream is gone");
  for (;;) {
    std::vector<pollfd> fds = {{listener->get(), POLLIN, 0}, {in, POLLIN, 0},
                               {watchdog.get(), POLLIN, 0}};
    for (const auto& [fd, text] : relay.reading) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    if (fds[1].revents && !relay.ReadCorral()) break;
    for (std::size_t i = 3; i < fds.size(); ++i) {
      if (fds[i].revents) relay.ReadConnection(fds[i].fd);
    }
    if (fds[0].revents) {
      int fd = ::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) relay.reading[fd];
    }
    if (fds[2].revents) {
      int fd = ::accept4(watchdog.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) relay.watched.emplace_back(fd);
    }
  }
  // corral is gone: no more answers. The waiting shims see EOF and fall back,
  // and the watchdogs' connections close with this process.
  ::unlink(sockets.oracle.c_str());
  if (!sockets.watchdog.empty()) ::unlink(sockets.watchdog.c_str());
  for (const auto& [fd, text] : relay.reading) ::close(fd);
  return Ok();
}

}  // namespace corral::launcher::network_mode

namespace corral::launcher {
Result<void> RunOracleRelay(const std::string& socket_path, const std::string& watchdog_path) {
  return network_mode::RunRelay({socket_path, watchdog_path}, STDIN_FILENO, STDOUT_FILENO);
}
}  // namespace corral::launcher
