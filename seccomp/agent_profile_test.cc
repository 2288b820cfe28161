#include <gtest/gtest.h>

#include "seccomp/seccomp.h"

namespace corral::seccomp {
namespace {

policy::SeccompPolicy User(std::vector<std::string> allow, std::vector<std::string> deny = {},
                           bool allow_ptrace = false) {
  policy::SeccompPolicy user;
  user.allow = std::move(allow);
  user.deny = std::move(deny);
  user.allow_ptrace = allow_ptrace;
  return user;
}

Profile Build(policy::SeccompPolicy user = {}, Options options = {}) {
  auto profile = BuildProfile(user, options);
  EXPECT_TRUE(profile.ok()) << profile.error().message;
  return profile.ok() ? *profile : Profile{};
}

TEST(AgentProfile, RefusesWhatTheIssueLists) {
  Profile profile = Build();
  for (const char* name :
       {"userfaultfd", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "ptrace",
        "setns", "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
        "fsconfig", "fsmount", "fspick", "mount_setattr", "kexec_load", "kexec_file_load",
        "init_module", "finit_module", "delete_module", "open_by_handle_at", "name_to_handle_at",
        "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "iopl", "ioperm",
        "settimeofday", "clock_settime"}) {
    Verdict v = VerdictFor(profile, name);
    EXPECT_EQ(v.access, Access::kRefused) << name;
    EXPECT_EQ(v.detail, "errno EPERM") << name;
  }
  for (const char* name : {"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register"}) {
    EXPECT_EQ(VerdictFor(profile, name).detail, "errno ENOSYS") << name;
  }
  EXPECT_TRUE(profile.warnings.empty());
}

TEST(AgentProfile, LetsTheShimInstallTheExecCheck) {
  // The shim installs a filter with a listener (seccomp) and answers it
  // (ioctl); the supervisor reads the agent's processes through /proc.
  Profile profile = Build();
  for (const char* name :
       {"seccomp", "ioctl", "prctl", "pread64", "openat", "sendmsg", "recvmsg"}) {
    EXPECT_EQ(VerdictFor(profile, name).access, Access::kAllowed) << name;
  }
}

TEST(AgentProfile, ChecksArgumentsOfCloneUnsharePersonality) {
  Profile profile = Build();
  for (const char* name : {"clone", "unshare", "personality", "socket"}) {
    EXPECT_EQ(VerdictFor(profile, name).access, Access::kConditional) << name;
  }
  EXPECT_EQ(VerdictFor(profile, "clone").detail, "allow when arg0 & 0x7e020000 == 0x0");
  EXPECT_EQ(VerdictFor(profile, "unshare").detail, "allow when arg0 & 0x7e020080 == 0x0");
  // socket: every family but vsock (40); netlink (16) but not audit.
  std::string socket = VerdictFor(profile, "socket").detail;
  EXPECT_EQ(socket.find("0x28"), std::string::npos) << socket;
  EXPECT_NE(socket.find("arg0 & 0xffffffff == 0x10 and arg2 != 0x9"), std::string::npos) << socket;
  for (const char* name : {"read", "write", "execve", "futex", "openat", "arch_prctl"}) {
    EXPECT_EQ(VerdictFor(profile, name).access, Access::kAllowed) << name;
  }
}

TEST(AgentProfile, TheExecGateMayMountAndMakeAMountNamespaceOnly) {
  Profile profile = Build({}, {.exec_gate = true});
  EXPECT_EQ(VerdictFor(profile, "mount").access, Access::kAllowed);
  // CLONE_NEWNS (0x20000) no longer refused by unshare; every other flag is.
  EXPECT_EQ(VerdictFor(profile, "unshare").detail, "allow when arg0 & 0x7e000080 == 0x0");
  EXPECT_EQ(VerdictFor(profile, "clone").detail, "allow when arg0 & 0x7e020000 == 0x0");
  for (const char* name : {"umount2", "umount", "pivot_root", "move_mount", "open_tree", "fsopen",
                           "fsmount", "mount_setattr", "setns"}) {
    EXPECT_EQ(VerdictFor(profile, name).access, Access::kRefused) << name;
  }
  EXPECT_TRUE(profile.warnings.empty());
}

TEST(AgentProfile, AllowPtraceOpensThePtraceGroupWithAWarning) {
  Profile profile = Build(User({}, {}, true));
  EXPECT_EQ(VerdictFor(profile, "ptrace").access, Access::kAllowed);
  EXPECT_EQ(VerdictFor(profile, "process_vm_readv").access, Access::kAllowed);
  ASSERT_EQ(profile.warnings.size(), 1u);
  EXPECT_NE(profile.warnings[0].find("allow_ptrace"), std::string::npos);
}

TEST(AgentProfile, UserAllowAndDeny) {
  Profile profile = Build(User({"mount", "clone", "chroot"}, {"getcwd", "chroot"}));
  EXPECT_EQ(VerdictFor(profile, "mount").access, Access::kAllowed);
  EXPECT_EQ(VerdictFor(profile, "clone").access, Access::kAllowed);
  EXPECT_EQ(VerdictFor(profile, "getcwd").detail, "errno EPERM");
  EXPECT_EQ(VerdictFor(profile, "chroot").detail, "errno EPERM");  // deny wins
  EXPECT_EQ(profile.warnings.size(), 3u);  // mount, clone, chroot in both
}

TEST(AgentProfile, UnknownNameWarnsOrFailsWhenStrict) {
  Profile profile = Build(User({"getpidd"}));
  ASSERT_EQ(profile.warnings.size(), 1u);
  EXPECT_NE(profile.warnings[0].find("did you mean 'getpid'"), std::string::npos)
      << profile.warnings[0];
  auto strict = BuildProfile(User({"getpidd"}), {.strict = true});
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().message.find("seccomp.allow: 'getpidd'"), std::string::npos);
  auto bad = BuildProfile(User({}, {"rm -rf"}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not a system call name"), std::string::npos);
}

TEST(AgentProfile, EveryBuiltInNameIsKnownToThisLibseccomp) {
  EXPECT_TRUE(BuildProfile({}, {.strict = true}).ok());
}

TEST(AgentProfile, CompilesSmallAndToPfc) {
  Profile profile = Build();
  auto size = CompiledSize(profile);
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_GT(size->instructions, 100u);
  EXPECT_LT(size->instructions, 4096u);  // the kernel's limit per filter
  auto pfc = ToPfc(profile);
  ASSERT_TRUE(pfc.ok()) << pfc.error().message;
  EXPECT_NE(pfc->find("x86_64"), std::string::npos);
  EXPECT_NE(pfc->find("aarch64"), std::string::npos);
  std::string summary = Summary(profile);
  EXPECT_NE(summary.find("BPF instructions"), std::string::npos);
  EXPECT_NE(summary.find("clone: allow when"), std::string::npos);
}

}  // namespace
}  // namespace corral::seccomp
