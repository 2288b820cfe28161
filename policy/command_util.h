// Small helpers shared by the walker's handler files. Private to policy/.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "policy/shell_parser.h"

namespace corral::policy {

inline bool OneOf(std::string_view word, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// The option that gives an interpreter inline code ("-c" for python, "-e"
// for perl, ...), "" when `name` is not one.
std::string_view InlineCodeFlag(std::string_view name);

// The redirection standard input reads from (the last one wins, as in the
// shell), or nullptr.
const shell::Redirect* StdinRedirect(const shell::SimpleCommand& command);

// Splits env -S text (and git alias values) into words: blanks separate,
// quotes group, a backslash escapes.
std::vector<std::string> SplitEnvString(std::string_view text);

}  // namespace corral::policy
