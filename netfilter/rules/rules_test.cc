#include "netfilter/rules/rules.h"

#include <gtest/gtest.h>

namespace corral::netfilter {
namespace {

Rules Make(std::vector<std::string> allowed, std::vector<std::string> denied = {},
           std::vector<std::string> addresses = {}) {
  auto rules = ParseRules({std::move(allowed), std::move(denied), std::move(addresses)});
  EXPECT_TRUE(rules.ok()) << (rules ? "" : rules.error().message);
  return rules ? *rules : Rules{};
}

bool Allowed(const Rules& rules, std::string_view host, uint16_t port, Method method = Method::kConnect) {
  auto canonical = Canonicalize(host);
  if (!canonical) return false;
  return DecideHost(rules, *canonical, port, method).allowed;
}

TEST(Rules, ExactAndWildcard) {
  Rules r = Make({"example.com", "*.pkg.dev"});
  EXPECT_TRUE(Allowed(r, "example.com", 443));
  EXPECT_TRUE(Allowed(r, "EXAMPLE.com.", 443));
  EXPECT_FALSE(Allowed(r, "www.example.com", 443));
  EXPECT_FALSE(Allowed(r, "example.com.evil.net", 443));
  EXPECT_FALSE(Allowed(r, "notexample.com", 443));
  EXPECT_TRUE(Allowed(r, "a.pkg.dev", 443));
  EXPECT_TRUE(Allowed(r, "a.b.c.pkg.dev", 443));
  EXPECT_FALSE(Allowed(r, "pkg.dev", 443));  // never the apex
  EXPECT_FALSE(Allowed(r, "xpkg.dev", 443));
}

TEST(Rules, PortsDefaultByMethod) {
  Rules r = Make({"example.com", "git.example.com:8443"});
  EXPECT_TRUE(Allowed(r, "example.com", 443, Method::kConnect));
  EXPECT_FALSE(Allowed(r, "example.com", 80, Method::kConnect));
  EXPECT_FALSE(Allowed(r, "example.com", 22, Method::kConnect));
  EXPECT_TRUE(Allowed(r, "example.com", 80, Method::kHttp));
  EXPECT_FALSE(Allowed(r, "example.com", 443, Method::kHttp));
  EXPECT_TRUE(Allowed(r, "git.example.com", 8443, Method::kConnect));
  EXPECT_FALSE(Allowed(r, "git.example.com", 443, Method::kConnect));
}

TEST(Rules, DeniedWins) {
  Rules r = Make({"*.example.com"}, {"evil.example.com", "*.bad.example.com"});
  EXPECT_TRUE(Allowed(r, "good.example.com", 443));
  EXPECT_FALSE(Allowed(r, "evil.example.com", 443));
  EXPECT_FALSE(Allowed(r, "x.bad.example.com", 443));
  auto v = DecideHost(r, *Canonicalize("evil.example.com"), 443, Method::kConnect);
  EXPECT_EQ(v.error, "denied-domain");
  EXPECT_NE(v.hint.find("evil.example.com"), std::string::npos);
}

TEST(Rules, IpLiteralsOnlyWhenListed) {
  Rules r = Make({"example.com", "203.0.113.7", "[2001:db8::1]:8443"});
  EXPECT_FALSE(Allowed(r, "93.184.216.34", 443));
  EXPECT_TRUE(Allowed(r, "203.0.113.7", 443));
  EXPECT_TRUE(Allowed(r, "0xcb007107", 443));  // same address, another spelling
  EXPECT_TRUE(Allowed(r, "[2001:db8:0::1]", 8443));
  EXPECT_FALSE(Allowed(r, "[::ffff:203.0.113.7]", 443));
  auto v = DecideHost(r, *Canonicalize("10.1.1.1"), 443, Method::kConnect);
  EXPECT_EQ(v.error, "ip-literal");
  EXPECT_NE(v.hint.find("10.1.1.1"), std::string::npos);
}

// "[2001:db8::10]" without a port allows the method's default port, like a name.
TEST(Rules, BracketedIpv6WithoutAPort) {
  Rules r = Make({"[2001:db8::10]"});
  EXPECT_TRUE(Allowed(r, "[2001:db8::10]", 443, Method::kConnect));
  EXPECT_TRUE(Allowed(r, "[2001:db8:0:0::10]", 80, Method::kHttp));
  EXPECT_FALSE(Allowed(r, "[2001:db8::10]", 8443, Method::kConnect));
}

// Unbracketed, "2001:db8::10" cannot be told from "[2001:db8::]:10"; the
// error shows the spelling that works (a YAML flow list drops the brackets).
TEST(Rules, UnbracketedIpv6EntryShowsTheBracketedSpelling) {
  for (const char* bare : {"2001:db8::10", "::1", "fe80::1:443"}) {
    auto rules = ParseRules({{bare}, {}, {}});
    ASSERT_FALSE(rules.ok()) << bare;
    EXPECT_NE(rules.error().message.find("`[" + std::string(bare) + "]`"), std::string::npos)
        << rules.error().message;
  }
}

// The proxy's errors are policy's (ParseDomainEntry, ParseCidr), with the list named.
TEST(Rules, AnErrorNamesTheListAndTheFix) {
  auto rules = ParseRules({{}, {"https://x.com/path"}, {}});
  ASSERT_FALSE(rules.ok());
  EXPECT_EQ(rules.error().message,
            "network.denied_domains: `https://x.com/path` is a URL: write the host alone, `x.com`");
  rules = ParseRules({{}, {}, {"10.0.0.0/33"}});
  ASSERT_FALSE(rules.ok());
  EXPECT_EQ(rules.error().message, "network.allow_addresses: `10.0.0.0/33` has a prefix length "
                                   "past /32: write e.g. `10.0.0.0/8`");
}

TEST(Rules, RefusalHintNamesTheLine) {
  Rules r = Make({});
  auto v = DecideHost(r, *Canonicalize("Registry.Example.org"), 8080, Method::kConnect);
  EXPECT_FALSE(v.allowed);
  EXPECT_NE(v.hint.find("'registry.example.org:8080' to network.allowed_domains"), std::string::npos);
}

TEST(Rules, BadEntriesAreConfigErrors) {
  for (const char* bad : {"*", "*.com", "*.", "**.example.com", "foo.*.com", "*example.com", "https://example.com",
                          "example.com/path", "example.com:0", "example.com:http", "example.com:0443",
                          "example.com:00", "[2001:db8::1]:0443", "example.com:", "", "*.1.2.3.4", "exa mple.com"}) {
    EXPECT_FALSE(ParseRules({{bad}, {}, {}}).ok()) << bad;
    EXPECT_FALSE(ParseRules({{}, {bad}, {}}).ok()) << bad;
  }
  EXPECT_FALSE(ParseRules({{}, {}, {"10.0.0.0/33"}}).ok());
  EXPECT_FALSE(ParseRules({{}, {}, {"localhost"}}).ok());
  EXPECT_TRUE(ParseRules({{"*.co.uk"}, {}, {"10.0.0.0/8", "fd00::/8", "127.0.0.1"}}).ok());
}

TEST(AddressPolicy, SpecialAddressesRefusedUnlessAllowed) {
  Rules none = Make({});
  for (const char* text : {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                           "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
                           "::1", "::", "::ffff:127.0.0.1", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:c0a8:101::1",
                           "2001:0:4136:e378::1", "fe80::1", "fd00::1", "ff02::1", "::127.0.0.1"}) {
    auto ip = ParseIpStrict(text);
    ASSERT_TRUE(ip) << text;
    EXPECT_TRUE(CheckAddress(none, *ip).has_value()) << text;
  }
  for (const char* text : {"8.8.8.8", "93.184.216.34", "172.32.0.1", "2606:4700::1111"}) {
    EXPECT_FALSE(CheckAddress(none, *ParseIpStrict(text)).has_value()) << text;
  }
  Rules some = Make({}, {}, {"127.0.0.2", "10.0.0.0/8", "fd00::/8"});
  EXPECT_FALSE(CheckAddress(some, *ParseIpStrict("127.0.0.2")));
  EXPECT_TRUE(CheckAddress(some, *ParseIpStrict("127.0.0.3")));
  EXPECT_FALSE(CheckAddress(some, *ParseIpStrict("10.200.0.1")));
  EXPECT_FALSE(CheckAddress(some, *ParseIpStrict("::ffff:10.0.0.1")));
  EXPECT_FALSE(CheckAddress(some, *ParseIpStrict("fd12::1")));
  auto refused = CheckAddress(some, *ParseIpStrict("169.254.169.254"));
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->reason.find("link-local"), std::string::npos);
  EXPECT_NE(refused->hint.find("network.allow_addresses"), std::string::npos);
}

TEST(AddressPolicy, ClassNames) {
  EXPECT_EQ(*SpecialAddressClass(*ParseIpStrict("::1")), "loopback");
  EXPECT_EQ(*SpecialAddressClass(*ParseIpStrict("::")), "unspecified");
  EXPECT_EQ(*SpecialAddressClass(*ParseIpStrict("::ffff:1.2.3.4")), "IPv4-mapped IPv6");
}

}  // namespace
}  // namespace corral::netfilter
