#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <thread>

#include "launcher/engine/engine.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

// The descriptors of this process that an exec would hand on.
std::set<int> InheritableFds() {
  std::set<int> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = std::stoi(entry.path().filename().string());
    int flags = ::fcntl(fd, F_GETFD);
    if (fd > 2 && flags >= 0 && (flags & FD_CLOEXEC) == 0) fds.insert(fd);
  }
  return fds;
}

int SocketCount() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ++count;
  }
  return count;
}

// An engine's connection is kept open for the next request (libcurl's
// sockets, in the idle pool): close-on-exec, so that no program corral starts
// holds it (issue 27).
TEST(HttpRequest, TheConnectionItKeepsIsCloseOnExec) {
  testing::TempTree tree;
  std::string path = tree.root() + "/engine.sock";
  auto listener = ListenUnix(path);
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  UniqueFd served;
  std::thread server([&] {
    served = UniqueFd(::accept4(listener->get(), nullptr, nullptr, SOCK_CLOEXEC));
    std::string request;
    char buffer[1024];
    while (request.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = ::read(served.get(), buffer, sizeof buffer);
      if (n <= 0) return;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
    (void)!::write(served.get(), answer.data(), answer.size());
  });
  std::set<int> before = InheritableFds();
  int sockets_before = SocketCount();
  auto endpoint = ParseEndpoint("unix://" + path, "test");
  ASSERT_TRUE(endpoint.ok());
  auto response = HttpRequest(*endpoint, "GET", "/_ping", "", 5000);
  server.join();
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->body, "OK");
  // Kept: libcurl's end and the server's end are both still open here (and
  // libcurl's wakeup pair).
  EXPECT_GE(SocketCount(), sockets_before + 2);
  // None of the new ones would go through an exec (the ones this test was
  // started with may have been marked too).
  for (int fd : InheritableFds()) EXPECT_TRUE(before.count(fd)) << fd << " is inheritable";
}

}  // namespace
}  // namespace corral::launcher
