#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "launcher/launcher.h"
#include "launcher/plan/plan.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

// The cache volumes of a plan, by the tool's folder in the box.
std::map<std::string, const Mount*> Caches(const SessionPlan& plan) {
  std::map<std::string, const Mount*> caches;
  for (const Mount& m : plan.mounts) {
    if (m.target.rfind(std::string(kCacheRootInBox) + "/", 0) == 0) caches[m.target] = &m;
  }
  return caches;
}

bool HasEnv(const SessionPlan& plan, const std::string& entry) {
  return std::find(plan.env.begin(), plan.env.end(), entry) != plan.env.end();
}

TEST(PackageCaches, SharedByDefaultOneVolumePerToolWithItsVariable) {
  TempTree tree;
  std::string one = tree.Dir("home/user/src/one");
  std::string two = tree.Dir("home/user/src/two");
  auto policy = TestPolicy();
  PlanInput first = TestInput(policy, tree, one);
  first.uid = 1000;
  PlanInput second = TestInput(policy, tree, two);
  second.uid = 1000;
  auto a = MakePlan(first);
  auto b = MakePlan(second);
  ASSERT_TRUE(a && b);
  auto caches = Caches(*a);
  ASSERT_EQ(caches.size(), CacheTools().size());
  const Mount* npm = caches["/var/cache/corral/npm"];
  ASSERT_NE(npm, nullptr);
  EXPECT_EQ(npm->kind, MountKind::kVolume);  // an engine volume, never a host folder
  EXPECT_FALSE(npm->read_only);
  EXPECT_EQ(npm->source, "corral-cache-npm-u1000");
  EXPECT_EQ(Caches(*b)["/var/cache/corral/npm"]->source, npm->source);  // the same for both
  EXPECT_TRUE(HasEnv(*a, "npm_config_cache=/var/cache/corral/npm"));
  EXPECT_TRUE(HasEnv(*a, "PIP_CACHE_DIR=/var/cache/corral/pip"));
  EXPECT_TRUE(HasEnv(*a, "CARGO_HOME=/var/cache/corral/cargo"));
  EXPECT_TRUE(HasEnv(*a, "GOMODCACHE=/var/cache/corral/go"));
  EXPECT_TRUE(HasEnv(*a, "GOCACHE=/var/cache/corral/go-build"));
  // With the exec gate, the shim gives each new volume to the agent's user.
  auto own = std::find(a->command.begin(), a->command.end(), "/var/cache/corral/pip");
  ASSERT_NE(own, a->command.end());
  EXPECT_EQ(*(own - 1), "--own");
}

TEST(PackageCaches, TwoUsersOfOneEngineDoNotShare) {
  TempTree tree;
  std::string one = tree.Dir("home/user/src/one");
  auto policy = TestPolicy();
  PlanInput input = TestInput(policy, tree, one);
  input.uid = 1001;
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan);
  EXPECT_EQ(Caches(*plan)["/var/cache/corral/pip"]->source, "corral-cache-pip-u1001");
}

TEST(PackageCaches, PerProjectModeGivesEachProjectItsOwn) {
  TempTree tree;
  std::string one = tree.Dir("home/user/src/one");
  std::string two = tree.Dir("home/user/src/two");
  auto policy = TestPolicy();
  policy.caches.shared = false;
  PlanInput first = TestInput(policy, tree, one);
  first.uid = 1000;
  PlanInput second = TestInput(policy, tree, two);
  second.uid = 1000;
  auto a = MakePlan(first);
  auto b = MakePlan(second);
  ASSERT_TRUE(a && b);
  std::string name_a = Caches(*a)["/var/cache/corral/npm"]->source;
  std::string name_b = Caches(*b)["/var/cache/corral/npm"]->source;
  EXPECT_NE(name_a, name_b);
  EXPECT_EQ(name_a, "corral-cache-npm-u1000-one-" + ShortHash(one));
}

TEST(PackageCaches, AFolderInOwnProjectsKeepsItsCachesAndItsProjectsToo) {
  TempTree tree;
  std::string client = tree.Dir("home/user/client");
  std::string inside = tree.Dir("home/user/client/app");
  std::string other = tree.Dir("home/user/src/other");
  auto policy = TestPolicy();
  policy.caches.own_projects = {client + "/"};
  auto in_it = MakePlan(TestInput(policy, tree, inside));
  auto elsewhere = MakePlan(TestInput(policy, tree, other));
  ASSERT_TRUE(in_it && elsewhere);
  EXPECT_NE(Caches(*in_it)["/var/cache/corral/go"]->source.find("-app-"), std::string::npos);
  EXPECT_EQ(Caches(*elsewhere)["/var/cache/corral/go"]->source,
            CacheVolumeName("go", elsewhere->uid, ""));
}

TEST(PackageCaches, NamesAreTakenApartAgain) {
  auto shared = ParseCacheVolume("corral-cache-go-build-u1000");
  ASSERT_TRUE(shared);
  EXPECT_EQ(shared->tool, "go-build");
  EXPECT_EQ(shared->uid, 1000u);
  EXPECT_EQ(shared->project, "");
  auto own = ParseCacheVolume(CacheVolumeName("go", 7, "/home/u/My App"));
  ASSERT_TRUE(own);
  EXPECT_EQ(own->tool, "go");
  EXPECT_EQ(own->uid, 7u);
  EXPECT_EQ(own->project, "my-app-" + ShortHash("/home/u/My App"));
  for (const char* other : {"corral-cache-", "corral-cache-npm", "corral-cache-npm-u",
                            "corral-cache-npm-ux", "corral-cache-npm-u1-", "corral-cache-ruby-u1",
                            "corral-app-1234-home"}) {
    EXPECT_FALSE(ParseCacheVolume(other)) << other;
  }
}

}  // namespace
}  // namespace corral::launcher
