#include <gtest/gtest.h>

#include "launcher/plan/plan.h"
#include "launcher/session/session.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

SessionPlan PlanWithLogins(const std::string& session_dir) {
  SessionPlan plan;
  plan.session_id = "0123456789ab";
  plan.session_dir = session_dir;
  plan.logins = {
      {"ANTHROPIC_API_KEY", "x-api-key", "", {"model.test:8080"}, "ANTHROPIC_BASE_URL",
       "sk-QQQQQQQQQQQQQQ"},
      {"ANTHROPIC_AUTH_TOKEN", "Authorization", "Bearer ", {"model.test:8080"},
       "ANTHROPIC_BASE_URL", "sk-QQQQQQQQQQQQQQ"}};  // one value in both
  return plan;
}

const char* Env(const char* name) {
  std::string n = name;
  return n == "ANTHROPIC_API_KEY" || n == "ANTHROPIC_AUTH_TOKEN" ? "sk-scripted-model" : nullptr;
}

// One value in two variables: one stand-in, held once in each form it goes
// in (x-api-key, Bearer); a second variable in the same form adds nothing.
TEST(ProxyLogins, RealValuesFromTheEnvironmentOncePerForm) {
  TempTree tree;
  SessionPlan plan = PlanWithLogins(tree.root());
  BoxLogin again = plan.logins[0];
  again.variable = "ANTHROPIC_AUTH_TOKEN";
  plan.logins.push_back(again);
  auto logins = ProxyLogins(plan, {Env, ""});
  ASSERT_TRUE(logins) << logins.error().message;
  ASSERT_EQ(logins->size(), 2u);
  const netfilter::Login& login = (*logins)[0];
  EXPECT_EQ(login.name, "ANTHROPIC_API_KEY");
  EXPECT_EQ(login.value, "sk-scripted-model");
  EXPECT_EQ(login.stand_in, "sk-QQQQQQQQQQQQQQ");
  EXPECT_EQ(login.header, "x-api-key");
  EXPECT_EQ(login.hosts, std::vector<std::string>{"model.test:8080"});
  EXPECT_EQ((*logins)[1].header, "Authorization");
  EXPECT_EQ((*logins)[1].prefix, "Bearer ");
  EXPECT_EQ((*logins)[1].value, "sk-scripted-model");
}

TEST(ProxyLogins, AValueThatChangedLengthIsAnError) {
  TempTree tree;
  auto logins = ProxyLogins(PlanWithLogins(tree.root()),
                            {[](const char*) -> const char* { return "short"; }, ""});
  ASSERT_FALSE(logins);
  EXPECT_NE(logins.error().message.find("$ANTHROPIC_API_KEY changed"), std::string::npos);
}

TEST(UpstreamCaFile, TheSettingElseTheHostsBundle) {
  policy::Policy policy;
  EXPECT_EQ(UpstreamCaFile(policy, "/etc/ssl/certs/ca-certificates.crt"),
            "/etc/ssl/certs/ca-certificates.crt");
  policy.settings["network.upstream_ca_file"].value = "";
  EXPECT_EQ(UpstreamCaFile(policy, "/host.crt"), "/host.crt");
  policy.settings["network.upstream_ca_file"].value = "/test/ca.pem";
  EXPECT_EQ(UpstreamCaFile(policy, "/host.crt"), "/test/ca.pem");
}

TEST(WriteBoxCaBundle, TheHostsBundleThenTheSessionCa) {
  TempTree tree;
  std::string host = tree.File("etc/ca.crt", "HOST CERTS");
  SessionPlan plan = PlanWithLogins(tree.Dir("session"));
  ASSERT_TRUE(WriteBoxCaBundle(plan, host, "SESSION CA\n"));
  std::string text = ReadText(plan.session_dir + "/" + kCaBundleFile);
  EXPECT_EQ(text.find("HOST CERTS\n"), 0u);
  EXPECT_NE(text.find("SESSION CA\n"), std::string::npos);
}

TEST(LoginsLine, NamesWhatTheProxyHoldsAndWhatPassesAndWhy) {
  SessionPlan plan = PlanWithLogins("/x");
  EXPECT_EQ(LoginsLine(plan),
            "logins held by the proxy (the box has stand-ins): ANTHROPIC_API_KEY "
            "(model.test:8080) ANTHROPIC_AUTH_TOKEN (model.test:8080)");
  plan.logins.clear();
  plan.logins_passed = {"OPENAI_API_KEY"};
  plan.logins_passed_why = "agents.logins: pass";
  EXPECT_EQ(LoginsLine(plan), "logins in the box as they are (agents.logins: pass): OPENAI_API_KEY");
  plan.logins_passed.clear();
  EXPECT_EQ(LoginsLine(plan), "");
}

}  // namespace
}  // namespace corral::launcher
