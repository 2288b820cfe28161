#include <gtest/gtest.h>

#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>

#include "policy/presence/presence_sources.h"

namespace corral::policy {
namespace {

using namespace std::chrono_literals;

const TimePoint kNow = std::chrono::system_clock::from_time_t(1'800'000'000);
Clock FixedClock() { return [] { return kNow; }; }

TEST(TtySourceTest, RecentInputOnAnyTerminalMeansWatching) {
  auto source = MakeTtySource(
      [] {
        return std::vector<Terminal>{{"/dev/pts/1", kNow - 3h}, {"/dev/pts/4", kNow - 90s}};
      },
      10min, FixedClock());
  auto report = source->Check();
  EXPECT_TRUE(report.watching);
  EXPECT_EQ(report.detail, "last input 1m30s ago on /dev/pts/4 (2 terminals)");
}

TEST(TtySourceTest, IdleTerminalsMeanAway) {
  auto source = MakeTtySource([] { return std::vector<Terminal>{{"/dev/tty1", kNow - 11min}}; },
                              10min, FixedClock());
  auto report = source->Check();
  EXPECT_FALSE(report.watching);
  EXPECT_EQ(report.detail, "last input 11m0s ago on /dev/tty1 (1 terminal)");
}

TEST(TtySourceTest, NoTerminalsMeansAway) {
  auto source = MakeTtySource([] { return std::vector<Terminal>{}; }, 10min, FixedClock());
  EXPECT_FALSE(source->Check().watching);
}

TEST(TtySourceTest, RealListerFindsOnlyOwnedCharacterDevices) {
  // Whatever this machine has, every entry must be a terminal device of ours.
  for (const Terminal& t : ListUserTerminals(::getuid())) {
    struct stat st {};
    ASSERT_EQ(::stat(t.device.c_str(), &st), 0) << t.device;
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << t.device;
    EXPECT_EQ(st.st_uid, ::getuid()) << t.device;
  }
}

// A fake loginctl: answers from a table of argv -> output.
CommandRunner FakeLoginctl(std::map<std::string, std::string> answers) {
  return [answers](const std::vector<std::string>& argv) -> Result<std::string> {
    std::string key;
    for (const auto& a : argv) key += (key.empty() ? "" : " ") + a;
    auto it = answers.find(key);
    if (it == answers.end()) return Error("loginctl exited with status 1");
    return it->second;
  };
}

constexpr const char* kShowUser = "loginctl show-user 1000 --property=Sessions --value";
std::string ShowSession(const std::string& id) {
  return "loginctl show-session " + id +
         " --property=Type --property=Active --property=IdleHint --property=LockedHint";
}

TEST(LogindSourceTest, ActiveUnlockedGraphicalSessionMeansWatching) {
  auto source = MakeLogindSource(
      FakeLoginctl({{kShowUser, "3 7\n"},
                    {ShowSession("3"), "Type=tty\nActive=yes\nIdleHint=no\nLockedHint=no\n"},
                    {ShowSession("7"), "Type=wayland\nActive=yes\nIdleHint=no\nLockedHint=no\n"}}),
      1000);
  auto report = source->Check();
  EXPECT_TRUE(report.watching);
  EXPECT_EQ(report.detail, "graphical session 7 is active, unlocked and not idle");
}

TEST(LogindSourceTest, LockedOrIdleMeansAway) {
  auto locked = MakeLogindSource(
      FakeLoginctl({{kShowUser, "7\n"},
                    {ShowSession("7"), "Type=x11\nActive=yes\nIdleHint=no\nLockedHint=yes\n"}}),
      1000);
  EXPECT_FALSE(locked->Check().watching);
  EXPECT_EQ(locked->Check().detail, "graphical session 7 is locked");
  auto idle = MakeLogindSource(
      FakeLoginctl({{kShowUser, "7\n"},
                    {ShowSession("7"), "Type=x11\nActive=yes\nIdleHint=yes\nLockedHint=no\n"}}),
      1000);
  EXPECT_FALSE(idle->Check().watching);
}

TEST(LogindSourceTest, NoLogindMeansAway) {
  auto source = MakeLogindSource(FakeLoginctl({}), 1000);
  auto report = source->Check();
  EXPECT_FALSE(report.watching);
  EXPECT_NE(report.detail.find("no answer from logind"), std::string::npos);
}

class HeartbeatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("corral-heartbeat-" + std::to_string(::getpid()));
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void TouchAt(TimePoint when) {
    std::ofstream(path_.string()) << "";
    utimbuf times{std::chrono::system_clock::to_time_t(when),
                  std::chrono::system_clock::to_time_t(when)};
    ASSERT_EQ(::utime(path_.c_str(), &times), 0);
  }
  std::filesystem::path path_;
};

TEST_F(HeartbeatTest, RecentTouchMeansWatching) {
  auto source = MakeHeartbeatSource(path_.string(), 10min, FixedClock());
  EXPECT_FALSE(source->Check().watching);  // not there yet
  TouchAt(kNow - 2min);
  EXPECT_TRUE(source->Check().watching);
  TouchAt(kNow - 15min);
  EXPECT_FALSE(source->Check().watching);
}

TEST_F(HeartbeatTest, PingCreatesTheFile) {
  PresencePolicy policy;
  policy.heartbeat_file = (path_ / "nested" / "beat").string();
  ASSERT_TRUE(TouchHeartbeat(policy).ok());
  auto source = MakeHeartbeatSource(policy.heartbeat_file, 10min,
                                    [] { return std::chrono::system_clock::now(); });
  EXPECT_TRUE(source->Check().watching);
  std::filesystem::remove_all(path_);
}

TEST(PresenceTest, NoSourcesMeansNobodyWatching) {
  std::vector<std::unique_ptr<PresenceSource>> none;
  EXPECT_FALSE(CheckPresence(none).watching);
}

TEST(PresenceTest, AnySourceSuffices) {
  std::vector<std::unique_ptr<PresenceSource>> sources;
  sources.push_back(MakeTtySource([] { return std::vector<Terminal>{}; }, 10min, FixedClock()));
  sources.push_back(MakeTtySource([] { return std::vector<Terminal>{{"/dev/pts/0", kNow}}; },
                                  10min, FixedClock()));
  auto verdict = CheckPresence(sources);
  EXPECT_TRUE(verdict.watching);
  ASSERT_EQ(verdict.reports.size(), 2u);
  EXPECT_FALSE(verdict.reports[0].watching);
}

TEST(PresenceTest, UnknownSourceIsAnError) {
  PresencePolicy policy;
  policy.sources = {"tty", "webcam"};
  EXPECT_FALSE(MakePresenceSources(policy).ok());
}

}  // namespace
}  // namespace corral::policy
