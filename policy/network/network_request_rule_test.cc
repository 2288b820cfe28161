#include <gtest/gtest.h>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

TEST(ParseRuleTest, Forms) {
  auto rule = ParseRequestRule("api.internal.example GET,HEAD /v1/**");
  ASSERT_TRUE(rule.ok()) << rule.error().message;
  EXPECT_FALSE(rule->deny);
  EXPECT_EQ(rule->host, "api.internal.example");
  EXPECT_EQ(rule->methods, (std::vector<std::string>{"GET", "HEAD"}));
  EXPECT_EQ(rule->path, (std::vector<std::string>{"v1", "**"}));
  EXPECT_EQ(rule->text, "api.internal.example GET,HEAD /v1/**");

  auto deny = ParseRequestRule("  deny  API.Internal.Example  DELETE  /** ");
  ASSERT_TRUE(deny.ok()) << deny.error().message;
  EXPECT_TRUE(deny->deny);
  EXPECT_EQ(deny->host, "api.internal.example");

  auto wildcard = ParseRequestRule("allow *.corp.example:8443 * /graphql");
  ASSERT_TRUE(wildcard.ok()) << wildcard.error().message;
  EXPECT_TRUE(wildcard->wildcard);
  EXPECT_EQ(wildcard->host, "corp.example");
  EXPECT_EQ(wildcard->port, 8443);
  EXPECT_TRUE(wildcard->methods.empty());

  auto root = ParseRequestRule("h.example GET /");
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(root->path.empty());
  EXPECT_TRUE(ParseRequestRule("h.example GET /v1/*.json").ok());
  EXPECT_TRUE(ParseRequestRule("h.example PROPFIND /dav/**").ok());
}

struct BadRule {
  std::string_view text;
  std::string_view message_has;
};

TEST(ParseRuleTest, Errors) {
  const BadRule cases[] = {
      {"h.example GETT /", "'GETT' is not an HTTP method; did you mean GET?"},
      {"h.example FROB /", "'FROB' is not an HTTP method; write one such as GET"},
      {"h.example get /", "'get' is in lower case; HTTP methods are case-sensitive: write GET"},
      {"h.example GET,,HEAD /", "empty name"},
      {"h.example GET,* /", "'*' stands alone"},
      {"h.example G@T /", "'G@T' is not an HTTP method"},
      {"h.example GET v1", "a path starts with '/'"},
      {"h.example GET /v1/**x", "'**' must be a whole segment"},
      {"h.example GET /v1/**x", "is written '*x'"},
      {"h.example GET /v1/a**", "'**' must be a whole segment"},
      {"h.example GET /v1?x=1", "a rule judges the path only: write '/v1'"},
      {"h.example GET /v1/", "ends with '/'; write '/v1'"},
      {"h.example GET /v1//x", "empty segment"},
      {"h.example GET /v1/../x", "'..' segment"},
      {"h.example GET /v1%2fx", "unescaped"},
      {"h.example GET /v1;x", "';'"},
      {"h.example GET", "has 2 parts; a rule is written '[allow|deny] HOST METHODS PATH'"},
      {"", "has 0 parts"},
      {"permit h.example GET /", "'permit' is neither 'allow' nor 'deny'"},
      {"allow h.example GET / extra", "has 5 parts"},
      {"https://h.example GET /", "is a URL"},
      {"* GET /", "not a host name"},
      {"*.com GET /", "every host under a top-level domain"},
      {"h.*.example GET /", "'*' may only begin a name"},
      {"h_x.example GET /", "not a host name"},
      {"h.example:0 GET /", "port"},
      {"h.example:65536 GET /", "port"},
      {"h.example:080 GET /", "port"},
      {"h..example GET /", "not a host name"},
  };
  for (const BadRule& c : cases) {
    auto rule = ParseRequestRule(c.text);
    ASSERT_FALSE(rule.ok()) << c.text;
    EXPECT_NE(rule.error().message.find(c.message_has), std::string::npos)
        << c.text << " -> " << rule.error().message;
  }
}

}  // namespace
}  // namespace corral::policy
