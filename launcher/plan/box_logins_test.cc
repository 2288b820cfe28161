#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

const char* kRealKey = "sk-ant-api03-Abc_def-0123456789xyzXYZ-AA";
const char* kRealToken = "sk-ant-oat01-ZZZZyyyy00001111";

TEST(LoginHosts, TheBaseUrlsHostAndPortElseTheRecipesAt443) {
  BoxLogin login{"ANTHROPIC_API_KEY", "x-api-key", "", {"api.anthropic.com"},
                 "ANTHROPIC_BASE_URL", ""};
  EXPECT_EQ(LoginHosts(login, nullptr), std::vector<std::string>{"api.anthropic.com:443"});
  EXPECT_EQ(LoginHosts(login, ""), std::vector<std::string>{"api.anthropic.com:443"});
  EXPECT_EQ(LoginHosts(login, "http://model.test:8080"),
            std::vector<std::string>{"model.test:8080"});
  EXPECT_EQ(LoginHosts(login, "https://gateway.example.com/anthropic"),
            std::vector<std::string>{"gateway.example.com:443"});
  EXPECT_EQ(LoginHosts(login, "http://[::1]:11434/v1"), std::vector<std::string>{"[::1]:11434"});
  EXPECT_EQ(LoginHosts(login, "not a url"), std::vector<std::string>{"api.anthropic.com:443"});
}

PlanInput ClaudeInput(const policy::Policy& policy, TempTree& tree) {
  PlanInput input = TestInput(policy, tree, tree.Dir("p"));
  input.agent.agent = "claude";
  input.agent.variables = {"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL"};
  input.agent.logins = {
      {"ANTHROPIC_API_KEY", "x-api-key", "", {"api.anthropic.com"}, "ANTHROPIC_BASE_URL", ""},
      {"CLAUDE_CODE_OAUTH_TOKEN", "Authorization", "Bearer ", {"api.anthropic.com"},
       "ANTHROPIC_BASE_URL", ""}};
  input.getenv = [](const char* name) -> const char* {
    std::string n = name;
    if (n == "ANTHROPIC_API_KEY") return kRealKey;
    if (n == "CLAUDE_CODE_OAUTH_TOKEN") return kRealToken;
    if (n == "ANTHROPIC_BASE_URL") return "http://model.test:8080";
    return nullptr;
  };
  input.logins_through_proxy = true;
  return input;
}

std::string EnvValue(const SessionPlan& plan, const std::string& name) {
  for (const std::string& entry : plan.env) {
    if (entry.rfind(name + "=", 0) == 0) return entry.substr(name.size() + 1);
  }
  return "(unset)";
}

TEST(PlanLogins, TheBoxsEnvHoldsStandInsAndNoRealValue) {
  TempTree tree;
  auto policy = TestPolicy();
  policy.pass = {"ANTHROPIC_API_KEY"};  // `pass` too: the login still wins
  auto plan = MakePlan(ClaudeInput(policy, tree));
  ASSERT_TRUE(plan) << plan.error().message;
  for (const std::string& entry : plan->env) {
    EXPECT_EQ(entry.find(kRealKey), std::string::npos) << entry;
    EXPECT_EQ(entry.find(kRealToken), std::string::npos) << entry;
  }
  std::string key = EnvValue(*plan, "ANTHROPIC_API_KEY");
  EXPECT_EQ(key.size(), std::string(kRealKey).size());
  EXPECT_EQ(key.rfind("sk-ant-api03-", 0), 0u);
  EXPECT_EQ(EnvValue(*plan, "ANTHROPIC_BASE_URL"), "http://model.test:8080");  // not a secret
  EXPECT_EQ(std::count_if(plan->env.begin(), plan->env.end(),
                          [](const std::string& e) { return e.rfind("ANTHROPIC_API_KEY=", 0) == 0; }),
            1);
  ASSERT_EQ(plan->logins.size(), 2u);
  EXPECT_EQ(plan->logins[0].stand_in, key);
  EXPECT_EQ(plan->logins[0].hosts, std::vector<std::string>{"model.test:8080"});
  EXPECT_EQ(plan->passed_by_name, std::vector<std::string>{"ANTHROPIC_BASE_URL"});
  // The box trusts the session's bundle (host's + session CA), from the session folder.
  auto ca = std::find_if(plan->mounts.begin(), plan->mounts.end(),
                         [](const Mount& m) { return m.target == kCaInBox; });
  ASSERT_NE(ca, plan->mounts.end());
  EXPECT_EQ(ca->source, plan->session_dir + "/" + kCaBundleFile);
  EXPECT_EQ(EnvValue(*plan, "NODE_EXTRA_CA_CERTS"), kCaInBox);
}

