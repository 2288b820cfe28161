// Our profile against the engine default installed on this machine (Podman's,
// /usr/share/containers/seccomp.json, from scripts/packages/seccomp.txt):
// nothing the engine refuses is opened up.
//
// How conditional rules count: the engine profile is read as it applies to
// the box, which has no capabilities (a rule for capability holders never
// applies; one for those without always does), on x86 and Arm (rules for
// other architectures dropped). A name we allow only with some arguments is
// fine where the engine allows it outright, or with the same conditions.
// Both sides are compared by name across the two architecture families,
// which is what the flattened OCI format can express.
#include <gtest/gtest.h>

#include <filesystem>

#include "seccomp/seccomp.h"

namespace corral::seccomp {
namespace {

constexpr const char* kEngineDefault = "/usr/share/containers/seccomp.json";

Profile Engine() {
  EXPECT_TRUE(std::filesystem::exists(kEngineDefault))
      << kEngineDefault << " is missing: run scripts/setup (golang-github-containers-common)";
  auto engine = ReadProfileFile(kEngineDefault);
  EXPECT_TRUE(engine.ok()) << engine.error().message;
  return engine.ok() ? *engine : Profile{};
}

void ExpectSubsetOfEngine(const policy::SeccompPolicy& user) {
  auto ours = BuildProfile(user);
  ASSERT_TRUE(ours.ok()) << ours.error().message;
  Profile engine = Engine();
  ASSERT_FALSE(engine.rules.empty());
  ProfileDiff diff = Diff(*ours, engine);
  for (const auto& d : diff.left_only) {
    ADD_FAILURE() << d.name << " is allowed by us (" << d.left.detail
                  << ") but refused by the engine (" << d.right.detail << ")";
  }
  for (const auto& d : diff.other_conditions) {
    EXPECT_EQ(d.right.access, Access::kAllowed)
        << d.name << ": ours " << d.left.detail << "; engine " << d.right.detail;
    EXPECT_EQ(d.left.access, Access::kConditional) << d.name;
  }
}

TEST(EngineSubset, DefaultProfileOpensNothingTheEngineRefuses) { ExpectSubsetOfEngine({}); }

TEST(EngineSubset, AllowPtraceStillASubset) {
  policy::SeccompPolicy user;
  user.allow_ptrace = true;
  ExpectSubsetOfEngine(user);
}

// Podman allows these outright (for nested containers); the box must not.
TEST(EngineSubset, WhatPodmanAllowsForNestedContainersIsRefusedHere) {
  auto ours = BuildProfile({});
  ASSERT_TRUE(ours.ok());
  Profile engine = Engine();
  for (const char* name : {"unshare", "mount", "setns", "keyctl", "ptrace", "clone3"}) {
    EXPECT_EQ(VerdictFor(engine, name).access, Access::kAllowed) << name;
    EXPECT_NE(VerdictFor(*ours, name).access, Access::kAllowed) << name;
  }
}

// The engine profile compiles through our model too (the bench uses it).
TEST(EngineSubset, EngineDefaultCompiles) {
  auto size = CompiledSize(Engine());
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_GT(size->instructions, 100u);
}

}  // namespace
}  // namespace corral::seccomp
