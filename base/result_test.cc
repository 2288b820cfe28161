#include <gtest/gtest.h>

#include <fcntl.h>

#include "base/base.h"

namespace corral {
namespace {

Result<int> Half(int n) {
  if (n % 2) return Error("odd number " + std::to_string(n));
  return n / 2;
}

TEST(ResultTest, HoldsValueOrError) {
  auto good = Half(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 2);
  auto bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "odd number 3");
}

TEST(ResultTest, ValueOrTakesTheFallbackOnError) {
  EXPECT_EQ(Half(4).value_or(-1), 2);
  EXPECT_EQ(Half(3).value_or(-1), -1);
  EXPECT_EQ(Result<std::string>(Error("gone")).value_or(""), "");
}

TEST(ResultTest, ContextReadsOutermostFirst) {
  Error e = Error("no such key").Context("config.yaml:3:1").Context("loading policy");
  EXPECT_EQ(e.message, "loading policy: config.yaml:3:1: no such key");
}

TEST(ResultTest, FromErrnoKeepsCode) {
  Error e = Error::FromErrno("open /nonexistent", ENOENT);
  EXPECT_EQ(e.code, ENOENT);
  EXPECT_NE(e.message.find("No such file"), std::string::npos);
}

TEST(UniqueFdTest, ClosesOnceOnReset) {
  UniqueFd fd(::open("/dev/null", O_RDONLY));
  ASSERT_TRUE(fd.valid());
  int raw = fd.get();
  fd.Reset();
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);
}

}  // namespace
}  // namespace corral
