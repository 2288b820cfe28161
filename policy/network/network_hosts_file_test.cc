#include <gtest/gtest.h>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

TEST(HostsFile, ParsesNamesAndAliases) {
  auto table = ParseHosts("# comment\n127.0.0.2 Git.Test  mirror.test # trailing\n\n::1 six.test\n"
                          "127.0.0.3 git.test\n");
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->at("git.test").size(), 2u);
  EXPECT_EQ(table->at("git.test")[0].ToString(), "127.0.0.2");
  EXPECT_EQ(table->at("git.test")[1].ToString(), "127.0.0.3");
  EXPECT_EQ(table->at("mirror.test")[0].ToString(), "127.0.0.2");
  EXPECT_EQ(table->at("six.test")[0].ToString(), "::1");
}

TEST(HostsFile, Errors) {
  EXPECT_FALSE(ParseHosts("not-an-ip name\n").ok());
  EXPECT_FALSE(ParseHosts("127.0.0.1\n").ok());
  EXPECT_FALSE(ParseHosts("127.0.0.1 bad..name\n").ok());
  EXPECT_FALSE(ParseHosts("127.1 short.form\n").ok());  // hosts files use standard spellings
}

}  // namespace
}  // namespace corral::policy
