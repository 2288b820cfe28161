#include "launcher/engine/engine.h"

#include <gtest/gtest.h>

#include <map>

#include "launcher/engine/expect.h"
#include "launcher/test_util.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

using nlohmann::json;
using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

std::function<const char*(const char*)> Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

std::vector<std::string> Urls(const EngineChoice& choice) {
  std::vector<std::string> urls;
  for (const auto& e : choice.candidates) urls.push_back(e.url);
  return urls;
}

TEST(ChooseEndpoints, NamedOneIsTheOnlyOne) {
  auto choice = ChooseEndpoints("", "unix:///a.sock", Env({{"DOCKER_HOST", "unix:///b.sock"}}));
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_TRUE(choice->named);
  EXPECT_EQ(Urls(*choice), std::vector<std::string>{"unix:///a.sock"});
}

TEST(ChooseEndpoints, UsualSocketsInTurn) {
  auto choice = ChooseEndpoints("", "", Env({{"XDG_RUNTIME_DIR", "/run/user/7"}}));
  ASSERT_TRUE(choice);
  EXPECT_FALSE(choice->named);
  EXPECT_EQ(Urls(*choice), (std::vector<std::string>{"unix:///var/run/docker.sock",
                                                      "unix:///run/user/7/podman/podman.sock",
                                                      "unix:///run/podman/podman.sock"}));
}

TEST(ChooseEndpoints, EngineSocketsReplaceTheUsualOnes) {
  auto choice = ChooseEndpoints("", "", Env({{"CORRAL_ENGINE_SOCKETS", "/x.sock::/y.sock"}}));
  ASSERT_TRUE(choice);
  EXPECT_FALSE(choice->named);
  EXPECT_EQ(Urls(*choice), (std::vector<std::string>{"unix:///x.sock", "unix:///y.sock"}));
  auto none = ChooseEndpoints("", "", Env({{"CORRAL_ENGINE_SOCKETS", ""}}));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->candidates.empty());
}

TEST(ChooseEndpoints, EmbeddedServiceLivesBesideTheSessionFolder) {
  EngineChoice choice;
  choice.EmbedFor("/run/corral/sessions/abc");
  EXPECT_EQ(choice.embed_dir, "/run/corral/sessions/abc-engine");
  EXPECT_EQ(choice.session_dir, "/run/corral/sessions/abc");
}

TEST(CreateBody, RootlessPodmanKeepsTheUsersId) {
  TempTree tree;
  auto policy = TestPolicy();
  tree.File("p/.git/config", "");
  auto plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  ASSERT_TRUE(plan) << plan.error().message;
  json rootless = CreateBody(*plan, /*podman=*/true, /*rootless=*/true);
  EXPECT_EQ(rootless["userns"]["nsmode"], "keep-id");
  EXPECT_EQ(rootless["user"], "0:0") << "root for the exec gate's set-up; the shim drops to 1000";
  json rootful = CreateBody(*plan, /*podman=*/true, /*rootless=*/false);
  EXPECT_FALSE(rootful.contains("userns")) << "rootful: the engine's own ids, no mapping";
  json docker = CreateBody(*plan, /*podman=*/false, /*rootless=*/false);
  EXPECT_TRUE(docker.contains("HostConfig"));
  EXPECT_FALSE(docker.contains("userns"));
}

// Podman 4.3's answer when two keep-id creates race in libsubid (seen here).
TEST(SubidRace, OnlyPodmansKeepIdMisreadIsTriedAgain) {
  const std::string why =
      "keep-id requires additional UIDs or GIDs defined in /etc/subuid and /etc/subgid to "
      "function correctly: %!w(<nil>)";
  HttpResponse raced{500,
                     json({{"cause", why}, {"message", "container create: " + why},
                           {"response", 500}})
                         .dump(),
                     {}};
  EXPECT_TRUE(SubidRace(raced));
  HttpResponse other{500, R"({"message":"container create: no such image"})", {}};
  EXPECT_FALSE(SubidRace(other));
  HttpResponse conflict = raced;
  conflict.status = 409;
  EXPECT_FALSE(SubidRace(conflict)) << "only the engine's own failure is tried again";
}

TEST(Escape, KeepsUnreservedAndPercentEncodesTheRest) {
  EXPECT_EQ(Escape("corral-ab_1.2~x"), "corral-ab_1.2~x");
  EXPECT_EQ(Escape("a b/c:d?e&f=g"), "a%20b%2Fc%3Ad%3Fe%26f%3Dg");
  EXPECT_EQ(Escape("\xc3\xa9\x01"), "%C3%A9%01");
  EXPECT_EQ(Escape(""), "");
}

}  // namespace
}  // namespace corral::launcher
