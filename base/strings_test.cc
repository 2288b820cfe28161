#include "base/strings.h"

#include <gtest/gtest.h>

namespace corral {
namespace {

TEST(Trim, DropsSpacesTabsAndLineEndsOnBothSides) {
  EXPECT_EQ(Trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(Trim("a"), "a");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t\r\n"), "");
}

TEST(Trim, KeepsWhatIsInside) { EXPECT_EQ(Trim("  x \n y  "), "x \n y"); }

TEST(Trim, TakesTheCallersBlanks) {
  EXPECT_EQ(Trim(" a\r\n", " \t"), "a\r\n");
  EXPECT_EQ(Trim("\v\fa\v", " \t\n\v\f\r"), "a");
  EXPECT_EQ(Trim("\"'a b'\" ", " \t\r\"'"), "a b");
  EXPECT_EQ(Trim("\v a", " \t"), "\v a");
}

TEST(Trim, IsAViewOfTheSameCharacters) {
  std::string_view text = "  abc  ";
  EXPECT_EQ(Trim(text).data(), text.data() + 2);
}

}  // namespace
}  // namespace corral
