#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "launcher/agents/agents.h"
#include "launcher/plan/plan.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

const std::string kAccess = "sk-ant-oat01-REALaccess0123456789abcdefghij";
const std::string kRefresh = "sk-ant-ort01-REALrefresh0123456789abcdefghij";
const std::string kCredentials = R"({"claudeAiOauth":{"accessToken":")" + kAccess + R"(","refreshToken":")" +
                                 kRefresh + R"(","expiresAt":1,"scopes":["user:inference"],"subscriptionType":"max"}})";

const Recipe& RecipeOf(const std::string& name) {
  static const std::vector<Recipe> recipes = *Recipes(policy::AgentsPolicy{});
  for (const Recipe& recipe : recipes) {
    if (recipe.name == name) return recipe;
  }
  throw std::runtime_error("no recipe " + name);
}

// The plan input of a boxed agent whose login files are read from `files`.
PlanInput AgentInput(const policy::Policy& policy, TempTree& tree, const std::string& agent,
                     std::map<std::string, std::string> files, const char* base_url = nullptr) {
  PlanInput input = TestInput(policy, tree, tree.Dir("p"));
  input.agent.agent = agent;
  for (LoginFile file : RecipeOf(agent).login_files) {
    file.path = "/home/u/" + file.path.substr(2);
    input.agent.login_files.push_back(file);
  }
  input.logins_through_proxy = true;
  input.read_login_file = [files](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  input.getenv = [base_url](const char* name) -> const char* {
    return std::string(name) == "ANTHROPIC_BASE_URL" ? base_url : nullptr;
  };
  return input;
}

TEST(PlanLoginFiles, TheBoxsCopyHoldsStandInsOfEachTokenAndTheRestAsItIs) {
  TempTree tree;
  auto policy = TestPolicy();
  const std::string path = "/home/u/.claude/.credentials.json";
  auto plan = MakePlan(AgentInput(policy, tree, "claude", {{path, kCredentials}}, "https://model.test:9443"));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->box_login_files.count(path), 1u);
  ASSERT_TRUE(plan->box_login_files.at(path).has_value());
  std::string copy = *plan->box_login_files.at(path);
  EXPECT_EQ(copy.find(kAccess), std::string::npos) << copy;
  EXPECT_EQ(copy.find(kRefresh), std::string::npos) << copy;
  auto json = nlohmann::json::parse(copy);
  EXPECT_EQ(json["claudeAiOauth"]["subscriptionType"], "max");
  EXPECT_EQ(json["claudeAiOauth"]["expiresAt"], 1);
  ASSERT_EQ(plan->logins.size(), 2u);
  const BoxLogin& access = plan->logins[0];
  EXPECT_EQ(json["claudeAiOauth"]["accessToken"], access.stand_in);
  EXPECT_EQ(access.stand_in.size(), kAccess.size());
  EXPECT_EQ(access.stand_in.substr(0, 13), "sk-ant-oat01-");
  EXPECT_EQ(access.file, path);
  EXPECT_EQ(access.pointer, "/claudeAiOauth/accessToken");
  EXPECT_EQ(access.hosts, std::vector<std::string>{"model.test:9443"});  // ANTHROPIC_BASE_URL
  const BoxLogin& refresh = plan->logins[1];
  EXPECT_EQ(json["claudeAiOauth"]["refreshToken"], refresh.stand_in);
  EXPECT_TRUE(refresh.in_body);
  EXPECT_EQ(refresh.hosts, std::vector<std::string>{"platform.claude.com:443"});
  // No stand-in goes in the environment: the file holds them.
  for (const std::string& entry : plan->env) {
    EXPECT_EQ(entry.find(access.stand_in), std::string::npos) << entry;
  }
  ASSERT_EQ(plan->login_files.size(), 1u);
  EXPECT_EQ(plan->login_files[0].tokens[0].login.hosts, std::vector<std::string>{"model.test:9443"});
  std::string text = DescribePlan(*plan);
  EXPECT_NE(text.find("claude subscription refresh token: in request bodies to platform.claude.com:443 (from " +
                      path + ")"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(kAccess), std::string::npos);
}

// No file yet: nothing to stand in for, but the token endpoint is still
// the proxy's, so a login made in the box keeps its tokens out of it.
TEST(PlanLoginFiles, WithoutAFileTheEndpointIsStillHeld) {
  TempTree tree;
  auto policy = TestPolicy();
  auto plan = MakePlan(AgentInput(policy, tree, "claude", {}));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->logins.empty());
  EXPECT_TRUE(plan->box_login_files.empty());
  ASSERT_EQ(plan->login_files.size(), 1u);
  // The box trusts the session CA: the proxy ends TLS for the endpoint.
  EXPECT_TRUE(std::any_of(plan->mounts.begin(), plan->mounts.end(), [&](const Mount& m) {
    return m.target == kCaInBox && m.source == plan->session_dir + "/" + kCaBundleFile;
  }));
}

