#include <gtest/gtest.h>

#include "policy/oracle/oracle.h"

namespace corral::policy {
namespace {

MatchResult Listed(const std::string& entry) {
  MatchResult m;
  m.finding = Finding::kListed;
  m.entry = entry;
  return m;
}

TEST(DecideTest, ListedIsRefusedWithTheDesignMessage) {
  Policy policy;
  auto verdict = DecideUnattended(Listed("aws"), policy, false);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_EQ(verdict.message,
            "corral blocked this: `aws` may not run while nobody is watching. Leave it for the "
            "user and tell them what it was for.");
}

TEST(DecideTest, UndeterminedFollowsSettingAndEmptyList) {
  MatchResult m;
  m.finding = Finding::kUndetermined;
  m.reason = "the program could not be determined: `$CMD` is a variable";
  Policy policy;
  auto verdict = DecideUnattended(m, policy, false);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_NE(verdict.message.find("could not be determined"), std::string::npos);
  EXPECT_EQ(DecideUnattended(m, policy, /*list_empty=*/true).decision, Decision::kAllow);
  policy.undetermined = Undetermined::kAllow;
  EXPECT_EQ(DecideUnattended(m, policy, false).decision, Decision::kAllow);
}

TEST(DecideTest, DangerousFollowsAction) {
  MatchResult m;
  m.dangerous = DangerousMatch{"recursive-delete", "rm -rf removes a tree"};
  Policy policy;
  EXPECT_EQ(DecideUnattended(m, policy, false).decision, Decision::kAllow);  // warn
  policy.dangerous_action = DangerousAction::kDenyUnattended;
  auto verdict = DecideUnattended(m, policy, false);
  EXPECT_EQ(verdict.decision, Decision::kDeny);
  EXPECT_NE(verdict.message.find("recursive-delete"), std::string::npos);
}

TEST(DecideTest, NothingFoundIsAllowed) {
  Policy policy;
  EXPECT_EQ(DecideUnattended(MatchResult{}, policy, false).decision, Decision::kAllow);
}

}  // namespace
}  // namespace corral::policy
