#pragma once

// GraphQL's lexical grammar (spec October 2021, section 2.1), strictly: a
// byte the spec does not place is an error, never skipped, so the proxy reads
// the document no more loosely than GitHub's own parser does.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge::graphql {

enum class TokenKind { kPunctuator, kName, kInt, kFloat, kString };

struct Token {
  TokenKind kind = TokenKind::kName;
  // The punctuator ("{", "...", ...), the name, the number as written, or a
  // string's value with escapes decoded and a block string's indentation removed.
  std::string text;
};

// Every significant token of `source` in order (white space, line ends,
// commas, comments and a byte order mark are dropped, as the spec says).
Result<std::vector<Token>> Tokenize(std::string_view source);

// A block string's value from its raw text between the quotes, with `\"""`
// already unescaped (the spec's BlockStringValue()).
std::string BlockStringValue(std::string_view raw);

}  // namespace corral::netfilter::forge::graphql
