// Asking the host: one JSON line to the oracle's socket, one line back,
// within the timeout; otherwise the local matcher over the session's list.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>

#include <nlohmann/json.hpp>

#include "images/shim/shell.h"
#include "policy/policy.h"

namespace corral::shim {
namespace {

long NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1'000'000;
}

bool WaitFor(int fd, short events, long deadline) {
  for (;;) {
    long left = deadline - NowMs();
    if (left <= 0) return false;
    pollfd pfd{fd, events, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    return ready > 0;
  }
}

// The oracle's reply line, or nothing when it could not be asked in time.
std::optional<std::string> Exchange(const ShellSettings& settings, const std::string& request) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (settings.oracle_socket.size() >= sizeof addr.sun_path) return std::nullopt;
  std::memcpy(addr.sun_path, settings.oracle_socket.c_str(), settings.oracle_socket.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return std::nullopt;
  long deadline = NowMs() + settings.timeout_ms;
  std::optional<std::string> reply;
  std::string received;
  std::string_view pending = request;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EAGAIN &&
      errno != EINPROGRESS) {
    ::close(fd);
    return std::nullopt;
  }
  while (!pending.empty() && WaitFor(fd, POLLOUT, deadline)) {
    ssize_t n = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    pending.remove_prefix(static_cast<std::size_t>(n));
  }
  char buffer[4096];
  while (pending.empty() && WaitFor(fd, POLLIN, deadline)) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
    if (auto nl = received.find('\n'); nl != std::string::npos) {
      reply = received.substr(0, nl);
      break;
    }
    if (received.size() > 65536) break;
  }
  ::close(fd);
  return reply;
}

ShellVerdict Fallback(const ShellSettings& settings, const std::string& command) {
  auto file = policy::ReadDenyListFile(settings.deny_list);
  // No session list to read: the built-in one.
  std::vector<std::string> entries = file ? std::move(*file) : policy::DefaultDenyList();
  auto matcher = policy::Matcher::Create(entries);
  if (!matcher) matcher = policy::Matcher::Create(policy::DefaultDenyList());
  auto match = matcher->Check(command);
  if (match.finding != policy::Finding::kListed) return {};
  return {false, "corral blocked this: `" + match.entry +
                     "` may not run while nobody is watching, and the host could not be asked "
                     "whether anybody is. Leave it for the user and tell them what it was for."};
}

}  // namespace

ShellSettings SettingsFromEnvironment() {
  ShellSettings settings;
  if (const char* s = std::getenv("CORRAL_ORACLE_SOCKET"); s && *s) settings.oracle_socket = s;
  if (const char* s = std::getenv("CORRAL_DENY_LIST_FILE"); s && *s) settings.deny_list = s;
  return settings;
}

ShellVerdict AskHost(const ShellSettings& settings, const std::string& shell,
                     const std::string& command, const std::string& cwd) {
  nlohmann::json request = {{"v", 1}, {"shell", shell}, {"command", command}, {"cwd", cwd}};
  auto reply = Exchange(
      settings, request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (!reply) return Fallback(settings, command);
  auto answer = nlohmann::json::parse(*reply, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object() || !answer.contains("decision")) return Fallback(settings, command);
  if (answer["decision"] == "allow") return {};
  std::string message = answer.value("message", "");
  if (message.empty()) message = "corral blocked this command.";
  return {false, message};
}

}  // namespace corral::shim
