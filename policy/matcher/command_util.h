// Small helpers shared by the walker's handler files. Private to policy/matcher/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <initializer_list>
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include "policy/shell/shell.h"

namespace corral::policy {

inline bool OneOf(std::string_view word, std::initializer_list<std::string_view> list) {
  // Length and first byte before memcmp: asked for nearly every word, and
  // most compare unequal at once.
  for (std::string_view item : list) {
    if (item.size() == word.size() && (word.empty() || item[0] == word[0]) && item == word) {
      return true;
    }
  }
  return false;
}

// The option that gives an interpreter inline code ("-c" for python, "-e"
// for perl, ...), "" when `name` is not one.
std::string_view InlineCodeFlag(std::string_view name);

// Shells: given no code, they read commands from standard input.
bool IsShellName(std::string_view name);
std::span<const std::string_view> ShellNames();

// The language a program reads its code in, by the program's name.
enum class Language : std::uint8_t {
  kShell, kPython, kNode, kPerl, kRuby, kAwk, kPhp, kLua, kTcl, kOther,
};
Language LanguageOf(std::string_view program);
// A program name for the language (the interpreter ScanInlineCode expects).
std::string_view LanguageName(Language language);

// The text a heredoc gives its command: the body as written when the
// delimiter was quoted, else with \$ \` \\ and \newline undone.
std::string HeredocText(const shell::SimpleCommand& command, const shell::Redirect& heredoc);

// Lines of a text, without their newlines.
std::vector<std::string> SplitLines(std::string_view text);

// What printf FORMAT ARGS prints (%s %b %d %c %q and escapes; the format is
// reused while arguments remain).
std::string PrintfOutput(std::string_view format, std::span<const std::string_view> args);

// The redirection standard input reads from (the last one wins, as in the
// shell), or nullptr.
const shell::Redirect* StdinRedirect(const shell::SimpleCommand& command);

// Splits env -S text (and git alias values) into words: blanks separate,
// quotes group, a backslash escapes.
std::vector<std::string> SplitEnvString(std::string_view text);

// The descriptor a path names in the process that runs it: /dev/fd/N,
// /dev/stdin (0), /dev/stdout, /dev/stderr, /proc/self/fd/N,
// /proc/thread-self/fd/N, however written (/proc/./self//fd/N).
std::optional<int> DescriptorPath(std::string_view path);

}  // namespace corral::policy
