// Brace expansion ({a,b}, {1..3}) of a word whose unquoted braces the lexer
// marked. Private to policy/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace corral::policy {

// Appends the words `text` expands to. False when there would be more than
// `limit` of them (the output is then incomplete).
bool ExpandBraces(std::string_view text, std::size_t limit, std::vector<std::string>* out);

// The text with brace marks turned back into { , }.
std::string RestoreBraceMarks(std::string_view text);

}  // namespace corral::policy
