#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// A tiny HTTP server on loopback: answers each request with the next status
// in `statuses` (the last one repeats) and keeps the bodies it got.
class WebhookServer {
 public:
  explicit WebhookServer(std::vector<int> statuses) : statuses_(std::move(statuses)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 8);
    thread_ = std::thread([this] { Serve(); });
  }
  ~WebhookServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<std::string> bodies() {
    std::lock_guard lock(mu_);
    return bodies_;
  }

 private:
  void Serve() {
    for (std::size_t n = 0;; ++n) {
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string request;
      char buffer[4096];
      std::size_t need = std::string::npos;
      while (need == std::string::npos || request.size() < need) {
        ssize_t got = ::read(client, buffer, sizeof buffer);
        if (got <= 0) break;
        request.append(buffer, static_cast<std::size_t>(got));
        auto head_end = request.find("\r\n\r\n");
        if (head_end != std::string::npos && need == std::string::npos) {
          auto cl = request.find("Content-Length: ");
          need = head_end + 4 + (cl == std::string::npos ? 0 : std::stoul(request.substr(cl + 16)));
        }
      }
      {
        std::lock_guard lock(mu_);
        auto head_end = request.find("\r\n\r\n");
        bodies_.push_back(head_end == std::string::npos ? "" : request.substr(head_end + 4));
        if (request.find("Content-Type: application/json") == std::string::npos) {
          bodies_.back() = "missing content type";
        }
      }
      int status = statuses_[std::min(n, statuses_.size() - 1)];
      std::string reply = "HTTP/1.1 " + std::to_string(status) +
                          " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)!::write(client, reply.data(), reply.size());
      ::close(client);
    }
  }
  std::vector<int> statuses_;
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
};

policy::InboxItem Item() {
  return {"2026-11-29T10:00:00.000Z", "abc123", "/src/app", "claude", "aws s3 ls", "aws"};
}

TEST(Webhook, BodyNamesTheRefusal) {
  auto body = nlohmann::json::parse(WebhookBody(Item()));
  EXPECT_EQ(body["event"], "command_refused_while_away");
  EXPECT_EQ(body["command"], "aws s3 ls");
  EXPECT_EQ(body["entry"], "aws");
  EXPECT_EQ(body["project"], "/src/app");
  EXPECT_NE(body["text"].get<std::string>().find("corral inbox"), std::string::npos);
}

TEST(Webhook, RetriesUntilTheServerTakesIt) {
  WebhookServer server({503, 500, 204});
  auto sent = PostWebhook(server.url(), WebhookBody(Item()), 3, 10, 2000);
  ASSERT_TRUE(sent) << sent.error().message;
  auto bodies = server.bodies();
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(bodies[2])["command"], "aws s3 ls");
}

TEST(Webhook, GivesUpAfterItsTriesAndSaysWhy) {
  WebhookServer server({500});
  auto sent = PostWebhook(server.url(), "{}", 2, 10, 2000);
  ASSERT_FALSE(sent);
  EXPECT_NE(sent.error().message.find("HTTP 500 after 2 tries"), std::string::npos);
  EXPECT_EQ(server.bodies().size(), 2u);
}

TEST(Notifier, AddNeverWaitsForTheWebhook) {
  WebhookServer server({503, 200});
  {
    Notifier notifier({/*desktop=*/false, server.url()}, false);
    ASSERT_TRUE(notifier.active());
    auto start = std::chrono::steady_clock::now();
    notifier.Add(Item());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
    for (int i = 0; i < 100 && server.bodies().size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_EQ(server.bodies().size(), 2u);  // one refused (503), one retry taken
}

TEST(Notifier, NothingConfiguredMeansNothingRuns) {
  Notifier notifier({/*desktop=*/true, ""}, /*desktop_available=*/false);
  EXPECT_FALSE(notifier.active());
  notifier.Add(Item());
}

}  // namespace
}  // namespace corral::launcher
