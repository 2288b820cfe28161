// Shared helpers for the matcher tests: the default list compiled once, and
// a table row type whose failure message shows the command and the reason.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "policy/matcher/matcher.h"

namespace corral::policy::testing {

inline const std::vector<std::string>& DefaultList() {
  static const std::vector<std::string> list = {
      "aws",     "gcloud", "az",    "railway", "fly",     "flyctl",           "kubectl",
      "terraform", "pulumi", "psql", "mysql",  "mongosh", "redis-cli", "git push --force",
      "git push -f"};
  return list;
}

inline const Matcher& DefaultMatcher() {
  static const Matcher matcher = std::move(Matcher::Create(DefaultList()).value());
  return matcher;
}

struct Case {
  std::string command;
  Finding finding;
  std::string entry;  // for kListed
};

inline std::ostream& operator<<(std::ostream& out, const Case& c) {
  return out << "`" << c.command << "`";
}

inline const char* Name(Finding f) {
  switch (f) {
    case Finding::kNone: return "none";
    case Finding::kListed: return "listed";
    case Finding::kUndetermined: return "undetermined";
  }
  return "?";
}

inline void ExpectCase(const Matcher& matcher, const Case& c) {
  MatchResult r = matcher.Check(c.command);
  EXPECT_STREQ(Name(r.finding), Name(c.finding)) << c.command << "\n  reason: " << r.reason;
  if (c.finding == Finding::kListed) {
    EXPECT_EQ(r.entry, c.entry) << c.command;
  }
  for (const MatchedWord& w : r.words) {
    EXPECT_LE(w.offset + w.length, c.command.size()) << c.command;
  }
}

inline Case L(std::string command, std::string entry) {
  return {std::move(command), Finding::kListed, std::move(entry)};
}
inline Case U(std::string command) { return {std::move(command), Finding::kUndetermined, ""}; }
inline Case N(std::string command) { return {std::move(command), Finding::kNone, ""}; }

}  // namespace corral::policy::testing
