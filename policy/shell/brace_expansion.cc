#include "policy/shell/shell.h"

#include <charconv>
#include <cstdlib>


namespace corral::policy {
namespace {

using shell::kBraceClose;
using shell::kBraceComma;
using shell::kBraceOpen;

bool ParseInt(std::string_view text, long* value) {
  if (text.empty() || text.size() > 9) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

enum class Seq { kInvalid, kOk, kTooMany };

// {x..y} and {x..y..step} over integers or single letters.
Seq Sequence(std::string_view body, std::size_t limit, std::vector<std::string>* items) {
  std::size_t dots = body.find("..");
  if (dots == std::string_view::npos) return Seq::kInvalid;
  std::string_view from = body.substr(0, dots);
  std::string_view rest = body.substr(dots + 2);
  long step = 1;
  std::size_t dots2 = rest.find("..");
  std::string_view to = rest.substr(0, dots2);
  if (dots2 != std::string_view::npos && !ParseInt(rest.substr(dots2 + 2), &step)) return Seq::kInvalid;
  step = std::labs(step == 0 ? 1 : step);
  long a = 0;
  long b = 0;
  bool letters = false;
  if (!ParseInt(from, &a) || !ParseInt(to, &b)) {
    if (from.size() != 1 || to.size() != 1) return Seq::kInvalid;
    a = static_cast<unsigned char>(from[0]);
    b = static_cast<unsigned char>(to[0]);
    letters = true;
  }
  long count = std::labs(b - a) / step + 1;
  if (static_cast<std::size_t>(count) > limit) return Seq::kTooMany;
  for (long v = a, n = 0; n < count; ++n, v += (b >= a ? step : -step)) {
    items->push_back(letters ? std::string(1, static_cast<char>(v)) : std::to_string(v));
  }
  return Seq::kOk;
}

bool Expand(const std::string& text, std::size_t limit, std::vector<std::string>* out,
            int depth) {
  if (depth > 64) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != kBraceOpen) continue;
    int level = 0;
    std::size_t close = std::string::npos;
    std::vector<std::size_t> commas;
    for (std::size_t j = i; j < text.size(); ++j) {
      if (text[j] == kBraceOpen) ++level;
      if (text[j] == kBraceComma && level == 1) commas.push_back(j);
      if (text[j] == kBraceClose && --level == 0) {
        close = j;
        break;
      }
    }
    if (close == std::string::npos) continue;
    std::vector<std::string> items;
    if (!commas.empty()) {
      std::size_t start = i + 1;
      for (std::size_t comma : commas) {
        items.push_back(text.substr(start, comma - start));
        start = comma + 1;
      }
      items.push_back(text.substr(start, close - start));
    } else {
      Seq seq = Sequence(text.substr(i + 1, close - i - 1), limit, &items);
      if (seq == Seq::kTooMany) return false;
      if (seq == Seq::kInvalid) continue;  // not an expansion: stays literal
    }
    std::string prefix = text.substr(0, i);
    std::string suffix = text.substr(close + 1);
    for (const std::string& item : items) {
      if (!Expand(prefix + item + suffix, limit, out, depth + 1)) return false;
    }
    return true;
  }
  out->push_back(RestoreBraceMarks(text));
  return out->size() <= limit;
}

}  // namespace

std::string RestoreBraceMarks(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == kBraceOpen) c = '{';
    if (c == kBraceComma) c = ',';
    if (c == kBraceClose) c = '}';
  }
  return out;
}

bool ExpandBraces(std::string_view text, std::size_t limit, std::vector<std::string>* out) {
  // Expansion rescans the word per group; a word this long is not listed.
  if (text.size() > 4096) return false;
  return Expand(std::string(text), limit, out, 0);
}

}  // namespace corral::policy
