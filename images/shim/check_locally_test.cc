#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "images/shim/shim.h"

namespace corral::shim {
namespace {

class CheckLocallyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    list_ =
        std::filesystem::temp_directory_path() / ("corral-deny-list-" + std::to_string(::getpid()));
    std::ofstream(list_) << "# the session's list\nkubectl\n";
  }
  void TearDown() override { std::filesystem::remove(list_); }
  std::filesystem::path list_;
};

TEST_F(CheckLocallyTest, RefusesWhatTheSessionsListNames) {
  std::string refusal = RefusalWithoutHost(list_, "cd app && kubectl apply -f x.yaml");
  EXPECT_NE(refusal.find("`kubectl`"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("could not be asked"), std::string::npos);
  EXPECT_EQ(RefusalWithoutHost(list_, "aws s3 ls"), "");  // not on this list
  EXPECT_EQ(RefusalWithoutHost(list_, "echo kubectl"), "");
}

TEST_F(CheckLocallyTest, WithoutTheSessionsListTheBuiltInOneApplies) {
  EXPECT_NE(RefusalWithoutHost(list_.string() + ".missing", "aws s3 ls"), "");
  EXPECT_EQ(RefusalWithoutHost(list_.string() + ".missing", "ls -la"), "");
}

TEST(CheckLocallyUsageTest, BadArgumentsRunNothing) {
  char fd[] = "x", real[] = "/bin/true", dashes[] = "--", name[] = "sh";
  char* args[] = {fd, real, dashes, name, nullptr};
  EXPECT_EQ(CheckLocally(4, args), 2);
  char* too_few[] = {real, nullptr};
  EXPECT_EQ(CheckLocally(1, too_few), 2);
}

}  // namespace
}  // namespace corral::shim