TEST(PlanLogins, PrintNamesEachLoginWithItsHostAndHeaderButNoValue) {
  TempTree tree;
  auto policy = TestPolicy();
  auto plan = MakePlan(ClaudeInput(policy, tree));
  ASSERT_TRUE(plan) << plan.error().message;
  std::string text = DescribePlan(*plan);
  EXPECT_NE(text.find("ANTHROPIC_API_KEY: in x-api-key to model.test:8080"), std::string::npos)
      << text;
  EXPECT_NE(text.find("CLAUDE_CODE_OAUTH_TOKEN: in Authorization (Bearer ...) to model.test:8080"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(kRealKey), std::string::npos);
  EXPECT_EQ(text.find(kRealToken), std::string::npos);
  EXPECT_EQ(text.find(plan->logins[0].stand_in), std::string::npos);
}

TEST(PlanLogins, PassKeepsTheValuesAndSaysWhy) {
  TempTree tree;
  auto policy = TestPolicy();
  PlanInput input = ClaudeInput(policy, tree);
  input.agent.logins_pass = true;
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->logins.empty());
  EXPECT_EQ(EnvValue(*plan, "ANTHROPIC_API_KEY"), kRealKey);
  EXPECT_EQ(plan->logins_passed,
            (std::vector<std::string>{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"}));
  EXPECT_EQ(plan->logins_passed_why, "agents.logins: pass");
  EXPECT_NE(DescribePlan(*plan).find("logins in the box as they are (agents.logins: pass)"),
            std::string::npos);
}

TEST(PlanLogins, WithoutTheSessionsProxyTheValuesPassAsToday) {
  TempTree tree;
  auto policy = TestPolicy();
  PlanInput input = ClaudeInput(policy, tree);
  input.logins_through_proxy = false;  // corral spec, Kubernetes
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->logins.empty());
  EXPECT_EQ(EnvValue(*plan, "ANTHROPIC_API_KEY"), kRealKey);
  auto ca = std::find_if(plan->mounts.begin(), plan->mounts.end(),
                         [](const Mount& m) { return m.target == kCaInBox; });
  ASSERT_NE(ca, plan->mounts.end());
  EXPECT_EQ(ca->source, input.ca_bundle);
}

TEST(PlanLogins, TheNetworkModeGetsTheValuesBack) {
  TempTree tree;
  auto policy = TestPolicy();
  PlanInput input = ClaudeInput(policy, tree);
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  PassLoginsAsTheyAre(*plan, input.getenv, input.ca_bundle, "network mode");
  EXPECT_TRUE(plan->logins.empty());
  EXPECT_EQ(EnvValue(*plan, "ANTHROPIC_API_KEY"), kRealKey);
  EXPECT_EQ(EnvValue(*plan, "CLAUDE_CODE_OAUTH_TOKEN"), kRealToken);
  EXPECT_EQ(plan->logins_passed_why, "network mode");
  auto ca = std::find_if(plan->mounts.begin(), plan->mounts.end(),
                         [](const Mount& m) { return m.target == kCaInBox; });
  ASSERT_NE(ca, plan->mounts.end());
  EXPECT_EQ(ca->source, input.ca_bundle);
}

TEST(PlanLogins, OneValueInTwoVariablesSharesOneStandIn) {
  TempTree tree;
  auto policy = TestPolicy();
  PlanInput input = ClaudeInput(policy, tree);
  input.getenv = [](const char* name) -> const char* {
    std::string n = name;
    if (n == "ANTHROPIC_API_KEY" || n == "CLAUDE_CODE_OAUTH_TOKEN") return kRealKey;
    return nullptr;
  };
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->logins.size(), 2u);
  EXPECT_EQ(plan->logins[0].stand_in, plan->logins[1].stand_in);
  EXPECT_EQ(EnvValue(*plan, "CLAUDE_CODE_OAUTH_TOKEN"), plan->logins[0].stand_in);
  EXPECT_EQ(plan->logins[0].hosts, std::vector<std::string>{"api.anthropic.com:443"});
}

}  // namespace
}  // namespace corral::launcher
