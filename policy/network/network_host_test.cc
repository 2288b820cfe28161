#include <gtest/gtest.h>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

std::string Canon(std::string_view raw) {
  auto c = Canonicalize(raw);
  return c ? c->name : "ERROR";
}

TEST(CanonicalHost, LowerCaseAndOneTrailingDot) {
  EXPECT_EQ(Canon("Example.COM"), "example.com");
  EXPECT_EQ(Canon("example.com."), "example.com");
  EXPECT_EQ(Canon("example.com.."), "ERROR");
  EXPECT_EQ(Canon(".example.com"), "ERROR");
  EXPECT_EQ(Canon("a..b.com"), "ERROR");
  EXPECT_EQ(Canon(""), "ERROR");
  EXPECT_EQ(Canon("."), "ERROR");
}

TEST(CanonicalHost, IdnBecomesPunycode) {
  EXPECT_EQ(Canon("bücher.example"), "xn--bcher-kva.example");
  EXPECT_EQ(Canon("BÜCHER.example"), "xn--bcher-kva.example");
  // Full-width letters and the ideographic full stop map to ASCII first.
  EXPECT_EQ(Canon("ｅｘａｍｐｌｅ。ｃｏｍ"), "example.com");
}

TEST(CanonicalHost, FullWidthDigitsBecomeAnIpLiteral) {
  auto c = Canonicalize("１２７．０．０．１");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "127.0.0.1");
  EXPECT_TRUE(c->ip.has_value());
}

TEST(CanonicalHost, Ipv4InEverySpelling) {
  for (const char* spelling : {"127.0.0.1", "2130706433", "0x7f000001", "0x7F.0.0.1", "0177.0.0.1",
                               "017700000001", "127.1", "127.0.1", "0x7f.1", "127.0.0.1."}) {
    auto c = Canonicalize(spelling);
    ASSERT_TRUE(c.ok()) << spelling;
    EXPECT_EQ(c->name, "127.0.0.1") << spelling;
    EXPECT_TRUE(c->ip) << spelling;
  }
  EXPECT_EQ(Canon("0"), "0.0.0.0");
  EXPECT_EQ(Canon("169.254.169.254"), "169.254.169.254");
}

TEST(CanonicalHost, NumericLookingNamesThatAreNotAddressesAreRefused) {
  EXPECT_EQ(Canon("256.0.0.1"), "ERROR");
  EXPECT_EQ(Canon("1.2.3.4.5"), "ERROR");
  EXPECT_EQ(Canon("08.0.0.1"), "ERROR");  // 08 is not octal
  EXPECT_EQ(Canon("foo.123"), "ERROR");
  EXPECT_EQ(Canon("0xg.1"), "ERROR");
  EXPECT_EQ(Canon("4294967296"), "ERROR");
  EXPECT_EQ(Canon("123.example.com"), "123.example.com");
}

TEST(CanonicalHost, Ipv6InBrackets) {
  EXPECT_EQ(Canon("[::1]"), "[::1]");
  EXPECT_EQ(Canon("[0:0:0:0:0:0:0:1]"), "[::1]");
  EXPECT_EQ(Canon("[::FFFF:127.0.0.1]"), "[::ffff:127.0.0.1]");
  EXPECT_EQ(Canon("::1"), "ERROR");
  EXPECT_EQ(Canon("[fe80::1%eth0]"), "ERROR");
  EXPECT_EQ(Canon("[fe80::1%25eth0]"), "ERROR");
  EXPECT_EQ(Canon("[::1"), "ERROR");
}

TEST(CanonicalHost, SpecialCharactersAreRefused) {
  for (const char* bad : {"exa mple.com", "example.com\r\nX: y", "ex%61mple.com", "user@example.com",
                          "example.com/path", "example.com\\x", "exa\tmple.com", "a\x01.com", "-a.com",
                          "a-.com", "example.com#", "exa?mple.com"}) {
    EXPECT_EQ(Canon(bad), "ERROR") << bad;
  }
  EXPECT_EQ(Canon(std::string(64, 'a') + ".com"), "ERROR");
  EXPECT_EQ(Canon(std::string(63, 'a') + ".com"), std::string(63, 'a') + ".com");
}

TEST(Ipv4Spellings, Parse) {
  EXPECT_EQ(ParseIpv4AnySpelling("1")->ToString(), "0.0.0.1");
  EXPECT_EQ(ParseIpv4AnySpelling("1.2")->ToString(), "1.0.0.2");
  EXPECT_EQ(ParseIpv4AnySpelling("1.2.3")->ToString(), "1.2.0.3");
  EXPECT_EQ(ParseIpv4AnySpelling("0xA9.0376.43518")->ToString(), "169.254.169.254");
  EXPECT_EQ(ParseIpv4AnySpelling("2852039166")->ToString(), "169.254.169.254");
  EXPECT_FALSE(ParseIpv4AnySpelling("1.2.65536"));
  EXPECT_FALSE(ParseIpv4AnySpelling("1..2"));
  EXPECT_FALSE(ParseIpv4AnySpelling("1.2.3.4."));
}

}  // namespace
}  // namespace corral::policy
