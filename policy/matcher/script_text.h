// Small text helpers shared by the little-language readers (tool_scripts*.cc).
// Private to policy/matcher/.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "base/base.h"
#include "policy/matcher/tool_scripts.h"

namespace corral::policy::script_text {

// Past this many places of one kind, a text is not read further (each would
// be scanned to its end): it counts as running unknown commands.
inline constexpr int kMaxPlaces = 64;

inline bool Digit(char c) { return c >= '0' && c <= '9'; }
inline bool Letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool Blank(char c) { return c == ' ' || c == '\t'; }

// Blanks and carriage returns around a script's line.
inline std::string_view Trim(std::string_view s) { return corral::Trim(s, " \t\r"); }

inline void Unknown(ScriptCommands& out, std::string why) {
  if (!out.unknown) out.why = std::move(why);
  out.unknown = true;
}

// The text between `open` at text[at] and its matching `close`, or the rest.
inline std::string_view Balanced(std::string_view text, std::size_t at, char open, char close) {
  int depth = 0;
  for (std::size_t i = at; i < text.size(); ++i) {
    if (text[i] == open) ++depth;
    if (text[i] == close && --depth == 0) return text.substr(at + 1, i - at - 1);
  }
  return text.substr(std::min(at + 1, text.size()));
}

}  // namespace corral::policy::script_text
