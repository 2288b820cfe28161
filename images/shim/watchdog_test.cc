// AwaitWatchdog against real unix sockets that appear late, or never.
#include "images/shim/watchdog.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace corral::shim {
namespace {

using Clock = std::chrono::steady_clock;

long MsSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

class WatchdogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/corral-watchdog-XXXXXX";
    dir_ = ::mkdtemp(dir);
    // As in the session volume: the shim's path is a link to the relay's socket.
    link_ = dir_ + "/watchdog.sock";
    target_ = dir_ + "/relay-watchdog.sock";
    ASSERT_EQ(::symlink(target_.c_str(), link_.c_str()), 0);
  }
  void TearDown() override {
    if (listener_ >= 0) ::close(listener_);
    (void)std::system(("rm -rf " + dir_).c_str());
  }
  void Listen() {
    listener_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, target_.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(listener_, 4), 0);
  }
  std::string dir_, link_, target_;
  int listener_ = -1;
};

TEST_F(WatchdogTest, WithoutWaitingNoWatchdogIsENOENT) {
  errno = 0;
  EXPECT_EQ(AwaitWatchdog(link_.c_str(), 0, ""), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(AwaitWatchdog(nullptr, 0, ""), -1);
  EXPECT_EQ(errno, ENOENT);
}

TEST_F(WatchdogTest, WaitingForAWatchdogThatNeverComesTimesOut) {
  auto start = Clock::now();
  errno = 0;
  EXPECT_EQ(AwaitWatchdog(link_.c_str(), 150, ""), -1);
  EXPECT_EQ(errno, ETIMEDOUT);  // not ENOENT: the caller must not run without it
  EXPECT_GE(MsSince(start), 150);
  EXPECT_LT(MsSince(start), 2000);
}

TEST_F(WatchdogTest, AWatchdogThatComesLateIsConnected) {
  std::thread late([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    Listen();
  });
  auto start = Clock::now();
  int fd = AwaitWatchdog(link_.c_str(), 5000, "");
  late.join();
  ASSERT_GE(fd, 0) << std::strerror(errno);
  EXPECT_GE(MsSince(start), 100);
  EXPECT_LT(MsSince(start), 1000);  // asked often, not once a second
  ::close(fd);
}

TEST_F(WatchdogTest, TheProxySocketIsWaitedForToo) {
  Listen();
  const std::string proxy = dir_ + "/proxy.sock";
  errno = 0;
  EXPECT_EQ(AwaitWatchdog(link_.c_str(), 100, proxy), -1);
  EXPECT_EQ(errno, ETIMEDOUT);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    std::ofstream(proxy) << "";
  });
  int fd = AwaitWatchdog(link_.c_str(), 5000, proxy);
  late.join();
  ASSERT_GE(fd, 0) << std::strerror(errno);
  ::close(fd);
}

TEST_F(WatchdogTest, AnotherErrorIsNotWaitedOut) {
  // A file where a folder should be (ENOTDIR) will not mend itself.
  const std::string file = dir_ + "/file";
  std::ofstream(file) << "";
  auto start = Clock::now();
  EXPECT_EQ(AwaitWatchdog((file + "/watchdog.sock").c_str(), 5000, ""), -1);
  EXPECT_EQ(errno, ENOTDIR);
  EXPECT_LT(MsSince(start), 1000);
}

}  // namespace
}  // namespace corral::shim
