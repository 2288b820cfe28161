#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace corral {

// The plain part of JSON, read without a JSON library where a line of a
// known shape is read per command (corral check --batch, the oracle): the
// callers hand anything else to nlohmann::json, which stays the reference.

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A byte that stands for itself inside a JSON string, read or written.
inline bool IsPlainJsonByte(char c) {
  auto byte = static_cast<unsigned char>(c);
  return byte >= 0x20 && byte < 0x80 && c != '"' && c != '\\';
}

// The end of the run of plain bytes that starts at text[i]: eight bytes at
// a time, since a command line is mostly one such run.
inline std::size_t PlainJsonRunEnd(std::string_view text, std::size_t i) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHighs = 0x8080808080808080ull;
  // The high bit of each byte that is zero. A borrow can only mark bytes
  // above a real one, so the lowest mark is exact.
  auto zero_bytes = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
  while (std::endian::native == std::endian::little && i + 8 <= text.size()) {
    std::uint64_t x;
    std::memcpy(&x, text.data() + i, 8);
    std::uint64_t special = (x & kHighs) |                        // 0x80 and above
                            ((x - kOnes * 0x20) & ~x & kHighs) |  // below 0x20
                            zero_bytes(x ^ (kOnes * '"')) | zero_bytes(x ^ (kOnes * '\\'));
    if (special != 0) return i + static_cast<std::size_t>(std::countr_zero(special)) / 8;
    i += 8;
  }
  while (i < text.size() && IsPlainJsonByte(text[i])) ++i;
  return i;
}

// The byte a two-character escape stands for (the letter after the
// backslash); 0 for \u and for anything that is no escape.
inline char JsonEscape(char letter) {
  constexpr std::string_view kLetters = "\"\\/bfnrt";
  constexpr std::string_view kBytes = "\"\\/\b\f\n\r\t";
  std::size_t at = kLetters.find(letter);
  return at == std::string_view::npos ? '\0' : kBytes[at];
}

// Reads the JSON string at text[i] (its opening quote) into `out` and moves
// i past its closing quote, when it is ASCII with no \u escape; false (i and
// `out` then undefined) for anything else: UTF-8 to validate, \u, a control
// character or no string at all.
inline bool ReadPlainJsonString(std::string_view text, std::size_t& i, std::string& out) {
  if (i >= text.size() || text[i] != '"') return false;
  ++i;
  out.clear();
  for (;;) {
    std::size_t run = PlainJsonRunEnd(text, i);
    out.append(text, i, run - i);
    i = run;
    if (i >= text.size()) return false;
    char c = text[i++];
    if (c == '"') return true;
    if (c != '\\' || i >= text.size()) return false;
    char decoded = JsonEscape(text[i++]);
    if (decoded == '\0') return false;  // \u, or an error
    out.push_back(decoded);
  }
}

}  // namespace corral
