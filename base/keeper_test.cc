#include "base/keeper.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace corral {
namespace {

// A pipe the keeper reports on: what it learnt from its parent, and how it
// was started.
class KeeperTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::pipe2(report_, O_CLOEXEC), 0); }
  void TearDown() override {
    ::close(report_[0]);
    ::close(report_[1]);
  }

  Keeper StartReporting() {
    int out = report_[1];
    auto keeper = Keeper::Start(
        {SIGHUP},
        [out](int done) {
          struct sigaction hup {};
          ::sigaction(SIGHUP, nullptr, &hup);
          std::string report = std::string(::getsid(0) == ::getpid() ? "own-session " : "") +
                               (hup.sa_handler == SIG_IGN ? "hup-ignored " : "") +
                               (ParentDone(done) ? "done" : "died");
          (void)!::write(out, report.data(), report.size());
          ::_exit(0);
        },
        "cannot start the keeper");
    EXPECT_TRUE(keeper.ok()) << keeper.error().message;
    return std::move(*keeper);
  }

  std::string Report() {
    ::close(report_[1]);
    report_[1] = -1;
    std::string text;
    char buffer[256];
    for (ssize_t n; (n = ::read(report_[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    return text;
  }

  int report_[2] = {-1, -1};
};

TEST_F(KeeperTest, LearnsThatTheParentIsDone) {
  Keeper keeper = StartReporting();
  EXPECT_TRUE(keeper.running());
  keeper.Done();
  keeper.Wait();
  EXPECT_FALSE(keeper.running());
  EXPECT_EQ(Report(), "own-session hup-ignored done");
}

TEST_F(KeeperTest, TakesADroppedPipeForTheParentsDeath) {
  { Keeper keeper = StartReporting(); }  // never Done: as after SIGKILL
  EXPECT_EQ(Report(), "own-session hup-ignored died");
}

TEST_F(KeeperTest, EndedSaysOnceThatTheKeeperIsGone) {
  Keeper keeper = StartReporting();
  EXPECT_FALSE(keeper.Ended());
  keeper.Done();
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!keeper.Ended() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(keeper.running());
  EXPECT_FALSE(keeper.Ended());
  EXPECT_EQ(Report(), "own-session hup-ignored done");
}

TEST_F(KeeperTest, AMovedKeeperIsOne) {
  Keeper first = StartReporting();
  Keeper second = std::move(first);
  EXPECT_FALSE(first.running());  // NOLINT: a moved-from keeper is empty
  second.Done();
  second.Wait();
  EXPECT_EQ(Report(), "own-session hup-ignored done");
}

}  // namespace
}  // namespace corral
