#include "netfilter/forge/graphql_lexer.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace corral::netfilter::forge::graphql {
namespace {

bool IsNameStart(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameContinue(char c) { return IsNameStart(c) || IsDigit(c); }

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipIgnored();
      if (pos_ >= src_.size()) return tokens;
      auto token = Next();
      if (!token.ok()) return token.error();
      tokens.push_back(std::move(token.value()));
    }
  }

 private:
  Error Fail(std::string_view what) const {
    return Error("GraphQL document: " + std::string(what) + " at byte " + std::to_string(pos_));
  }
  char Peek(std::size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }
  bool AtEnd(std::size_t ahead = 0) const { return pos_ + ahead >= src_.size(); }

  // White space, line ends, commas, comments and the byte order mark.
  void SkipIgnored() {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
        ++pos_;
      } else if (src_.substr(pos_, 3) == "\xEF\xBB\xBF") {
        pos_ += 3;
      } else if (c == '#') {
        while (!AtEnd() && Peek() != '\n' && Peek() != '\r') ++pos_;
      } else {
        return;
      }
    }
  }

  Result<Token> Next() {
    char c = Peek();
    if (src_.substr(pos_, 3) == "...") {
      pos_ += 3;
      return Token{TokenKind::kPunctuator, "..."};
    }
    if (std::string_view("!$&():=@[]{|}").find(c) != std::string_view::npos) {
      ++pos_;
      return Token{TokenKind::kPunctuator, std::string(1, c)};
    }
    if (IsNameStart(c)) {
      std::size_t start = pos_;
      while (!AtEnd() && IsNameContinue(Peek())) ++pos_;
      return Token{TokenKind::kName, std::string(src_.substr(start, pos_ - start))};
    }
    if (c == '-' || IsDigit(c)) return Number();
    if (src_.substr(pos_, 3) == "\"\"\"") return BlockString();
    if (c == '"') return String();
    return Fail("unexpected character");
  }

  // IntValue or FloatValue, with the spec's lookahead: no digit, `.` or name
  // start may follow the token.
  Result<Token> Number() {
    std::size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (!IsDigit(Peek())) return Fail("a minus sign without digits");
    if (Peek() == '0' && IsDigit(Peek(1))) return Fail("a number with a leading zero");
    while (IsDigit(Peek())) ++pos_;
    bool is_float = false;
    if (Peek() == '.') {
      is_float = true;
      ++pos_;
      if (!IsDigit(Peek())) return Fail("a fraction without digits");
      while (IsDigit(Peek())) ++pos_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      is_float = true;
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (!IsDigit(Peek())) return Fail("an exponent without digits");
      while (IsDigit(Peek())) ++pos_;
    }
    if (Peek() == '.' || IsNameStart(Peek())) return Fail("a number run into a name or a dot");
    return Token{is_float ? TokenKind::kFloat : TokenKind::kInt,
                 std::string(src_.substr(start, pos_ - start))};
  }

  std::optional<std::uint32_t> Hex4() {
    if (pos_ + 4 > src_.size()) return std::nullopt;
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      char h = src_[pos_ + i];
      int digit = IsDigit(h)               ? h - '0'
                  : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                           : -1;
      if (digit < 0) return std::nullopt;
      value = value * 16 + static_cast<std::uint32_t>(digit);
    }
    pos_ += 4;
    return value;
  }

  // `\uXXXX`, with a surrogate pair written as two escapes joined into one
  // code point; a lone surrogate is refused.
  Result<void> UnicodeEscape(std::string& out) {
    auto high = Hex4();
    if (!high) return Fail("a \\u escape without four hex digits");
    std::uint32_t cp = *high;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return Fail("a lone low surrogate");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (Peek() != '\\' || Peek(1) != 'u') return Fail("a lone high surrogate");
      pos_ += 2;
      auto low = Hex4();
      if (!low || *low < 0xDC00 || *low > 0xDFFF) return Fail("a lone high surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (*low - 0xDC00);
    }
    AppendUtf8(out, cp);
    return Ok();
  }

  Result<Token> String() {
    ++pos_;
    std::string value;
    while (true) {
      if (AtEnd()) return Fail("a string without its closing quote");
      char c = Peek();
      auto byte = static_cast<unsigned char>(c);
      if (c == '"') {
        ++pos_;
        return Token{TokenKind::kString, std::move(value)};
      }
      if (c == '\n' || c == '\r') return Fail("a line end inside a string");
      if (byte < 0x20 && c != '\t') return Fail("a control character inside a string");
      if (c != '\\') {
        value += c;
        ++pos_;
        continue;
      }
      ++pos_;
      char escaped = Peek();
      ++pos_;
      switch (escaped) {
        case '"': value += '"'; break;
        case '\\': value += '\\'; break;
        case '/': value += '/'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'n': value += '\n'; break;
        case 'r': value += '\r'; break;
        case 't': value += '\t'; break;
        case 'u': {
          auto ok = UnicodeEscape(value);
          if (!ok.ok()) return ok.error();
          break;
        }
        default: --pos_; return Fail("an unknown escape in a string");
      }
    }
  }

  Result<Token> BlockString() {
    pos_ += 3;
    std::string raw;
    while (true) {
      if (AtEnd()) return Fail("a block string without its closing quotes");
      if (src_.substr(pos_, 3) == "\"\"\"") {
        pos_ += 3;
        return Token{TokenKind::kString, BlockStringValue(raw)};
      }
      if (src_.substr(pos_, 4) == "\\\"\"\"") {
        raw += "\"\"\"";
        pos_ += 4;
        continue;
      }
      auto byte = static_cast<unsigned char>(Peek());
      if (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') {
        return Fail("a control character inside a block string");
      }
      raw += Peek();
      ++pos_;
    }
  }

  std::string_view src_;
  std::size_t pos_ = 0;
};

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view source) { return Lexer(source).Run(); }

std::string BlockStringValue(std::string_view raw) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\n' && raw[i] != '\r') continue;
    lines.push_back(raw.substr(start, i - start));
    if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
    start = i + 1;
  }
  lines.push_back(raw.substr(start));

  std::optional<std::size_t> common_indent;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::size_t indent = lines[i].find_first_not_of(" \t");
    if (indent == std::string_view::npos) continue;
    if (!common_indent || indent < *common_indent) common_indent = indent;
  }
  if (common_indent) {
    for (std::size_t i = 1; i < lines.size(); ++i) {
      lines[i].remove_prefix(std::min(*common_indent, lines[i].size()));
    }
  }
  std::size_t first = 0, last = lines.size();
  while (first < last && IsBlank(lines[first])) ++first;
  while (last > first && IsBlank(lines[last - 1])) --last;

  std::string value;
  for (std::size_t i = first; i < last; ++i) {
    if (i != first) value += '\n';
    value += lines[i];
  }
  return value;
}

}  // namespace corral::netfilter::forge::graphql
