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

#include <algorithm>
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

// Whether `profile` lets `name` run with these arguments: a matching rule
// that refuses wins over one that allows (as the rules are meant: disjoint,
// or refusals carved out of allowances), else the default action.
bool Allows(const Profile& profile, const std::string& name, const std::uint64_t (&args)[6]) {
  auto holds = [&](const ArgCondition& c) {
    std::uint64_t a = args[c.index];
    switch (c.op) {
      case Op::kNe: return a != c.value;
      case Op::kLt: return a < c.value;
      case Op::kLe: return a <= c.value;
      case Op::kEq: return a == c.value;
      case Op::kGe: return a >= c.value;
      case Op::kGt: return a > c.value;
      case Op::kMaskedEq: return (a & c.value) == c.value_two;
    }
    return false;
  };
  bool allowed = false, matched = false;
  for (const Rule& rule : profile.rules) {
    if (std::find(rule.names.begin(), rule.names.end(), name) == rule.names.end()) continue;
    if (!std::all_of(rule.args.begin(), rule.args.end(), holds)) continue;
    if (rule.action != Action::kAllow) return false;
    allowed = matched = true;
  }
  return matched ? allowed : profile.default_action == Action::kAllow;
}

// socket: our conditions differ in form from the engine's (we refuse vsock
// too), so compare what they allow: every family, the audit protocol and
// another, with and without junk in the upper halves.
void ExpectSocketSubset(const Profile& ours, const Profile& engine) {
  for (std::uint64_t upper : {0ULL, 1ULL << 32}) {
    for (std::uint64_t family = 0; family < 70; ++family) {
      for (std::uint64_t protocol : {0ULL, 9ULL, 9ULL | (1ULL << 32)}) {
        const std::uint64_t args[6] = {family | upper, 1, protocol, 0, 0, 0};
        if (Allows(ours, "socket", args)) {
          EXPECT_TRUE(Allows(engine, "socket", args))
              << "socket(" << std::hex << args[0] << ", 1, " << args[2]
              << ") is allowed by us but refused by the engine";
        }
      }
    }
  }
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
    if (d.name == "socket" && d.right.access == Access::kConditional) {
      ExpectSocketSubset(*ours, engine);
      continue;
    }
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
