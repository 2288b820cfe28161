#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace corral {

// `s` without the leading and trailing characters in `blanks` (by default
// spaces, tabs and line ends; a caller names its own set where it differs).
constexpr std::string_view Trim(std::string_view s, std::string_view blanks = " \t\r\n") {
  std::size_t first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

// `text` in single quotes for a message: bytes that are not printable ASCII
// as \xNN, and cut after `shown` bytes, since it may come from anyone.
inline std::string Quoted(std::string_view text, std::size_t shown = 200) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < shown; ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[i];
    } else {
      out += "\\x";
      out += "0123456789abcdef"[byte >> 4];
      out += "0123456789abcdef"[byte & 15];
    }
  }
  return out + (text.size() > shown ? "...'" : "'");
}

// ASCII letters in lower case; other bytes as they are.
inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Levenshtein distance, for "did you mean" suggestions.
inline std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate nearest to `typed` when it is a likely typo (distance under
// about a third of its length, at most 3 edits), else "".
template <class Range>
std::string Nearest(std::string_view typed, const Range& candidates) {
  std::string best;
  std::size_t limit = std::clamp<std::size_t>(typed.size() / 3 + 2, 2, 4);
  for (const auto& candidate : candidates) {
    std::size_t d = EditDistance(typed, candidate);
    if (d < limit) {
      limit = d;
      best = std::string(candidate);
    }
  }
  return best;
}

}  // namespace corral
