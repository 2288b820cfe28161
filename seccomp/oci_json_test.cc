#include <gtest/gtest.h>

#include "seccomp/seccomp.h"

namespace corral::seccomp {
namespace {

using nlohmann::json;

TEST(OciJson, FlattenedWithoutEngineOnlyFields) {
  auto profile = BuildProfile({});
  ASSERT_TRUE(profile.ok());
  json oci = ToOci(*profile);
  EXPECT_EQ(oci["defaultAction"], "SCMP_ACT_ERRNO");
  EXPECT_EQ(oci["defaultErrnoRet"], 38);
  EXPECT_FALSE(oci.contains("archMap"));
  EXPECT_EQ(oci["architectures"].size(), 5u);
  for (const auto& syscall : oci["syscalls"]) {
    EXPECT_FALSE(syscall.contains("includes"));
    EXPECT_FALSE(syscall.contains("excludes"));
    EXPECT_FALSE(syscall["names"].empty());
  }
}

TEST(OciJson, RoundTripKeepsEveryVerdict) {
  policy::SeccompPolicy user;
  user.deny = {"getcwd"};
  auto profile = BuildProfile(user);
  ASSERT_TRUE(profile.ok());
  auto back = FromJson(ToOci(*profile));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(Diff(*profile, *back).empty());
  EXPECT_EQ(back->architectures, profile->architectures);
  // A whole config.json is read through linux.seccomp.
  auto config = FromJson({{"ociVersion", "1.0.2"}, {"linux", {{"seccomp", ToOci(*profile)}}}});
  ASSERT_TRUE(config.ok());
  EXPECT_TRUE(Diff(*profile, *config).empty());
}

TEST(OciJson, EngineFormApplyAsToABoxWithoutCapabilities) {
  json engine = json::parse(R"({
    "defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1,
    "archMap": [{"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86"]},
                {"architecture": "SCMP_ARCH_S390X", "subArchitectures": ["SCMP_ARCH_S390"]}],
    "syscalls": [
      {"names": ["read"], "action": "SCMP_ACT_ALLOW"},
      {"names": ["bpf"], "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
      {"names": ["chroot"], "action": "SCMP_ACT_ERRNO", "excludes": {"caps": ["CAP_SYS_CHROOT"]}},
      {"names": ["arch_prctl"], "action": "SCMP_ACT_ALLOW", "includes": {"arches": ["amd64"]}},
      {"names": ["s390_pci_mmio_read"], "action": "SCMP_ACT_ALLOW",
       "includes": {"arches": ["s390x"]}},
      {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
       "args": [{"index": 0, "value": 0, "op": "SCMP_CMP_EQ"},
                {"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]}
    ]})");
  auto profile = FromJson(engine);
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  EXPECT_EQ(profile->architectures, (std::vector<Arch>{Arch::kX86_64, Arch::kX86}));
  EXPECT_EQ(VerdictFor(*profile, "read").access, Access::kAllowed);
  EXPECT_EQ(VerdictFor(*profile, "bpf").detail, "errno EPERM (default)");
  EXPECT_EQ(VerdictFor(*profile, "chroot").detail, "errno EPERM");
  EXPECT_EQ(VerdictFor(*profile, "arch_prctl").access, Access::kAllowed);
  EXPECT_EQ(VerdictFor(*profile, "s390_pci_mmio_read").access, Access::kRefused);
  // Two conditions on one argument: OR, as runc and crun read them.
  EXPECT_EQ(VerdictFor(*profile, "personality").detail,
            "allow when arg0 == 0x0 or arg0 == 0x8");
}

TEST(OciJson, ClearErrors) {
  EXPECT_NE(FromJson(json::array()).error().message.find("defaultAction"), std::string::npos);
  auto bad = FromJson({{"defaultAction", "SCMP_ACT_NOTIFY"}});
  EXPECT_NE(bad.error().message.find("SCMP_ACT_NOTIFY"), std::string::npos);
  auto shape = FromJson({{"defaultAction", "SCMP_ACT_ALLOW"}, {"syscalls", {{{"names", 3}}}}});
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.error().message.find("syscalls[0]"), std::string::npos) << shape.error().message;
  auto missing = ReadProfileFile("/nonexistent/profile.json");
  EXPECT_NE(missing.error().message.find("cannot read /nonexistent/profile.json"),
            std::string::npos);
}

TEST(Diff, ListsWhatEachAllowsThatTheOtherRefuses) {
  Profile left, right;
  left.rules = {{{"read", "mount"}, Action::kAllow, 0, {}, ""}};
  right.rules = {{{"read", "ptrace"}, Action::kAllow, 0, {}, ""},
                 {{"clone"}, Action::kAllow, 0, {{0, Op::kEq, 1, 0}}, ""}};
  left.rules.push_back({{"clone"}, Action::kAllow, 0, {}, ""});
  ProfileDiff diff = Diff(left, right);
  ASSERT_EQ(diff.left_only.size(), 1u);
  EXPECT_EQ(diff.left_only[0].name, "mount");
  ASSERT_EQ(diff.right_only.size(), 1u);
  EXPECT_EQ(diff.right_only[0].name, "ptrace");
  ASSERT_EQ(diff.other_conditions.size(), 1u);
  EXPECT_EQ(diff.other_conditions[0].name, "clone");
  EXPECT_TRUE(Diff(left, left).empty());
}

}  // namespace
}  // namespace corral::seccomp
