#include "fuzz/matcher_fuzz_check.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "policy/matcher/matcher.h"

namespace corral::fuzz {
namespace {

const policy::Matcher& DefaultMatcher() {
  static const policy::Matcher matcher =
      std::move(policy::Matcher::Create(
                    {"aws", "gcloud", "az", "railway", "fly", "flyctl", "kubectl", "terraform",
                     "pulumi", "psql", "mysql", "mongosh", "redis-cli", "git push --force",
                     "git push -f"})
                    .value());
  return matcher;
}

void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "matcher invariant broken: %s\n", what);
  std::abort();
}

void CheckInvariants(std::string_view command) {
  policy::MatchResult r = DefaultMatcher().Check(command);
  for (const policy::MatchedWord& word : r.words) {
    Require(word.offset <= command.size(), "word offset inside the input");
    Require(word.length <= command.size() - word.offset, "word inside the input");
  }
  Require((r.finding == policy::Finding::kListed) == !r.entry.empty(), "entry iff listed");
  Require(r.finding == policy::Finding::kNone || !r.reason.empty(), "a finding has a reason");
  if (r.dangerous) Require(!r.dangerous->category.empty(), "dangerous has a category");
}

}  // namespace

void CheckOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view command(reinterpret_cast<const char*>(data), size);
  CheckInvariants(command);
  // A listed command appended after the input must never be missed unless
  // the input leaves the shell inside a quote, heredoc or comment; when the
  // input parses and ends at a command boundary the answer must be listed.
  std::string probe = std::string(command) + "\n;aws";
  policy::MatchResult r = DefaultMatcher().Check(probe);
  Require(r.finding != policy::Finding::kNone || command.find_first_of("'\"`#<\\$") !=
                                                     std::string_view::npos,
          "a listed command after a plain input is found");
}

}  // namespace corral::fuzz
