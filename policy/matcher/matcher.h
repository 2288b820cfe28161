// policy/matcher/: the deny-list matcher over shell command lines (what the
// static shim links, besides policy/shell/): the walker and its handlers,
// the deny list, the dangerous patterns, the code that interpreters and tools
// run.
// The one public header of policy/matcher/ (docs/architecture.md).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/base.h"

namespace corral::policy {

// A word of the input that took part in a match, as the shell sees it after
// quote removal, with its byte range in the original command text.
struct MatchedWord {
  std::string text;
  std::size_t offset = 0;
  std::size_t length = 0;
};

enum class Finding {
  kNone,          // nothing on the list
  kListed,        // a deny-list entry matched
  kUndetermined,  // a program could not be known before running (or a limit hit)
};

struct DangerousMatch {
  std::string category;     // e.g. "recursive-remove", "pipe-to-shell"
  std::string description;  // one line, for people
};

struct MatchResult {
  Finding finding = Finding::kNone;
  std::string entry;               // the list line that matched (kListed)
  std::vector<MatchedWord> words;  // words that matched it, in order
  // kListed: the simple command the entry matched, as the shell runs it (an
  // eval's or bash -c's inner one, a wrapper's command): its words after
  // quote removal, quoted again where a shell would need it, "$NAME" for a
  // variable, "…" for another expansion. Cut after kMaxCommandWords words.
  std::string command;
  std::string reason;              // why: listed / undetermined, in words
  std::optional<DangerousMatch> dangerous;
};

inline constexpr std::size_t kMaxCommandWords = 32;

// `word` as a shell would need it written to read it back as one word.
std::string QuoteWord(std::string_view word);

// A compiled deny list. Thread-safe to share; Check never throws, crashes or
// takes super-linear time, and fails closed (kUndetermined) past its limits.
class Matcher {
 public:
  // Entries are deny-list lines ("git push --force"); an empty line or one
  // that is not a plain list of words is an error naming it.
  static Result<Matcher> Create(const std::vector<std::string>& entries);

  MatchResult Check(std::string_view command) const;
  bool empty() const;
  // Whether an entry's command is `name` (a basename): a command line can be
  // listed by its own first word only then, so a caller that has one
  // program's name may skip Check when this says no.
  bool ListsCommand(std::string_view name) const;

  Matcher(Matcher&&) noexcept;
  Matcher& operator=(Matcher&&) noexcept;
  ~Matcher();

 private:
  struct Impl;
  explicit Matcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The built-in deny list (docs/deny-list.md).
const std::vector<std::string>& DefaultDenyList();

// Reads a deny-list file: one entry per line, blank lines and lines starting
// with '#' ignored.
Result<std::vector<std::string>> ReadDenyListFile(const std::string& path);

}  // namespace corral::policy
