// A word of a simple command as the matcher sees it: its text after quote
// removal and brace expansion, what made it non-literal, and where it came
// from. Private to policy/matcher/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "policy/shell/shell.h"

namespace corral::policy {

struct Arg {
  std::string_view text;      // kExpansionMark where an expansion stands
  std::uint32_t flags = 0;    // shell::WordFlag
  std::string_view var;       // the variable when the word is exactly $NAME
  std::size_t raw_begin = 0;  // range in the parsed source (for nested parses)
  std::size_t raw_end = 0;
  std::size_t begin = 0;      // range in the original command line
  std::size_t end = 0;

  // True when the shell will see exactly `text`.
  bool literal() const {
    return (flags & (shell::kExpansion | shell::kGlob | shell::kTilde | shell::kBrace)) == 0;
  }
  // True when the word may expand to several words (or none) at run time.
  bool splits() const { return (flags & (shell::kUnquotedExpansion | shell::kGlob)) != 0; }
  bool option() const { return text.size() > 1 && text[0] == '-'; }
};

// Whether a non-literal word could turn out to be `wanted`: its literal
// prefix and suffix (around the parts only known at run time) must fit.
inline bool CouldBe(const Arg& arg, std::string_view wanted) {
  std::string_view text = arg.text;
  auto special = [&](char c) {
    return c == shell::kExpansionMark ||
           ((arg.flags & shell::kGlob) && (c == '*' || c == '?' || c == '['));
  };
  std::size_t first = 0;
  while (first < text.size() && !special(text[first])) ++first;
  if (first == text.size()) return text == wanted;
  std::size_t last = text.size();
  while (last > first && !special(text[last - 1])) --last;
  std::string_view prefix = text.substr(0, first);
  std::string_view suffix = text.substr(last);
  return wanted.size() >= prefix.size() + suffix.size() && wanted.starts_with(prefix) &&
         wanted.ends_with(suffix);
}

}  // namespace corral::policy
