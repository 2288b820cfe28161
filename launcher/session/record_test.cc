#include <gtest/gtest.h>

#include "launcher/session/session.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

TEST(SessionRecord, AStandInSentAwayIsNotARefusedHost) {
  testing::TempTree tree;
  auto record = SessionRecord::Open(tree.root() + "/s.jsonl", "s1", -1);
  ASSERT_TRUE(record.ok()) << record.error().message;
  (*record)->Network(R"({"host":"other.test","status":403,"decision":"deny","reason":"not allowed"})");
  (*record)->Network(R"({"host":"api.test","status":403,"decision":"deny",)"
                     R"("credential":"credential-to-wrong-host","reason":"the stand-in of login 'K'"})");
  (*record)->Network(R"({"host":"api.test","status":403,"decision":"deny",)"
                     R"("credential":"credential-to-wrong-host","reason":"second"})");
  RecordCounts counts = (*record)->Counts();
  EXPECT_EQ(counts.connections, 3u);
  EXPECT_EQ(counts.connections_refused, 3u);
  EXPECT_EQ(counts.refused_hosts, (std::map<std::string, std::uint64_t>{{"other.test", 1}}));
  ASSERT_EQ(counts.stray_stand_ins.size(), 1u);
  EXPECT_EQ(counts.stray_stand_ins.at("api.test").times, 2u);
  EXPECT_EQ(counts.stray_stand_ins.at("api.test").reason, "the stand-in of login 'K'");
}

}  // namespace
}  // namespace corral::launcher
