// Words of the shell language as the parser produces them, and the character
// classes the lexer and the matcher share. Private to policy/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace corral::policy::shell {

// Stands in a word's text for an expansion whose value is only known when the
// command runs ($x, $(...), `...`, $((...)), <(...)).
inline constexpr char kExpansionMark = '\x1f';
// Unquoted brace-expansion metacharacters, kept apart from quoted { , }.
inline constexpr char kBraceOpen = '\x1c';
inline constexpr char kBraceComma = '\x1d';
inline constexpr char kBraceClose = '\x1e';

enum WordFlag : std::uint32_t {
  kQuoted = 1u << 0,             // some part was quoted or escaped
  kExpansion = 1u << 1,          // holds an expansion (see kExpansionMark)
  kUnquotedExpansion = 1u << 2,  // ... outside double quotes: may split into words
  kGlob = 1u << 3,               // unquoted * ? [ or an extglob group
  kTilde = 1u << 4,              // starts with an unquoted ~
  kBrace = 1u << 5,              // holds a brace expansion (kBrace* marks in text)
  kAssignment = 1u << 6,         // NAME=..., NAME+=..., NAME[...]=...
  kProcessSubst = 1u << 7,       // <(...) or >(...)
  kArray = 1u << 8,              // NAME=(...): the value is not the text
  kListArray = 1u << 9,          // ... of literal elements, each after the '=' ended by a NUL
};

// One word after quote removal. Escape sequences of $'...' are decoded.
struct Word {
  std::string text;
  std::uint32_t begin = 0;  // raw byte range in the parsed source
  std::uint32_t end = 0;
  std::uint32_t flags = 0;
  // The variable name when the word is exactly one $NAME or ${NAME}, quoted
  // or not; a view into the parsed source.
  std::string_view var;
  std::uint16_t expansions = 0;  // how many expansions the word holds

  bool literal() const { return (flags & (kExpansion | kGlob | kTilde | kBrace)) == 0; }
};

inline bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Characters that end an unquoted word.
inline bool IsMeta(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
         c == ')' || c == '<' || c == '>';
}

inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// True for a valid shell variable name.
bool IsName(std::string_view text);

// The last path component: "aws" for "/usr/local/bin/aws" and "./aws".
std::string_view Basename(std::string_view path);

// Decodes the body of $'...' (without the quotes), appending to out. A NUL
// ends the string there, as in bash.
void DecodeAnsiC(std::string_view body, std::string& out);

}  // namespace corral::policy::shell
