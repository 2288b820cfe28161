#include "base/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace corral {
namespace {

TEST(PlainJsonRunEnd, StopsAtTheFirstByteThatIsNotPlainWhereverItIs) {
  // Each kind of byte a JSON string cannot hold as itself, at each place in
  // and across the eight-byte words the run is read in.
  for (char special : {'"', '\\', '\x01', '\x1f', '\x80', '\xc3', '\xff'}) {
    for (std::size_t at = 0; at < 20; ++at) {
      std::string text = std::string(at, 'a') + special + "bbbbbbbbbb";
      EXPECT_EQ(PlainJsonRunEnd(text, 0), at) << "byte " << int(special) << " at " << at;
      if (at > 0) {
        EXPECT_EQ(PlainJsonRunEnd(text, 1), at);
      }
    }
  }
  std::string plain = " ~\x7f!#azAZ09 ~\x7f!#azAZ09";  // the edges of the plain range
  EXPECT_EQ(PlainJsonRunEnd(plain, 0), plain.size());
  EXPECT_EQ(PlainJsonRunEnd(plain, 3), plain.size());
  EXPECT_EQ(PlainJsonRunEnd("", 0), 0u);
}

TEST(ReadPlainJsonString, DecodesTwoCharacterEscapesAndRefusesTheRest) {
  std::string out;
  std::size_t i = 0;
  std::string text = R"("git commit -m \"a\\b\/c\b\f\n\r\t\" done" tail)";
  ASSERT_TRUE(ReadPlainJsonString(text, i, out));
  EXPECT_EQ(out, "git commit -m \"a\\b/c\b\f\n\r\t\" done");
  EXPECT_EQ(text.substr(i), " tail");
  for (std::string bad : {R"("a\u0041")", R"("a\x")", "\"a\\", "\"abc", "\"a\x01\"", "\"\xc3\xa9\"",
                          "x\"a\""}) {
    i = 0;
    EXPECT_FALSE(ReadPlainJsonString(bad, i, out)) << bad;
  }
}

}  // namespace
}  // namespace corral
