#include "policy/matcher/deny_list.h"

#include <algorithm>

namespace corral::policy {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsShortBundle(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg[1] == '-') return false;
  return std::all_of(arg.begin() + 1, arg.end(), IsAlnum);
}

// git push spellings that force: --force, -f, bundles such as -fu, a
// refspec with a leading '+' (git push origin +main), and --mirror (or an
// abbreviation git accepts, --mirro), which force-updates and deletes remote refs.
bool ForcesPush(std::string_view arg) {
  if (WordMatches("--force", arg) || WordMatches("-f", arg) || WordMatches("--mirror", arg)) {
    return true;
  }
  return arg.size() > 1 && arg[0] == '+';
}

}  // namespace

Result<DenyList> DenyList::Compile(const std::vector<std::string>& lines) {
  DenyList list;
  for (const std::string& raw : lines) {
    std::string_view line = raw;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    if (line.empty()) return Error("deny list: an entry is empty; remove the blank entry");
    if (line.find_first_of(";&|<>()$`'\"\\*?[]{}\n#") != std::string_view::npos) {
      return Error("deny list: entry \"" + std::string(line) +
                   "\" is not a plain list of words; write the command and its words "
                   "separated by spaces, without quotes or shell operators");
    }
    DenyEntry entry;
    entry.line = std::string(line);
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      std::size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
      if (i > start) entry.words.emplace_back(line.substr(start, i - start));
    }
    std::string command(shell::Basename(entry.words[0]));
    if (command.empty()) {
      return Error("deny list: entry \"" + entry.line + "\" does not name a command");
    }
    entry.words[0] = command;
    list.by_command_[command].push_back(list.entries_.size());
    list.entries_.push_back(std::move(entry));
  }
  return list;
}

const std::vector<std::size_t>* DenyList::ForCommand(std::string_view name) const {
  if (by_command_.empty()) return nullptr;
  auto it = by_command_.find(name);
  return it == by_command_.end() ? nullptr : &it->second;
}

bool WordMatches(std::string_view wanted, std::string_view arg) {
  if (wanted == arg) return true;
  if (wanted.size() == 2 && wanted[0] == '-' && IsAlnum(wanted[1])) {
    return IsShortBundle(arg) && arg.find(wanted[1], 1) != std::string_view::npos;
  }
  if (wanted.size() > 2 && wanted.starts_with("--") && arg.starts_with("--")) {
    std::size_t eq = arg.find('=');
    std::string_view name = arg.substr(0, eq);
    if (eq != std::string_view::npos) return name == wanted;
    // getopt_long accepts unambiguous abbreviations; treat any as a match.
    return arg.size() >= 4 && wanted.starts_with(arg);
  }
  return false;
}

EntryMatch MatchEntry(const DenyEntry& entry, std::span<const Arg> args, bool force_push) {
  EntryMatch match;
  const std::size_t need = entry.words.size();
  std::size_t exact = 1;     // entry words matched by literal arguments
  std::size_t possible = 1;  // ... when run-time words may take any value
  for (std::size_t i = 1; i < args.size() && exact < need; ++i) {
    const Arg& arg = args[i];
    if (arg.literal()) {
      auto fits = [&](std::string_view wanted) {
        if (WordMatches(wanted, arg.text)) return true;
        return force_push && (wanted == "--force" || wanted == "-f") && ForcesPush(arg.text);
      };
      // While no run-time word has helped, both counts ask about the same word.
      bool same = exact == possible;
      bool fits_exact = fits(entry.words[exact]);
      if (fits_exact) {
        match.positions.push_back(i);
        ++exact;
      }
      if (possible < need && (same ? fits_exact : fits(entry.words[possible]))) ++possible;
      continue;
    }
    if (possible >= need) continue;
    if (arg.flags & shell::kUnquotedExpansion) {
      // Field splitting can turn it into any words at all.
      possible = need;
    } else if (arg.flags & shell::kGlob) {
      // File names matching the pattern, any number of them.
      for (std::size_t j = possible; j < need; ++j) {
        if (CouldBe(arg, entry.words[j])) {
          possible = need;
          break;
        }
      }
    } else if (CouldBe(arg, entry.words[possible])) {
      ++possible;
    }
  }
  if (exact >= need) {
    match.result = ArgMatch::kYes;
  } else {
    match.positions.clear();
    match.result = possible >= need ? ArgMatch::kPossible : ArgMatch::kNo;
  }
  return match;
}

}  // namespace corral::policy
