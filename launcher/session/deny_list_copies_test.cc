#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// The oracle's rewritten copies reach the network mode's session only while
// it has a receiver set: not before its volume exists, not after it is gone.
TEST(DenyListCopies, PassesEachCopyOnOnlyWhileAReceiverIsSet) {
  DenyListCopies copies;
  std::vector<std::string> received;
  copies.Written("before");
  copies.SendTo([&](const std::string& text) { received.push_back(text); });
  copies.Written("aws\n");
  copies.Written("aws\nfrobnicate\n");
  copies.SendTo(nullptr);
  copies.Written("after");
  EXPECT_EQ(received, (std::vector<std::string>{"aws\n", "aws\nfrobnicate\n"}));
}

}  // namespace
}  // namespace corral::launcher
