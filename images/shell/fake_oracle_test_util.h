// A one-shot oracle on a unix socket, for the shell front's tests.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "images/shell/shell.h"

inline std::string Text(const shell_buf& buf) {
  return buf.data ? std::string(buf.data, buf.len) : "";
}

// An oracle on a unix socket in a private folder.
class FakeOracle {
 public:
  FakeOracle() {
    dir_ = std::filesystem::temp_directory_path() /
           ("corral-shell-test-" + std::to_string(::getpid()) + "-" + std::to_string(next_++));
    std::filesystem::create_directories(dir_);
    socket_ = (dir_ / "oracle.sock").string();
  }
  ~FakeOracle() {
    if (thread_.joinable()) thread_.join();
    std::filesystem::remove_all(dir_);
  }
  // Answers `connections` requests with `reply`, sent in pieces of `piece`
  // bytes; stays silent (past the client's deadline) when `reply` is empty.
  void Serve(std::string reply, int connections = 1, std::size_t piece = 1 << 20) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::listen(fd, 8);
    thread_ = std::thread([this, fd, reply, connections, piece] {
      for (int i = 0; i < connections; ++i) {
        int client = ::accept(fd, nullptr, nullptr);
        std::string got;
        char buffer[4096];
        while (got.find('\n') == std::string::npos) {
          ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
          if (n <= 0) break;
          got.append(buffer, static_cast<std::size_t>(n));
        }
        requests_.push_back(got);
        if (reply.empty()) ::usleep(600'000);
        for (std::size_t at = 0; at < reply.size(); at += piece) {
          ::send(client, reply.data() + at, std::min(piece, reply.size() - at), MSG_NOSIGNAL);
          ::usleep(1000);
        }
        ::close(client);
      }
      ::close(fd);
    });
  }
  void Join() { thread_.join(); }
  const std::string& socket() const { return socket_; }
  const std::filesystem::path& dir() const { return dir_; }
  const std::vector<std::string>& requests() const { return requests_; }

 private:
  static inline int next_ = 0;
  std::filesystem::path dir_;
  std::string socket_;
  std::thread thread_;
  std::vector<std::string> requests_;
};
