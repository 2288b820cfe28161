// The compiled deny list: entries indexed by the basename of their command,
// and the rule that matches an entry's other words against a command's
// arguments. Private to policy/matcher/.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/base.h"
#include "policy/matcher/command_word.h"
#include "policy/matcher/name_hash.h"

namespace corral::policy {

struct DenyEntry {
  std::string line;                // as the user wrote it, trimmed
  std::vector<std::string> words;  // words[0] is the command's basename
};

enum class ArgMatch { kNo, kYes, kPossible };

struct EntryMatch {
  ArgMatch result = ArgMatch::kNo;
  std::vector<std::size_t> positions;  // indices of the matching arguments (kYes)
};

class DenyList {
 public:
  static Result<DenyList> Compile(const std::vector<std::string>& lines);

  bool empty() const { return entries_.empty(); }
  const DenyEntry& entry(std::size_t index) const { return entries_[index]; }
  // Indices of the entries whose command is `name`, in list order.
  const std::vector<std::size_t>* ForCommand(std::string_view name) const;

 private:
  std::vector<DenyEntry> entries_;
  std::unordered_map<std::string, std::vector<std::size_t>, NameHash, std::equal_to<>> by_command_;
};

// Matches entry words [1..] in order against args [1..] (args[0] is the
// command). Literal words must match; non-literal ones may make it possible.
// `force_push` adds git push's equivalent spellings of --force / -f.
EntryMatch MatchEntry(const DenyEntry& entry, std::span<const Arg> args, bool force_push);

// One argument against one entry word, as the program would read it:
// equal, a short-option bundle holding the letter (-fu for -f), an
// abbreviated or valued long option (--forc, --force=x for --force).
bool WordMatches(std::string_view wanted, std::string_view arg);

}  // namespace corral::policy
