// The oracle's socket: workers accept one request per connection, answer one
// JSON line, log the decision, and keep refusals for the inbox.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <thread>

#include "policy/oracle/oracle_request.h"
#include "policy/oracle/oracle_state.h"

namespace corral::policy {
namespace {

constexpr std::size_t kMaxRequest = (1 << 20) + 64 * 1024;  // a 1 MiB command and framing
constexpr int kIoTimeoutSeconds = 5;
constexpr std::size_t kMaxLoggedCommand = 16 * 1024;

bool WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Reads one line (without the newline), after what `line` already holds;
// false on timeout, EOF before any newline with no data, or a request over
// the size limit.
bool ReadLine(int fd, std::string& line) {
  if (auto newline = line.find('\n'); newline != std::string::npos) {
    line.resize(newline);
    return true;
  }
  char buffer[16384];
  for (;;) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return !line.empty();  // a client may close instead of sending '\n'
    line.append(buffer, static_cast<std::size_t>(n));
    if (auto newline = line.find('\n'); newline != std::string::npos) {
      line.resize(newline);
      return true;
    }
    if (line.size() > kMaxRequest) return false;
  }
}

// The whole request in one read, when it comes within kQuickMs: the usual
// case, a shell asking a short question right after connecting. Nothing is
// set on the socket for it (no timeouts: the wait is this poll's).
constexpr int kQuickMs = 2;
bool ReadQuickLine(int fd, std::string& line) {
  char buffer[16384];
  // Usually the request is there by the time this thread runs: no poll then.
  ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
  if (n < 0 && errno == EAGAIN) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, kQuickMs) != 1) return false;
    n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
  }
  if (n <= 0) return false;
  line.assign(buffer, static_cast<std::size_t>(n));
  auto newline = line.find('\n');
  if (newline == std::string::npos) return false;
  line.resize(newline);
  return true;
}

constexpr std::string_view kAllowReply = "{\"decision\":\"allow\",\"v\":1}\n";

