#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "launcher/session/session.h"
#include "launcher/test_util.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

unsigned Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(PrepareRuntimeDir, MakesAFolderOnlyTheUserCanEnter) {
  TempTree tree;
  std::string dir = tree.root() + "/xdg/corral";
  ASSERT_TRUE(PrepareRuntimeDir(dir));
  EXPECT_EQ(Mode(dir), 0700u);
  EXPECT_EQ(Mode(dir + "/sessions"), 0700u);
}

TEST(PrepareRuntimeDir, TightensTheUsersOwnFolder) {
  TempTree tree;
  std::string dir = tree.Dir("tmp/corral-1000");
  ::chmod(dir.c_str(), 0755);
  ASSERT_TRUE(PrepareRuntimeDir(dir));
  EXPECT_EQ(Mode(dir), 0700u);
}

TEST(PrepareRuntimeDir, RefusesALink) {
  TempTree tree;
  std::string dir = tree.root() + "/corral";
  ASSERT_EQ(::symlink(tree.Dir("elsewhere").c_str(), dir.c_str()), 0);
  auto ok = PrepareRuntimeDir(dir);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("is not a folder (a link or a file)"), std::string::npos)
      << ok.error().message;
}

// Without XDG_RUNTIME_DIR the folder is /tmp/corral-UID: another user could
// make it first, and then swap the oracle's socket for one of their own.
TEST(PrepareRuntimeDir, RefusesAFolderSomebodyElseMade) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root, to give the folder to another uid";
  TempTree tree;
  std::string dir = tree.Dir("tmp/corral-0");
  ASSERT_EQ(::chown(dir.c_str(), 4321, 4321), 0);
  ::chmod(dir.c_str(), 0777);
  auto ok = PrepareRuntimeDir(dir);
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().message.find("belongs to uid 4321, not to you"), std::string::npos)
      << ok.error().message;
  EXPECT_EQ(Mode(dir), 0777u) << "left as it was";
}

TEST(PrepareSessionDir, TheSessionFolderAndWatchdogAreTheUsersAlone) {
  TempTree tree;
  auto policy = TestPolicy();
  tree.File("p/.git/config", "");
  auto plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(PrepareSessionDir(*plan));
  EXPECT_EQ(Mode(plan->session_dir), 0700u) << "it holds the oracle's socket";
  auto watchdog = ListenWatchdog(plan->session_dir);
  ASSERT_TRUE(watchdog) << watchdog.error().message;
  EXPECT_EQ(Mode(plan->session_dir + "/watchdog.sock"), 0600u);
}

TEST(SessionDir, PutsTheShellFrontUnderEveryShellName) {
  TempTree tree;
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  ASSERT_TRUE(plan) << plan.error().message;
  plan->session_dir = tree.Dir("session");
  plan->seccomp_path = plan->session_dir + "/seccomp.json";
  ASSERT_TRUE(PrepareSessionDir(*plan));
  // Mount points for the two programs, and relative links that resolve in the box.
  EXPECT_TRUE(std::filesystem::is_regular_file(plan->session_dir + "/bin/corral-shell"));
  EXPECT_TRUE(std::filesystem::is_regular_file(plan->session_dir + "/bin/corral-shim"));
  for (const char* name : kShellNames) {
    EXPECT_EQ(std::filesystem::read_symlink(plan->session_dir + "/bin/" + name), "corral-shell")
        << name;
  }
  RemoveSessionDir(*plan);
  EXPECT_FALSE(std::filesystem::exists(plan->session_dir));
}

}  // namespace
}  // namespace corral::launcher
