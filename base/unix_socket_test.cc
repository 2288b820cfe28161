#include "base/unix_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace corral {
namespace {

namespace fs = std::filesystem;

class UnixSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-unix-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static bool Connects(const std::string& path) {
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    return ::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }

  fs::path dir_;
};

TEST_F(UnixSocketTest, ListensWithTheModeAskedAndLeavesNoWorkingName) {
  std::string path = (dir_ / "a.sock").string();
  auto fd = ListenUnix(path, {.mode = 0640});
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_TRUE(Connects(path));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(UnixSocketTest, ReplacesAStaleSocket) {
  std::string path = (dir_ / "a.sock").string();
  { auto first = ListenUnix(path); ASSERT_TRUE(first.ok()); }  // closed: stale
  EXPECT_FALSE(Connects(path));
  auto second = ListenUnix(path);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(Connects(path));
}

TEST_F(UnixSocketTest, NeverReplacesAnotherKindOfFile) {
  std::string path = (dir_ / "notes.txt").string();
  std::ofstream(path) << "keep me";
  auto fd = ListenUnix(path);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.error().message.find("is not a socket"), std::string::npos);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "keep me");
}

TEST_F(UnixSocketTest, APathTooLongNamesTheLimit) {
  std::string path = (dir_ / std::string(MaxUnixListenPath(), 'x')).string();
  auto fd = ListenUnix(path);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.error().message.find(std::to_string(MaxUnixListenPath()) + " bytes"),
            std::string::npos);
  std::string longest = dir_.string() + "/";
  longest += std::string(MaxUnixListenPath() - longest.size(), 'y');
  EXPECT_TRUE(ListenUnix(longest).ok());
}

}  // namespace
}  // namespace corral
