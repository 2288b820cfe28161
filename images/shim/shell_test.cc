#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "images/shim/shell.h"

namespace corral::shim {
namespace {

using Kind = ShellCall::Kind;

ShellCall Parse(std::vector<std::string> args) { return ParseShellArgs(args); }

TEST(ShellArgsTest, FindsCommandTextInAnyFlagOrder) {
  EXPECT_EQ(Parse({"-c", "aws s3 ls"}).text, "aws s3 ls");
  EXPECT_EQ(Parse({"-lc", "aws s3 ls"}).text, "aws s3 ls");
  EXPECT_EQ(Parse({"-e", "-c", "x"}).text, "x");
  EXPECT_EQ(Parse({"-xec", "x"}).text, "x");
  EXPECT_EQ(Parse({"-o", "pipefail", "-c", "x"}).text, "x");
  EXPECT_EQ(Parse({"-c", "-e", "x"}).text, "x");  // bash takes the first operand
  EXPECT_EQ(Parse({"--norc", "--login", "-c", "x", "name", "arg"}).text, "x");
  EXPECT_EQ(Parse({"--rcfile", "f", "-c", "x"}).text, "x");
  EXPECT_EQ(Parse({"-c", "--", "x"}).text, "x");
  EXPECT_EQ(Parse({"+O", "extglob", "-c", "x"}).kind, Kind::kCommand);
  EXPECT_EQ(Parse({"-c"}).text, "");
}

TEST(ShellArgsTest, ScriptStdinAndInfo) {
  auto script = Parse({"-e", "deploy.sh", "prod"});
  EXPECT_EQ(script.kind, Kind::kScript);
  EXPECT_EQ(script.text, "deploy.sh");
  EXPECT_EQ(Parse({}).kind, Kind::kStdin);
  EXPECT_EQ(Parse({"-s", "arg"}).kind, Kind::kStdin);
  EXPECT_EQ(Parse({"-i"}).interactive, true);
  EXPECT_EQ(Parse({"--version"}).kind, Kind::kInfo);
  EXPECT_EQ(Parse({"--", "script.sh"}).kind, Kind::kScript);
}

TEST(ShellArgsTest, ShellNames) {
  EXPECT_TRUE(IsShellName("bash"));
  EXPECT_TRUE(IsShellName("/run/corral/bin/sh"));
  EXPECT_TRUE(IsShellName("-bash"));
  EXPECT_FALSE(IsShellName("corral-shim"));
  EXPECT_FALSE(IsShellName("bashful"));
}

class AskHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("corral-shim-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    settings_.oracle_socket = (dir_ / "oracle.sock").string();
    settings_.deny_list = (dir_ / "deny-list").string();
    settings_.timeout_ms = 300;
    std::ofstream(settings_.deny_list) << "# list\nkubectl\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A one-shot oracle that answers `reply` (or stays silent when empty).
  std::thread FakeOracle(std::string reply, std::string* seen) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, settings_.oracle_socket.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::listen(fd, 1);
    return std::thread([fd, reply, seen] {
      int client = ::accept(fd, nullptr, nullptr);
      char buffer[4096];
      ssize_t n = ::recv(client, buffer, sizeof buffer, 0);
      if (seen && n > 0) seen->assign(buffer, n);
      if (reply.empty()) {
        ::usleep(600'000);  // longer than the client's timeout
      } else {
        ::send(client, reply.data(), reply.size(), MSG_NOSIGNAL);
      }
      ::close(client);
      ::close(fd);
    });
  }

  std::filesystem::path dir_;
  ShellSettings settings_;
};

TEST_F(AskHostTest, FollowsTheOracle) {
  std::string seen;
  auto oracle = FakeOracle("{\"v\":1,\"decision\":\"deny\",\"message\":\"no\"}\n", &seen);
  auto verdict = AskHost(settings_, "bash", "aws s3 ls", "/p");
  oracle.join();
  EXPECT_FALSE(verdict.allowed);
  EXPECT_EQ(verdict.message, "no");
  auto request = nlohmann::json::parse(seen);
  EXPECT_EQ(request["v"], 1);
  EXPECT_EQ(request["shell"], "bash");
  EXPECT_EQ(request["command"], "aws s3 ls");
  EXPECT_EQ(request["cwd"], "/p");
}

TEST_F(AskHostTest, UnreachableHostRefusesOnlyListedCommands) {
  auto listed = AskHost(settings_, "sh", "kubectl get pods", "/p");  // no socket at all
  EXPECT_FALSE(listed.allowed);
  EXPECT_NE(listed.message.find("could not be asked"), std::string::npos);
  EXPECT_TRUE(AskHost(settings_, "sh", "aws s3 ls", "/p").allowed);  // not on this list
}

TEST_F(AskHostTest, SilentHostTimesOutToTheFallback) {
  auto oracle = FakeOracle("", nullptr);
  auto start = std::chrono::steady_clock::now();
  auto verdict = AskHost(settings_, "sh", "kubectl get pods", "/p");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  oracle.join();
  EXPECT_FALSE(verdict.allowed);
}

TEST(FindRealShellTest, NeverFindsItself) {
  std::string sh = FindRealShell("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_NE(std::filesystem::canonical(sh), std::filesystem::canonical("/proc/self/exe"));
  EXPECT_EQ(FindRealShell("no-such-shell-here"), "");
}

}  // namespace
}  // namespace corral::shim
