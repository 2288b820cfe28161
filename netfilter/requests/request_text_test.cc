#include <gtest/gtest.h>

#include "netfilter/requests/request_text.h"

namespace corral::netfilter::requests {
namespace {

using Segments = std::vector<std::string>;

TEST(ResolvePathTest, AsServersResolve) {
  struct Case {
    std::string_view target;
    Segments path;
  } cases[] = {
      {"/", {}},
      {"/a/b?c=/d", {"a", "b"}},
      {"/a/./b/../c", {"a", "c"}},
      {"//a///b/", {"a", "b"}},
      {"/%61/%2E%2e/b", {"b"}},
      {"/@types%40x", {"@types@x"}},
  };
  for (const auto& c : cases) {
    auto path = ResolvePath(c.target);
    ASSERT_TRUE(path.ok()) << c.target << ": " << path.error().message;
    EXPECT_EQ(*path, c.path) << c.target;
  }
}

TEST(ResolvePathTest, RefusedNotGuessed) {
  for (std::string_view target :
       {"",       "x",    "*",   "/a%2fb",   "/a%2Fb", "/a%5cb",          "/a%25",
        "/a%3bb", "/a;b", "/a%", "/a%g1",    "/a%0a",  "/a%c3%a9",        "/a\\b",
        "/a#b",   "/a b", "/..", "/a/../..", "/a//..", "/a/%2e%2e/%2e%2e"}) {
    EXPECT_FALSE(ResolvePath(target).ok()) << target;
  }
}

TEST(QueryTest, MethodParameter) {
  EXPECT_TRUE(HasQueryParameter("_method=PUT", "_method"));
  EXPECT_TRUE(HasQueryParameter("a=1;_method=PUT", "_method"));
  EXPECT_TRUE(HasQueryParameter("a&%5f%6detHod", "_method"));
  EXPECT_FALSE(HasQueryParameter("method=PUT&x=_method", "_method"));
  EXPECT_FALSE(HasQueryParameter("", "_method"));
  EXPECT_EQ(QueryOf("/a?b?c"), "b?c");
  EXPECT_EQ(QueryOf("/a"), "");
}

TEST(PathMatchesTest, Globs) {
  struct Case {
    Segments pattern;
    Segments path;
    bool matches;
  } cases[] = {
      {{"v1", "**"}, {"v1"}, true},
      {{"v1", "**"}, {"v1", "a", "b"}, true},
      {{"v1", "**"}, {"v2", "a"}, false},
      {{"v1", "*"}, {"v1"}, false},
      {{"v1", "*"}, {"v1", "a"}, true},
      {{"v1", "*"}, {"v1", "a", "b"}, false},
      {{"**", "x"}, {"a", "b", "x"}, true},
      {{"**", "x", "**"}, {"x"}, true},
      {{"a*c"}, {"abbc"}, true},
      {{"a*c"}, {"abbd"}, false},
      {{"*.json"}, {"x.json"}, true},
      {{"-", "npm", "v1", "security", "audits"},
       {"-", "npm", "v1", "security", "audits", "x"},
       false},
      {{}, {}, true},
      {{}, {"a"}, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(PathMatches(c.pattern, c.path, false), c.matches);
  }
  EXPECT_TRUE(PathMatches({"Admin"}, {"aDMIN"}, true));
  EXPECT_FALSE(PathMatches({"Admin"}, {"aDMIN"}, false));
}

}  // namespace
}  // namespace corral::netfilter::requests
