#include <gtest/gtest.h>

#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

TEST(PublishedPort, ReadsTheThreeForms) {
  auto local = ParsePublishedPort("8080:3000");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->host_address, "127.0.0.1");  // only this machine, unless asked
  EXPECT_EQ(local->host_port, 8080);
  EXPECT_EQ(local->box_port, 3000);
  EXPECT_EQ(DescribePublishedPort(*local), "127.0.0.1:8080 -> 3000");

  auto everywhere = ParsePublishedPort("0.0.0.0:80:8000");
  ASSERT_TRUE(everywhere.ok());
  EXPECT_EQ(everywhere->host_address, "0.0.0.0");
  EXPECT_EQ(DescribePublishedPort(*everywhere), "0.0.0.0:80 -> 8000");

  auto v6 = ParsePublishedPort("[::1]:9000:9000");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host_address, "::1");
  EXPECT_EQ(DescribePublishedPort(*v6), "[::1]:9000 -> 9000");
}

TEST(PublishedPort, BadInputSaysWhatIsWrongAndTheForm) {
  for (const char* bad : {"8080", "8080:", ":3000", "0:3000", "8080:65536", "x:1:2", "1.2.3:1:2",
                          "[::1:1:2", "[nope]:1:2", "8080:3000:1:2", "80 80:3000"}) {
    auto port = ParsePublishedPort(bad);
    ASSERT_FALSE(port.ok()) << bad;
    EXPECT_NE(port.error().message.find("HOST_PORT:BOX_PORT"), std::string::npos) << bad;
    EXPECT_NE(port.error().message.find(bad), std::string::npos) << bad;
  }
  EXPECT_NE(ParsePublishedPort("8080:70000").error().message.find("'70000' is not a port"),
            std::string::npos);
}

TEST(PublishedPort, ThePlanCarriesItAndLabelsTheBoxWithIt) {
  testing::TempTree tree;
  std::string project = tree.Dir("home/user/src/app");
  tree.Dir("home/user/src/app/.git");
  auto policy = testing::TestPolicy();
  PlanInput input = testing::TestInput(policy, tree, project);
  input.published = {*ParsePublishedPort("8080:3000"), *ParsePublishedPort("0.0.0.0:9229:9229")};
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->published.size(), 2u);
  EXPECT_EQ(plan->labels.at("corral.publish"), "127.0.0.1:8080 -> 3000, 0.0.0.0:9229 -> 9229");
}

}  // namespace
}  // namespace corral::launcher
