#include "netfilter/forge/github_rest_path.h"

#include <cstddef>
#include <span>

namespace corral::netfilter::forge::rest {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    std::size_t end = s.find(separator, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// Literal segments match without regard to case: a refusal that GitHub's
// router would not take is harmless, one it would take and we missed is not.
bool SegmentMatches(std::string_view pattern, std::string_view segment) {
  if (pattern == "*" || pattern.starts_with('{')) return true;
  for (std::string_view alternative : Split(pattern, '|')) {
    if (EqualsIgnoreCase(alternative, segment)) return true;
  }
  return false;
}

// Patterns hold at most two "**", so the backtracking stays quadratic.
bool Matches(std::span<const std::string_view> pattern, std::span<const std::string> segments) {
  if (pattern.empty()) return segments.empty();
  if (pattern[0] == "**") {
    for (std::size_t skip = 0; skip <= segments.size(); ++skip) {
      if (Matches(pattern.subspan(1), segments.subspan(skip))) return true;
    }
    return false;
  }
  return !segments.empty() && SegmentMatches(pattern[0], segments[0]) &&
         Matches(pattern.subspan(1), segments.subspan(1));
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

std::optional<std::vector<std::string>> SplitSegments(const std::vector<std::string>& segments) {
  std::vector<std::string> out;
  for (const std::string& segment : segments) {
    for (std::string_view part : Split(segment, '/')) out.emplace_back(part);
  }
  if (!out.empty() && out.back().empty()) out.pop_back();
  for (const std::string& segment : out) {
    if (segment.empty()) return std::nullopt;
  }
  return out;
}

bool PathMatches(std::string_view pattern, const std::vector<std::string>& segments) {
  if (pattern.starts_with('/')) pattern.remove_prefix(1);
  std::vector<std::string_view> parts;
  if (!pattern.empty()) parts = Split(pattern, '/');
  return Matches(parts, segments);
}

bool ValidRepoName(std::string_view name) {
  if (name.empty() || name.size() > 100) return false;
  if (name.find_first_not_of('.') == std::string_view::npos) return false;  // ".", ".."
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace corral::netfilter::forge::rest
