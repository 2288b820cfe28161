#include <gtest/gtest.h>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

std::string Why(std::string_view text) {
  auto entry = ParseDomainEntry(text);
  return entry ? "OK" : entry.error().message;
}

TEST(DomainEntry, NamesWildcardsAddressesAndPorts) {
  auto entry = ParseDomainEntry("Example.COM.");
  ASSERT_TRUE(entry.ok()) << entry.error().message;
  EXPECT_EQ(entry->host, "example.com");
  EXPECT_EQ(entry->text, "Example.COM.");
  EXPECT_FALSE(entry->wildcard);
  EXPECT_FALSE(entry->port);

  entry = ParseDomainEntry("*.pkg.dev:8443");
  ASSERT_TRUE(entry.ok()) << entry.error().message;
  EXPECT_EQ(entry->host, "pkg.dev");
  EXPECT_TRUE(entry->wildcard);
  EXPECT_EQ(entry->port, 8443);

  entry = ParseDomainEntry("[2001:db8:0::10]:22");
  ASSERT_TRUE(entry.ok()) << entry.error().message;
  EXPECT_EQ(entry->host, "[2001:db8::10]");
  EXPECT_EQ(entry->port, 22);

  EXPECT_EQ(Why("203.0.113.7"), "OK");
  EXPECT_EQ(Why("bücher.example"), "OK");
  EXPECT_EQ(Why("*.co.uk"), "OK");
}

// Each refusal says what is wrong with the entry and what to write instead.
TEST(DomainEntry, RefusalsSayWhatToWriteInstead) {
  EXPECT_EQ(Why("https://x.com/path"),
            "`https://x.com/path` is a URL: write the host alone, `x.com`");
  EXPECT_EQ(Why("https://user@X.com:8443/a?b"),
            "`https://user@X.com:8443/a?b` is a URL: write the host alone, `X.com:8443`");
  EXPECT_EQ(Why("x.com/path"), "`x.com/path` has a path: write the host alone, `x.com`");
  EXPECT_EQ(Why("*"), "`*` would allow every host: list the hosts, or `*.example.com` for a "
                      "domain's subdomains");
  EXPECT_EQ(Why("*:443"), "`*:443` would allow every host: list the hosts, or `*.example.com` "
                          "for a domain's subdomains");
  EXPECT_EQ(Why("exa mple.com"), "`exa mple.com` has a space: a host name has none");
  EXPECT_EQ(Why(""), "an empty entry: remove it, or write a host such as `example.com`");
  EXPECT_EQ(Why("*.com"), "`*.com` would allow a whole top-level domain: name a domain, as in "
                          "`*.example.com`");
  EXPECT_EQ(Why("foo.*.com"), "`foo.*.com` has a `*` that is not a leading `*.`: write "
                              "`*.example.com` for a domain's subdomains");
  EXPECT_EQ(Why("example.com:0443"),
            "`example.com:0443` has a port that is not a number from 1 to 65535 (decimal, no "
            "leading zeros): write it as in `example.com:8443`");
  EXPECT_EQ(Why("2001:db8::10"),
            "`2001:db8::10` is an IPv6 address without brackets: write it as `[2001:db8::10]` "
            "(quoted in YAML), with a port after the bracket: `[2001:db8::10]:8443`");
  EXPECT_EQ(Why("*.203.0.113.7"), "`*.203.0.113.7` is a wildcard over an IP address: list "
                                  "addresses one by one");
  EXPECT_EQ(Why("user@x.com"), "`user@x.com` has a user name: write the host alone, `x.com`");
  EXPECT_EQ(Why("10.0.0.0/8"), "`10.0.0.0/8` is an address range: list single hosts here (a "
                               "range of private addresses goes in network.allow_addresses)");
  EXPECT_EQ(Why("a..b.com"), "`a..b.com` is not a host name (host has an empty label (\"..\" "
                             "or a leading dot)): write a name such as `example.com`");
}

// Every entry the proxy has ever refused is still refused.
TEST(DomainEntry, BadEntriesStayRefused) {
  for (const char* bad : {"*", "*.com", "*.", "**.example.com", "foo.*.com", "*example.com",
                          "https://example.com", "example.com/path", "example.com:0",
                          "example.com:http", "example.com:0443", "example.com:00",
                          "[2001:db8::1]:0443", "example.com:", "", "*.1.2.3.4", "exa mple.com",
                          "exa\tmple.com", "[::1", "[::1]x", "a..b.com", "256.0.0.1"}) {
    EXPECT_FALSE(ParseDomainEntry(bad).ok()) << bad;
  }
}

TEST(AddressRange, AddressesAndRanges) {
  for (const char* good : {"10.0.0.5", "10.0.0.0/8", "fd00::/8", "127.0.0.1", "[::1]", "::1/128"}) {
    EXPECT_TRUE(ParseCidr(good).ok()) << good;
  }
  auto range = ParseCidr("10.0.0.0/33");
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.error().message,
            "`10.0.0.0/33` has a prefix length past /32: write e.g. `10.0.0.0/8`");
  range = ParseCidr("localhost");
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.error().message,
            "`localhost` is not an IP address or CIDR range: write e.g. `10.0.0.5`, `10.0.0.0/8`, "
            "`fd00::/8`");
  EXPECT_FALSE(ParseCidr("10.0.0.0/").ok());
  EXPECT_FALSE(ParseCidr("10.0.0.0/x").ok());
  EXPECT_FALSE(ParseCidr("127.1").ok());  // one spelling only
}

}  // namespace
}  // namespace corral::policy
