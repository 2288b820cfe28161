#include <gtest/gtest.h>

#include "base/base.h"

namespace corral {
namespace {

using std::chrono::milliseconds;

TEST(RunCaptureTest, CollectsStdoutAndStatus) {
  auto out = RunCapture({"sh", "-c", "echo hello; echo err >&2; exit 3"}, milliseconds(5000));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->out, "hello\n");
  EXPECT_EQ(out->exit_status, 3);
}

TEST(RunCaptureTest, KillsAfterTimeout) {
  auto start = std::chrono::steady_clock::now();
  auto out = RunCapture({"sleep", "10"}, milliseconds(200));
  EXPECT_FALSE(out.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunCaptureTest, MissingProgramIsAnError) {
  auto out = RunCapture({"corral-no-such-program"}, milliseconds(1000));
  EXPECT_FALSE(out.ok());
}

}  // namespace
}  // namespace corral
