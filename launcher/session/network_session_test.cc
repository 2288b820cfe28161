#include <gtest/gtest.h>

#include "launcher/session/network_session.h"

namespace corral::launcher {
namespace {

BoxLogin Variable(const std::string& name) {
  BoxLogin login;
  login.variable = name;
  login.header = "x-api-key";
  login.hosts = {"api.anthropic.com:443"};
  login.stand_in = "sk-ant-api03-standinstand";
  return login;
}

TEST(PassLoginFilesAsTheyAre, TheSidecarKeepsTheVariablesAndTheFilesGoAsTheyAre) {
  SessionPlan plan;
  plan.logins = {Variable("ANTHROPIC_API_KEY"), Variable("claude access token")};
  plan.logins[1].file = "/home/u/.claude/.credentials.json";
  plan.logins[1].pointer = "/claudeAiOauth/accessToken";
  plan.login_files.push_back({});
  plan.box_login_files["/home/u/.claude/.credentials.json"] = "{\"stand-ins\": true}";
  PassLoginFilesAsTheyAre(plan);
  ASSERT_EQ(plan.logins.size(), 1u);
  EXPECT_EQ(plan.logins[0].variable, "ANTHROPIC_API_KEY");
  EXPECT_EQ(plan.logins_passed, std::vector<std::string>{"claude access token"});
  EXPECT_TRUE(plan.login_files.empty());
  EXPECT_TRUE(plan.box_login_files.empty()) << "the seed copies the host's file as it is";
  EXPECT_NE(plan.logins_passed_why.find("network mode"), std::string::npos);
  EXPECT_NE(LoginsLine(plan).find("logins in the box as they are"), std::string::npos);
}

TEST(PassLoginFilesAsTheyAre, WithoutLoginFilesNothingChanges) {
  SessionPlan plan;
  plan.logins = {Variable("ANTHROPIC_API_KEY")};
  PassLoginFilesAsTheyAre(plan);
  EXPECT_EQ(plan.logins.size(), 1u);
  EXPECT_TRUE(plan.logins_passed.empty());
  EXPECT_TRUE(plan.logins_passed_why.empty());
}

}  // namespace
}  // namespace corral::launcher
