#include "images/shim/privileges.h"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace corral::shim {
namespace {

TEST(AgentUser, ParsesNumbersOnly) {
  auto user = ParseAgentUser("1000:100");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->uid, 1000u);
  EXPECT_EQ(user->gid, 100u);
  for (const char* bad : {"", "1000", "1000:", ":100", "alice:100", "1000:100:5", "-1:0"}) {
    EXPECT_FALSE(ParseAgentUser(bad)) << bad;
  }
}

TEST(AgentUser, OtherGroupsComeFromTheImagesGroupFile) {
  std::string passwd = "root:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n";
  std::string group =
      "root:x:0:\nalice:x:1000:\ndocker:x:998:bob,alice\nwheel:x:10:alicex\nsudo:x:27:alice\n";
  EXPECT_EQ(GroupsOf(1000, 1000, passwd, group), (std::vector<gid_t>{998, 27}));
  EXPECT_TRUE(GroupsOf(1234, 1234, passwd, group).empty()) << "not in passwd: no other groups";
}

// In a child: root becomes an ordinary user, keeps what it may need as
// permitted, puts it in effect for a mount, then drops everything; the
// mount that worked before fails after.
TEST(Privileges, BecomeRaiseAndDropForGood) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  pid_t child = ::fork();
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(10);
    AgentUser user{4242, 4242, {4243}};
    if (!BecomeAgentUser(user).empty()) _exit(11);
    if (::getuid() != 4242 || ::getgid() != 4242 || !HoldsCapabilities()) _exit(12);
    if (::prctl(PR_GET_DUMPABLE) != 1) _exit(13);
    if (::mount("none", "/tmp", "tmpfs", 0, nullptr) == 0) _exit(14);  // not in effect
    if (!RaiseKeptCapabilities().empty()) _exit(15);
    if (::mount("none", "/tmp", "tmpfs", 0, nullptr) != 0) _exit(16);
    if (!DropAllCapabilities().empty()) _exit(17);
    if (HoldsCapabilities()) _exit(18);
    if (::mount("none", "/tmp", "tmpfs", 0, nullptr) == 0) _exit(19);
    if (::setuid(0) == 0) _exit(20);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace corral::shim
