#include "netfilter/requests/request_text.h"

#include <cstddef>

namespace corral::netfilter::requests {
namespace {

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A byte a server may read as structure rather than a name's character: where
// a proxy and a server disagree about it, a request goes past its rule.
bool IsPathStructure(unsigned char c) {
  return c == '/' || c == '\\' || c == '?' || c == '#' || c == '%' || c == ';' || IsControl(c) ||
         c >= 0x80;
}

Result<std::string> DecodeSegment(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out += raw[i];
      continue;
    }
    int high = i + 2 < raw.size() ? HexValue(raw[i + 1]) : -1;
    int low = i + 2 < raw.size() ? HexValue(raw[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return Error(Quoted(raw.substr(i, 3)) + " is not a %-escape (two hex digits)");
    }
    auto byte = static_cast<unsigned char>(high * 16 + low);
    if (IsPathStructure(byte)) {
      return Error(Quoted(raw.substr(i, 3)) +
                   " escapes a character servers read differently ('/', '\\', '%', ';', a "
                   "control or non-ASCII byte)");
    }
    out += static_cast<char>(byte);
    i += 2;
  }
  return out;
}

// Dot segments resolved; with `keep_empty` the empty segments take part as RFC
// 3986 says ("a//.." is "a/"), without they are dropped first, as servers that
// merge slashes do.
Result<std::vector<std::string>> RemoveDotSegments(const std::vector<std::string>& decoded,
                                                   bool keep_empty) {
  std::vector<std::string> out;
  for (const std::string& segment : decoded) {
    if (segment.empty() && !keep_empty) continue;
    if (segment == ".") continue;
    if (segment == "..") {
      if (out.empty()) return Error("'..' climbs above the root");
      out.pop_back();
      continue;
    }
    out.push_back(segment);
  }
  std::erase(out, std::string());
  return out;
}

// `*` in `pattern` matches any run of characters.
bool SegmentMatches(std::string_view pattern, std::string_view text, bool ignore_case) {
  auto same = [&](char a, char b) {
    if (!ignore_case) return a == b;
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(a) == lower(b);
  };
  // Greedy with one backtrack point: linear enough for one segment.
  std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && same(pattern[p], text[t])) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && AsciiLower(a) == AsciiLower(b);
}

Result<std::vector<std::string>> ResolvePath(std::string_view target) {
  if (target.empty() || target[0] != '/') {
    return Error("the request target " + Quoted(target) + " is not a path beginning with '/'");
  }
  std::string_view path = target.substr(0, target.find('?'));
  for (char c : path) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '#' || c == '\\' || c == ';' || c == ' ' || IsControl(byte) || byte >= 0x80) {
      return Error("the path " + Quoted(path) +
                   " holds a '#', '\\', ';', space, control or non-ASCII byte, which servers "
                   "read differently");
    }
  }
  std::vector<std::string> decoded;
  for (std::size_t start = 1;;) {
    std::size_t slash = path.find('/', start);
    auto segment = DecodeSegment(path.substr(start, slash - start));
    if (!segment) return segment.error().Context("the path " + Quoted(path));
    decoded.push_back(std::move(*segment));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  auto as_rfc = RemoveDotSegments(decoded, /*keep_empty=*/true);
  auto merged = RemoveDotSegments(decoded, /*keep_empty=*/false);
  if (!as_rfc || !merged)
    return (!as_rfc ? as_rfc : merged).error().Context("the path " + Quoted(path));
  if (*as_rfc != *merged) {
    return Error("the path " + Quoted(path) +
                 " resolves to two paths, depending on whether a server merges doubled slashes "
                 "before '..'");
  }
  return std::move(*as_rfc);
}

std::string_view QueryOf(std::string_view target) {
  std::size_t question = target.find('?');
  return question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
}

bool HasQueryParameter(std::string_view query, std::string_view name) {
  // Both '&' and ';' separate parameters in some server's reading.
  for (std::size_t start = 0; start <= query.size();) {
    std::size_t end = query.find_first_of("&;", start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view pair = query.substr(start, end - start);
    std::string_view raw = pair.substr(0, pair.find('='));
    std::string decoded;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      int high = raw[i] == '%' && i + 2 < raw.size() ? HexValue(raw[i + 1]) : -1;
      int low = raw[i] == '%' && i + 2 < raw.size() ? HexValue(raw[i + 2]) : -1;
      if (high >= 0 && low >= 0) {
        decoded += static_cast<char>(high * 16 + low);
        i += 2;
      } else {
        decoded += raw[i] == '+' ? ' ' : raw[i];
      }
    }
    // "_method[]" and "_method " read as _method by some frameworks.
    std::string_view bare = decoded;
    while (!bare.empty() && (bare.back() == ' ' || bare.back() == ']' || bare.back() == '[')) {
      bare.remove_suffix(1);
    }
    if (EqualsIgnoringCase(bare, name)) return true;
    start = end + 1;
  }
  return false;
}

bool PathMatches(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
                 bool ignore_case) {
  // matched[j]: pattern[0..i) matches path[0..j). One row per pattern segment.
  std::vector<char> matched(path.size() + 1, 0);
  matched[0] = 1;
  for (const std::string& piece : pattern) {
    std::vector<char> next(path.size() + 1, 0);
    if (piece == "**") {
      char any = 0;
      for (std::size_t j = 0; j <= path.size(); ++j) {
        any = any || matched[j];
        next[j] = any;
      }
    } else {
      for (std::size_t j = 1; j <= path.size(); ++j) {
        next[j] = matched[j - 1] && SegmentMatches(piece, path[j - 1], ignore_case);
      }
    }
    matched = std::move(next);
  }
  return matched[path.size()] != 0;
}

}  // namespace corral::netfilter::requests
