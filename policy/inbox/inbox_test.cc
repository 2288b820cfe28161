#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "policy/inbox/inbox.h"

namespace corral::policy {
namespace {

class InboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / ("corral-inbox-" + std::to_string(::getpid())))
               .string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(InboxTest, TakeReturnsItemsAndClears) {
  ASSERT_TRUE(InboxAdd(dir_, {"2026-11-29T10:00:00Z", "s1", "/p", "claude", "aws s3 ls", "aws"}).ok());
  ASSERT_TRUE(InboxAdd(dir_, {"2026-11-29T10:01:00Z", "s1", "/p", "claude", "$X", ""}).ok());
  auto kept = InboxTake(dir_, /*keep=*/true);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 2u);
  EXPECT_EQ((*kept)[0].command, "aws s3 ls");
  EXPECT_EQ((*kept)[0].entry, "aws");
  EXPECT_EQ((*kept)[1].command, "$X");
  auto taken = InboxTake(dir_, /*keep=*/false);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->size(), 2u);
  EXPECT_TRUE(InboxTake(dir_, false)->empty());
}

TEST_F(InboxTest, TheRefusedCommandIsKeptBesideTheWholeText) {
  InboxItem item{"2026-11-29T10:00:00Z", "s1", "/p", "claude",
                 "source /h/.claude/shell-snapshots/s.sh && eval 'aws s3 ls' \\< /dev/null", "aws"};
  item.refused = "aws s3 ls";
  ASSERT_TRUE(InboxAdd(dir_, item).ok());
  ASSERT_TRUE(InboxAdd(dir_, {"2026-11-29T10:01:00Z", "s1", "/p", "claude", "$X", ""}).ok());
  auto taken = InboxTake(dir_, /*keep=*/false);
  ASSERT_TRUE(taken.ok());
  ASSERT_EQ(taken->size(), 2u);
  EXPECT_EQ((*taken)[0].refused, "aws s3 ls");
  EXPECT_EQ((*taken)[0].command, item.command);
  EXPECT_EQ((*taken)[1].refused, "");  // undetermined: only the whole text
}

TEST_F(InboxTest, ConcurrentWritersLoseNothing) {
  constexpr int kWriters = 4, kEach = 50;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < kEach; ++i) {
        std::string command(200 + i, 'x');  // long lines make tearing visible
        if (!InboxAdd(dir_, {"t", "s" + std::to_string(w), "/p", "a", command, "aws"}).ok()) {
          ::_exit(1);
        }
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto items = InboxTake(dir_, false);
  ASSERT_TRUE(items.ok());
  EXPECT_EQ(items->size(), static_cast<std::size_t>(kWriters * kEach));
}

}  // namespace
}  // namespace corral::policy
