#include "netfilter/host.h"

#include <gtest/gtest.h>

namespace corral::netfilter {
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

TEST(Authority, HostPort) {
  auto hp = ParseAuthority("Example.com:8443", std::nullopt);
  ASSERT_TRUE(hp.ok());
  EXPECT_EQ(hp->host.name, "example.com");
  EXPECT_EQ(hp->port, 8443);
  EXPECT_FALSE(ParseAuthority("example.com", std::nullopt).ok());
  EXPECT_EQ(ParseAuthority("example.com", 80)->port, 80);
  EXPECT_FALSE(ParseAuthority("example.com:0", 80).ok());
  EXPECT_FALSE(ParseAuthority("example.com:65536", 80).ok());
  EXPECT_FALSE(ParseAuthority("example.com:+80", 80).ok());
  EXPECT_FALSE(ParseAuthority("example.com:", 80).ok());
  EXPECT_EQ(ParseAuthority("[::1]:443", std::nullopt)->host.name, "[::1]");
  EXPECT_FALSE(ParseAuthority("[::1]x:443", std::nullopt).ok());
}

// Some parsers read "0443" as 443, others as octal 291: only plain decimal
// without leading zeros names one port to everybody.
TEST(Authority, PortIsPlainDecimalWithoutLeadingZeros) {
  for (const char* port : {"1", "80", "443", "8443", "65535"}) {
    auto hp = ParseAuthority(std::string("example.com:") + port, std::nullopt);
    ASSERT_TRUE(hp.ok()) << port;
    EXPECT_EQ(std::to_string(hp->port), port);
  }
  for (const char* port : {"0443", "00443", "080", "00", "0", "01", "+443", "-443", " 443", "443 ", "4 43",
                           "0x1bb", "1bb", "443.0", "1e3", "65536", "99999", "100000", "4294967739", "",
                           "\xef\xbc\x94\xef\xbc\x94\xef\xbc\x93"}) {  // the last: full-width "443"
    EXPECT_FALSE(ParseAuthority(std::string("example.com:") + port, std::nullopt).ok()) << "'" << port << "'";
    EXPECT_FALSE(ParseAuthority(std::string("[2001:db8::1]:") + port, 80).ok()) << "'" << port << "'";
    EXPECT_FALSE(ParsePort(port).has_value()) << "'" << port << "'";
  }
}

}  // namespace
}  // namespace corral::netfilter