TEST(PlanLoginFiles, AFileThatIsNotJsonIsNotCopied) {
  TempTree tree;
  auto policy = TestPolicy();
  const std::string path = "/home/u/.claude/.credentials.json";
  auto plan = MakePlan(AgentInput(policy, tree, "claude", {{path, "{\"claudeAiOauth\": " + kAccess}}));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->box_login_files.count(path), 1u);
  EXPECT_FALSE(plan->box_login_files.at(path).has_value());
  std::string notes;
  for (const std::string& note : plan->notes) notes += note;
  EXPECT_NE(notes.find("is not a JSON object: the box gets no copy of it"), std::string::npos) << notes;
}

TEST(PlanLoginFiles, PassAndTheNetworkModeCopyTheFileAsItIs) {
  TempTree tree;
  auto policy = TestPolicy();
  const std::string path = "/home/u/.claude/.credentials.json";
  PlanInput input = AgentInput(policy, tree, "claude", {{path, kCredentials}});
  input.agent.logins_pass = true;
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->login_files.empty());
  EXPECT_TRUE(plan->box_login_files.empty());

  plan = MakePlan(AgentInput(policy, tree, "claude", {{path, kCredentials}}));
  ASSERT_TRUE(plan) << plan.error().message;
  PassLoginsAsTheyAre(*plan, nullptr, "", "network mode");
  EXPECT_TRUE(plan->logins.empty());
  EXPECT_TRUE(plan->login_files.empty());
  EXPECT_TRUE(plan->box_login_files.empty());
  EXPECT_EQ(plan->logins_passed.size(), 2u);
}

// Codex reads its id token's claims (account, plan): they stay.
TEST(PlanLoginFiles, CodexKeepsItsIdTokensClaims) {
  TempTree tree;
  auto policy = TestPolicy();
  const std::string path = "/home/u/.codex/auth.json";
  const std::string id = "eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6ImFAYi5jIn0.REALsignature0123456789abcdefABCDEF";
  std::string auth = R"({"OPENAI_API_KEY":null,"tokens":{"id_token":")" + id +
                     R"(","access_token":"eyJhbGciOiJSUzI1NiJ9.eyJ4IjoxfQ.REALaccess0123456789abcdef","refresh_token":"rt_REALrefresh0123456789abcdef","account_id":"acc-1"},"last_refresh":"2026-01-01T00:00:00Z"})";
  auto plan = MakePlan(AgentInput(policy, tree, "codex", {{path, auth}}));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(plan->box_login_files.at(path).has_value());
  auto json = nlohmann::json::parse(*plan->box_login_files.at(path));
  std::string stand_in = json["tokens"]["id_token"];
  EXPECT_EQ(stand_in.substr(0, id.rfind('.') + 1), id.substr(0, id.rfind('.') + 1));
  EXPECT_NE(stand_in, id);
  EXPECT_EQ(json["tokens"]["account_id"], "acc-1");
  EXPECT_TRUE(json["OPENAI_API_KEY"].is_null());
  EXPECT_EQ(plan->box_login_files.at(path)->find("REAL"), std::string::npos);
  EXPECT_EQ(plan->logins.size(), 3u);
}

}  // namespace
}  // namespace corral::launcher
