// Resolved REST paths against the patterns of the rule table in
// github_rest.cc. Private to netfilter/forge.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corral::netfilter::forge::rest {

bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string AsciiLower(std::string_view s);

// The segments with a decoded '/' split there (GitHub may route it as one)
// and one trailing empty segment ("/repos/o/r/") dropped; nullopt when an
// empty segment remains, which no REST route has.
std::optional<std::vector<std::string>> SplitSegments(const std::vector<std::string>& segments);

// Whether `segments` match `pattern`, written "/a/*/b|c/**": * and {name} are
// one segment, ** any number, b|c either; literals ignore case.
bool PathMatches(std::string_view pattern, const std::vector<std::string>& segments);

// GitHub's owner and repository names: [A-Za-z0-9._-], 1 to 100 characters,
// not all dots.
bool ValidRepoName(std::string_view name);

}  // namespace corral::netfilter::forge::rest
