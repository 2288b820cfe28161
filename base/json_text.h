#pragma once

#include <cstddef>
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

// Reads the JSON string at text[i] (its opening quote) into `out` and moves
// i past its closing quote, when it is ASCII with no \u escape; false (i and
// `out` then undefined) for anything else: UTF-8 to validate, \u, a control
// character or no string at all.
inline bool ReadPlainJsonString(std::string_view text, std::size_t& i, std::string& out) {
  if (i >= text.size() || text[i] != '"') return false;
  ++i;
  out.clear();
  for (;;) {
    std::size_t run = i;
    while (run < text.size() && IsPlainJsonByte(text[run])) ++run;
    out.append(text, i, run - i);
    i = run;
    if (i >= text.size()) return false;
    char c = text[i++];
    if (c == '"') return true;
    if (c != '\\' || i >= text.size()) return false;
    switch (text[i++]) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      default: return false;  // \u, or an error
    }
  }
}

}  // namespace corral
