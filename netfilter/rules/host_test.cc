#include "netfilter/rules/rules.h"

#include <gtest/gtest.h>

namespace corral::netfilter {
namespace {

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