std::string Reply(Decision decision, const std::string& message) {
  if (decision == Decision::kAllow) return std::string(kAllowReply);
  nlohmann::json reply = {{"v", 1}, {"decision", decision == Decision::kDeny ? "deny" : "allow"}};
  if (decision == Decision::kDeny) reply["message"] = message;
  return reply.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

class OracleServer : public Oracle {
 public:
  OracleServer(OracleOptions options, std::unique_ptr<OracleStateHolder> state, UniqueFd listener)
      : options_(std::move(options)), state_(std::move(state)), listener_(std::move(listener)) {
    for (int i = 0; i < std::max(1, options_.workers); ++i) {
      workers_.emplace_back([this] { AcceptLoop(); });
    }
  }
  ~OracleServer() override { Stop(); }

  void Stop() override {
    {
      std::lock_guard lock(role_mu_);
      if (stopping_.exchange(true)) return;
    }
    role_cv_.notify_all();                   // wakes the workers waiting for the role
    ::shutdown(listener_.get(), SHUT_RDWR);  // wakes the one in accept()
    for (auto& worker : workers_) worker.join();
    ::unlink(options_.socket_path.c_str());
  }

  OracleStats Stats() const override {
    return {allowed_.load(), refused_.load(), refused_while_away_.load()};
  }

 private:
  // One worker at a time holds the role of accepting, and answers what it
  // accepted itself while that is quick: the next question then finds the
  // same thread, warm, instead of waking another (accept() wakes waiting
  // threads in turn; that hand-off cost each question ~25 us of CPU). Before
  // anything that may wait long (a client slow to send, the presence
  // sources), the holder passes the role on, so the others keep being
  // answered as before.
  void AcceptLoop() {
    for (;;) {
      {
        std::unique_lock lock(role_mu_);
        role_cv_.wait(lock, [this] { return stopping_ || !role_held_; });
        if (stopping_) return;
        role_held_ = true;
      }
      holding_role_ = true;
      while (holding_role_ && !stopping_) {
        UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
        if (!client.valid()) {
          if (errno == EINTR || errno == ECONNABORTED) continue;
          if (stopping_) break;
          if (errno == EMFILE || errno == ENFILE) ::usleep(10'000);
          continue;
        }
        Serve(client.get());
      }
      PassRole();
    }
  }

  // Lets another worker accept; this one finishes its client, then waits
  // for the role again.
  void PassRole() {
    if (!holding_role_) return;
    holding_role_ = false;
    {
      std::lock_guard lock(role_mu_);
      role_held_ = false;
    }
    role_cv_.notify_one();
  }

  // From here on this client may be slow: hand the accepting on, and bound
  // each read and write by the I/O timeout.
  void GoSlow(int fd, bool& slow) {
    if (slow) return;
    slow = true;
    PassRole();
    timeval timeout{kIoTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  }

  bool Answer(int fd, std::string_view reply, bool& slow) {
    if (!slow) {  // a short reply to a fresh socket goes at once; else wait as before
      ssize_t n = ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n == static_cast<ssize_t>(reply.size())) return true;
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (n > 0) reply.remove_prefix(static_cast<std::size_t>(n));
      GoSlow(fd, slow);
    }
    return WriteAll(fd, reply);
  }

  bool Watching(int fd, bool& slow) {
    if (!options_.watching) return false;
    GoSlow(fd, slow);  // the presence sources may take their time
    return options_.watching();
  }

  void Serve(int fd) {
    std::string line;
    bool slow = false;
    if (!ReadQuickLine(fd, line)) {
      GoSlow(fd, slow);
      if (!ReadLine(fd, line)) return;  // the shim treats silence as "host not reachable"
    }
    OracleRequest request = ReadOracleRequest(line);
    if (request.kind == OracleRequest::Kind::kWatching) {
      // The shim's exec check: it lets execs pass while somebody watches.
      bool watching = Watching(fd, slow);
      Answer(fd, nlohmann::json({{"v", 1}, {"watching", watching}}).dump() + "\n", slow);
      return;
    }
    if (request.kind != OracleRequest::Kind::kCommand) {
      ++refused_;
      Answer(fd, Reply(Decision::kDeny,
                         "corral blocked this: the shim sent a request the host could not read "
                         "(expected {\"v\":1,\"command\":...}). Leave it for the user."),
             slow);
      return;
    }
    const std::string& command = request.command;
    auto state = state_->Current();
    bool asked = false, watching = false;
    auto ask_watching = [&] {
      asked = true;
      watching = Watching(fd, slow);
      return watching;
    };
    OracleAnswer answer;  // allowed, nothing found
    if (!state->clean.Contains(command)) {
      answer = DecideCommand(state->matcher, state->policy, command, ask_watching);
      if (answer.match.finding == Finding::kNone && !answer.match.dangerous) {
        state->clean.Add(command);
      }
    }
    Answer(fd, Reply(answer.decision, answer.message), slow);

    (answer.decision == Decision::kDeny ? refused_ : allowed_)++;
    Record(request, answer, asked, watching);
  }

  void Record(const OracleRequest& request, const OracleAnswer& answer, bool asked,
              bool watching) {
    const std::string& command = request.command;
    bool refused = answer.decision == Decision::kDeny;
    bool away = refused && asked && !watching;
    std::string time = options_.record || away ? UtcTime() : "";  // read only when written
    if (options_.record) {
      nlohmann::json words = nlohmann::json::array();
      for (const auto& word : answer.match.words) {
        words.push_back({{"text", word.text}, {"offset", word.offset}, {"length", word.length}});
      }
      ReasonText reason = ReasonFor(answer.match, {answer.decision, answer.message});
      nlohmann::json event = {
          {"v", 1},
          {"event", "command"},
          {"time", time},
          {"session", options_.session},
          {"shell", request.shell},
          {"program", request.program},
          {"cwd", request.cwd},
          {"command", command.size() > kMaxLoggedCommand
                          ? command.substr(0, kMaxLoggedCommand) + "…"
                          : command},
          {"decision", refused ? "deny" : "allow"},
          {"finding", answer.match.finding == Finding::kListed         ? "listed"
                      : answer.match.finding == Finding::kUndetermined ? "undetermined"
                                                                       : "none"},
          {"entry", answer.match.finding == Finding::kListed ? nlohmann::json(answer.match.entry)
                                                             : nlohmann::json(nullptr)},
          {"refused", answer.match.command.empty() ? nlohmann::json(nullptr)
                                                   : nlohmann::json(answer.match.command)},
          {"reason", std::string(reason.prefix) + std::string(reason.detail)},
          {"dangerous", answer.match.dangerous ? nlohmann::json(answer.match.dangerous->category)
                                               : nlohmann::json(nullptr)},
          {"words", std::move(words)},
          {"watching", asked ? nlohmann::json(watching) : nlohmann::json(nullptr)}};
      if (refused) event["message"] = answer.message;
      options_.record(event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    if (away) {
      ++refused_while_away_;
      InboxItem item;
      item.time = time;
      item.session = options_.session;
      item.project = options_.project;
      item.agent = options_.agent;
      item.command = command;
      item.entry = answer.match.entry;
      item.refused = answer.match.command;
      if (!options_.inbox_dir.empty()) {
        auto added = InboxAdd(options_.inbox_dir, item);
        if (!added) log::warn("cannot add to the inbox: " + added.error().message);
      }
      if (options_.on_refused_while_away) options_.on_refused_while_away(item);
    }
  }

  OracleOptions options_;
  std::unique_ptr<OracleStateHolder> state_;
  UniqueFd listener_;
  std::vector<std::thread> workers_;
  std::atomic<bool> stopping_{false};
  std::mutex role_mu_;
  std::condition_variable role_cv_;
  bool role_held_ = false;                     // a worker is accepting (role_mu_)
  static thread_local bool holding_role_;      // this worker is it
  std::atomic<std::uint64_t> allowed_{0}, refused_{0}, refused_while_away_{0};
};

thread_local bool OracleServer::holding_role_ = false;

}  // namespace

Result<std::unique_ptr<Oracle>> Oracle::Start(OracleOptions options) {
  auto state = OracleStateHolder::Create(options.policy_source, options.deny_list_copy,
                                         options.on_deny_list_copy);
  if (!state) return state.error().Context("starting the oracle");
  auto listener = ListenUnix(options.socket_path, {.mode = 0600, .backlog = 128});
  if (!listener) return listener.error().Context("starting the oracle");
  return std::unique_ptr<Oracle>(new OracleServer(std::move(options), std::move(*state),
                                                  std::move(*listener)));
}

}  // namespace corral::policy
