#include "launcher/session/session.h"

#include <curl/curl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

namespace corral::launcher {
namespace {

constexpr int kQueueLimit = 100;  // beyond this, refusals are in the inbox only
constexpr auto kDrainLimit = std::chrono::seconds(5);

// notify-send, bounded: it is killed if it takes longer than two seconds.
void DesktopNotice(const policy::InboxItem& item) {
  const std::string& command = item.refused.empty() ? item.command : item.refused;
  std::string body = "`" + command.substr(0, 200) + "` in " + item.project +
                     " was refused while you were away. corral inbox shows it.";
  std::vector<std::string> args = {"notify-send", "--app-name=corral", "--expire-time=10000",
                                   "corral blocked a command", body};
  auto spawned = Spawn(args, {});
  if (!spawned) return;
  pid_t pid = *spawned;
  for (int i = 0; i < 40; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return;
    ::usleep(50 * 1000);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace

std::string WebhookBody(const policy::InboxItem& item) {
  nlohmann::json body = {{"event", "command_refused_while_away"},
                         {"time", item.time},
                         {"session", item.session},
                         {"project", item.project},
                         {"agent", item.agent},
                         {"command", item.command},
                         {"entry", item.entry.empty() ? nlohmann::json(nullptr)
                                                      : nlohmann::json(item.entry)},
                         {"refused", item.refused.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(item.refused)},
                         {"text", "corral blocked `" +
                                      (item.refused.empty() ? item.command : item.refused)
                                          .substr(0, 200) +
                                      "` in " +
                                      item.project + " while you were away: corral inbox"}};
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<void> PostWebhook(const std::string& url, const std::string& body, int tries,
                         int pause_ms, long timeout_ms) {
  std::string last;
  for (int attempt = 1; attempt <= tries; ++attempt) {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return Error("webhook: libcurl could not start");
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION,
                     +[](char*, size_t size, size_t count, void*) { return size * count; });
    CURLcode code = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (code == CURLE_OK && status >= 200 && status < 300) return Ok();
    last = code != CURLE_OK ? curl_easy_strerror(code) : "HTTP " + std::to_string(status);
    if (attempt < tries) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms * attempt));
  }
  return Error("webhook " + url + ": " + last + " after " + std::to_string(tries) + " tries");
}

Notifier::Notifier(policy::NotifyPolicy policy, bool desktop_available)
    : policy_(std::move(policy)), desktop_(policy_.desktop && desktop_available) {
  if (active()) thread_ = std::thread([this] { Loop(); });
}

Notifier::~Notifier() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Notifier::active() const { return desktop_ || !policy_.webhook_url.empty(); }

bool Notifier::DesktopAvailable() {
  bool display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
  return display && !FindInPath("notify-send").empty();
}

void Notifier::Add(const policy::InboxItem& item) {
  if (!active()) return;
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= kQueueLimit) return;
    queue_.push_back(item);
  }
  wake_.notify_one();
}

void Notifier::Loop() {
  std::unique_lock lock(mu_);
  std::chrono::steady_clock::time_point drain_until{};
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_ && drain_until == std::chrono::steady_clock::time_point{}) {
      drain_until = std::chrono::steady_clock::now() + kDrainLimit;
    }
    if (queue_.empty() || (stopping_ && std::chrono::steady_clock::now() > drain_until)) {
      if (stopping_) return;
      continue;
    }
    policy::InboxItem item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Send(item);
    lock.lock();
  }
}

void Notifier::Send(const policy::InboxItem& item) {
  if (desktop_) DesktopNotice(item);
  if (!policy_.webhook_url.empty()) {
    bool stopping = false;
    {
      std::lock_guard lock(mu_);
      stopping = stopping_;
    }
    // Three tries while the session runs; one quick one while it ends.
    auto sent = PostWebhook(policy_.webhook_url, WebhookBody(item), stopping ? 1 : 3, 1000,
                            stopping ? 2000 : 5000);
    if (!sent) log::warn(sent.error().message);
  }
}

}  // namespace corral::launcher
