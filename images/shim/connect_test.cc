// `corral-shim connect`: against a stand-in proxy on a real unix socket.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "images/shim/relay.h"

namespace corral::shim {
namespace {

// Answers one connection with `reply` and keeps the request line it got.
class FakeProxy {
 public:
  explicit FakeProxy(std::string reply) : reply_(std::move(reply)) {
    char dir[] = "/tmp/corral-connect-XXXXXX";
    path_ = std::string(::mkdtemp(dir)) + "/proxy.sock";
    fd_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 1);
    thread_ = std::thread([this] {
      int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      char buffer[1024];
      ssize_t n = ::read(client, buffer, sizeof buffer);
      if (n > 0) request_.assign(buffer, static_cast<std::size_t>(n));
      (void)!::write(client, reply_.data(), reply_.size());
      ::close(client);
    });
  }
  ~FakeProxy() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string request() {
    thread_.join();
    thread_ = std::thread([] {});
    return request_;
  }

 private:
  std::string reply_, path_, request_;
  int fd_ = -1;
  std::thread thread_;
};

struct Outcome {
  int status = -1;
  std::string out;
};

// Runs Connect in a child with stdin empty and stdout captured.
Outcome RunConnect(const std::string& socket, std::vector<std::string> args) {
  int pipe_fds[2];
  EXPECT_EQ(::pipe(pipe_fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("CORRAL_PROXY_SOCKET", socket.c_str(), 1);
    int null = ::open("/dev/null", O_RDONLY);
    ::dup2(null, STDIN_FILENO);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::close(pipe_fds[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ::_exit(Connect(static_cast<int>(argv.size()), argv.data()));
  }
  ::close(pipe_fds[1]);
  Outcome outcome;
  char buffer[256];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) outcome.out.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

TEST(Connect, BadArgumentsAreAUsageError) {
  EXPECT_EQ(RunConnect("/nonexistent", {}).status, 2);
  EXPECT_EQ(RunConnect("/nonexistent", {"host"}).status, 2);
  EXPECT_EQ(RunConnect("/nonexistent", {"host", "22x"}).status, 2);
  EXPECT_EQ(RunConnect("/nonexistent", {"host", "70000"}).status, 2);
}

TEST(Connect, NoProxyIsAnError) {
  EXPECT_EQ(RunConnect("/nonexistent/proxy.sock", {"git.test", "22"}).status, 1);
}

TEST(Connect, TunnelBytesAfterTheAnswerReachStdout) {
  FakeProxy proxy("HTTP/1.1 200 Connection established\r\n\r\nSSH-2.0-test\r\n");
  Outcome outcome = RunConnect(proxy.path(), {"git.test", "22"});
  EXPECT_EQ(outcome.status, 0);
  EXPECT_EQ(outcome.out, "SSH-2.0-test\r\n");
  EXPECT_EQ(proxy.request(), "CONNECT git.test:22 HTTP/1.1\r\nHost: git.test:22\r\n\r\n");
}

TEST(Connect, ARefusalIsAnErrorAndNothingReachesStdout) {
  FakeProxy proxy("HTTP/1.1 403 Forbidden\r\nX-Corral-Error: not-allowed\r\n\r\nbody");
  Outcome outcome = RunConnect(proxy.path(), {"other.test", "22"});
  EXPECT_EQ(outcome.status, 1);
  EXPECT_EQ(outcome.out, "");
}

TEST(Connect, Ipv6HostsAreBracketed) {
  FakeProxy proxy("HTTP/1.1 403 Forbidden\r\n\r\n");
  RunConnect(proxy.path(), {"::1", "22"});
  EXPECT_EQ(proxy.request().rfind("CONNECT [::1]:22 HTTP/1.1\r\n", 0), 0u);
}

}  // namespace
}  // namespace corral::shim
