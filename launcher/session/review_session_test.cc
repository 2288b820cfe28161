#include <gtest/gtest.h>

#include "launcher/launcher.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

policy::Policy WithReviewList(std::vector<std::string> folders) {
  policy::Policy policy;
  policy.settings["review.projects"].value = folders;
  return policy;
}

TEST(WantsReview, TheFlagTheProjectsEntryThenTheList) {
  RunOptions flag;
  flag.review = true;
  RunOptions none;
  policy::Policy policy = WithReviewList({"/src/listed/", "/src/both"});
  EXPECT_TRUE(WantsReview(policy, flag, "/src/other"));
  EXPECT_TRUE(WantsReview(policy, none, "/src/listed"));
  EXPECT_FALSE(WantsReview(policy, none, "/src/other"));

  policy.projects["/src/ci"].review = true;
  policy.projects["/src/both"].review = false;  // the entry says no: it wins over the list
  policy.projects["/src/gv"].runtime = policy::BoxRuntime::kGvisor;  // says nothing of review
  EXPECT_TRUE(WantsReview(policy, none, "/src/ci"));
  EXPECT_FALSE(WantsReview(policy, none, "/src/both"));
  EXPECT_TRUE(WantsReview(policy, flag, "/src/both")) << "--review is asked for this run";
  EXPECT_FALSE(WantsReview(policy, none, "/src/gv"));

  EXPECT_TRUE(WantsReview(WithReviewList({"*"}), none, "/anything"));
}

}  // namespace
}  // namespace corral::launcher
