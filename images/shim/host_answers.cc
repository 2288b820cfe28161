// The oracle seen from the exec check. Presence is asked on a thread of its
// own when the last answer is older than kFreshMs, so execs never wait for
// it; a listed exec waits for the oracle's verdict (docs/exec-check.md,
// "What happens": refused when the host cannot be asked, here within 10 s).
#include "images/shim/host_answers.h"

#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "images/shell/shell.h"

namespace corral::shim {
namespace {

constexpr long kFreshMs = 2000;  // how long "somebody is watching" is believed
constexpr int kPresenceTimeoutMs = 2000;
constexpr int kVerdictTimeoutMs = 10000;

long NowMs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

// One request line, one reply object; nullopt when the oracle could not be asked.
std::optional<nlohmann::json> Ask(const std::string& socket, const nlohmann::json& request,
                                  int timeout_ms) {
  std::string line = request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  shell_buf reply{};
  int asked = shell_ask(socket.c_str(), line.data(), line.size(), timeout_ms, &reply);
  std::string text = reply.data ? std::string(reply.data, reply.len) : "";
  shell_buf_free(&reply);
  if (asked != 0) return std::nullopt;
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  return json;
}

// A top-level field of the reply, when it has that type.
std::string Decision(const std::optional<nlohmann::json>& reply) {
  if (!reply || !reply->contains("decision") || !(*reply)["decision"].is_string()) return "";
  return (*reply)["decision"].get<std::string>();
}
bool SaysWatching(const std::optional<nlohmann::json>& reply) {
  return reply && reply->contains("watching") && (*reply)["watching"].is_boolean() &&
         (*reply)["watching"].get<bool>();
}

class OracleLink : public HostAnswers {
 public:
  explicit OracleLink(std::string socket) : socket_(std::move(socket)) {
    presence_ = std::thread([this] { AskPresenceWhenWanted(); });
    Want();
  }
  ~OracleLink() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_one();
    presence_.join();
  }

  bool Watching() override {
    long now = NowMs();
    if (now < watching_until_.load(std::memory_order_relaxed)) return true;
    if (now - asked_at_.load(std::memory_order_relaxed) >= kFreshMs) Want();
    return false;
  }

  bool Refuses(const ExecVerdict& verdict, std::string_view program,
               std::string_view cwd) override {
    nlohmann::json request = {{"v", 1},
                              {"shell", "exec"},
                              {"command", verdict.command},
                              {"cwd", std::string(cwd)},
                              {"program", std::string(program)}};
    std::string decision = Decision(Ask(socket_, request, kVerdictTimeoutMs));
    if (decision == "allow") return false;
    if (decision != "deny") {
      std::fprintf(stderr,
                   "corral-shim: refused `%s`: it is on the deny list and the host could not be "
                   "asked whether anybody is watching\n",
                   verdict.command.c_str());
    }
    return true;
  }

 private:
  void Want() {
    asked_at_.store(NowMs(), std::memory_order_relaxed);
    {
      std::lock_guard lock(mu_);
      wanted_ = true;
    }
    wake_.notify_one();
  }

  void AskPresenceWhenWanted() {
    std::unique_lock lock(mu_);
    for (;;) {
      wake_.wait(lock, [this] { return wanted_ || stopping_; });
      if (stopping_) return;
      wanted_ = false;
      lock.unlock();
      bool watching =
          SaysWatching(Ask(socket_, {{"v", 1}, {"ask", "watching"}}, kPresenceTimeoutMs));
      watching_until_.store(watching ? NowMs() + kFreshMs : 0, std::memory_order_relaxed);
      lock.lock();
    }
  }

  const std::string socket_;
  std::atomic<long> watching_until_{0};
  std::atomic<long> asked_at_{0};
  std::mutex mu_;
  std::condition_variable wake_;
  bool wanted_ = false, stopping_ = false;
  std::thread presence_;
};

}  // namespace

std::unique_ptr<HostAnswers> OracleAnswers(std::string socket_path) {
  return std::make_unique<OracleLink>(std::move(socket_path));
}

}  // namespace corral::shim
