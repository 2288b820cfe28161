#include <gtest/gtest.h>
#include <stdlib.h>

#include "launcher/session_plan.h"
#include "launcher/test_util.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

// Sets an environment variable for one test, and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { old_.empty() ? ::unsetenv(name_) : ::setenv(name_, old_.c_str(), 1); }

 private:
  const char* name_;
  std::string old_;
};

TEST(HostPlanInput, ANamedShimThatIsMissingIsNotReplacedByAnother) {
  testing::TempTree tree;
  policy::Policy policy;
  {
    ScopedEnv shim("CORRAL_SHIM", tree.root() + "/no-such-shim");
    EXPECT_EQ(HostPlanInput(policy).shim_path, "");
  }
  std::string there = tree.File("bin/corral-shim");
  tree.File("bin/corral-shell");
  ScopedEnv shim("CORRAL_SHIM", there);
  PlanInput input = HostPlanInput(policy);
  EXPECT_EQ(input.shim_path, there);
  EXPECT_EQ(input.shell_path, tree.root() + "/bin/corral-shell");
}

}  // namespace
}  // namespace corral::launcher
