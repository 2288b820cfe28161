// Character-level scanning for the shell parser: blanks, comments, line
// continuations, keywords, words with their quoting, and redirections
// (expansions are in shell_expansions.cc).
#include "policy/shell/shell.h"

#include <algorithm>
#include <array>
#include <vector>

#include "policy/shell/parser.h"

namespace corral::policy::shell {
namespace {

// Characters a word can simply copy; every other one needs a decision.
constexpr std::array<bool, 256> MakePlainTable() {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = true;
  for (unsigned char c : std::string_view(" \t\n;&|()<>'\"\\$`*?[{,}=@!+~")) table[c] = false;
  return table;
}
constexpr std::array<bool, 256> kPlain = MakePlainTable();

// The first bytes of the reserved words PeekKeyword knows.
constexpr std::array<bool, 256> MakeKeywordStartTable() {
  std::array<bool, 256> table{};
  for (unsigned char c : std::string_view("cdefistuw{}![")) table[c] = true;
  return table;
}
constexpr std::array<bool, 256> kKeywordStart = MakeKeywordStartTable();

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(unsigned long cp, std::string& out) {
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
    cp = cp > 0x10FFFF ? 0xFFFD : cp;
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Restores brace marks to the characters they stand for.
void RestoreBraces(std::string& text) {
  for (char& c : text) {
    if (c == kBraceOpen) c = '{';
    if (c == kBraceComma) c = ',';
    if (c == kBraceClose) c = '}';
  }
}

// True when some {...} group holds a top-level comma or a "..". One pass
// with a stack, so a word of a million braces stays linear.
bool HasBraceExpansion(std::string_view text) {
  struct Group {
    std::size_t start;
    bool comma = false;
    bool nested = false;
  };
  std::vector<Group> open;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == kBraceOpen) {
      if (!open.empty()) open.back().nested = true;
      open.push_back({i});
    } else if (c == kBraceComma && !open.empty()) {
      open.back().comma = true;
    } else if (c == kBraceClose && !open.empty()) {
      Group group = open.back();
      open.pop_back();
      if (group.comma) return true;
      // Sequences ({1..5}) hold no other group, so each byte is read once.
      if (!group.nested &&
          text.substr(group.start + 1, i - group.start - 1).find("..") != std::string_view::npos) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool IsName(std::string_view text) {
  if (text.empty() || !IsNameStart(text[0])) return false;
  for (char c : text) {
    if (!IsNameChar(c)) return false;
  }
  return true;
}

std::string_view Basename(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

void DecodeAnsiC(std::string_view body, std::string& out) {
  // Bash cuts the string at a NUL: $'aws\0x' is "aws".
  auto put = [&](char c) {
    if (c == '\0') return false;
    out += c;
    return true;
  };
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      if (!put(c)) return;
      continue;
    }
    char e = body[++i];
    char decoded = 0;
    switch (e) {
      case 'a': decoded = '\a'; break;
      case 'b': decoded = '\b'; break;
      case 'e': case 'E': decoded = '\x1b'; break;
      case 'f': decoded = '\f'; break;
      case 'n': decoded = '\n'; break;
      case 'r': decoded = '\r'; break;
      case 't': decoded = '\t'; break;
      case 'v': decoded = '\v'; break;
      case 'c':
        if (i + 1 >= body.size()) continue;
        decoded = static_cast<char>(body[++i] & 0x1F);
        break;
      case 'x': case 'u': case 'U': {
        std::size_t max = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        unsigned long value = 0;
        std::size_t n = 0;
        while (n < max && i + 1 < body.size() && HexValue(body[i + 1]) >= 0) {
          value = value * 16 + static_cast<unsigned long>(HexValue(body[++i]));
          ++n;
        }
        if (n == 0) {
          out += '\\';
          out += e;
          continue;
        }
        if (value == 0) return;
        if (e == 'x') {
          decoded = static_cast<char>(value);
          break;
        }
        AppendUtf8(value, out);
        continue;
      }
      default:
        if (e >= '0' && e <= '7') {
          unsigned value = static_cast<unsigned>(e - '0');
          for (int n = 1; n < 3 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7';
               ++n) {
            value = value * 8 + static_cast<unsigned>(body[++i] - '0');
          }
          decoded = static_cast<char>(value & 0xFF);
        } else if (e == '\\' || e == '\'' || e == '"' || e == '?') {
          decoded = e;
        } else {
          out += '\\';
          decoded = e;
        }
    }
    if (!put(decoded)) return;
  }
}

// ---------------------------------------------------------------- tokens

std::size_t Parser::SkipContinuations(std::size_t j) const {
  while (j + 1 < end_ && src_[j] == '\\' && src_[j + 1] == '\n') j += 2;
  return j;
}

char Parser::PeekAt(std::size_t k) {
  if (!continuations_) return pos_ + k < end_ ? src_[pos_ + k] : '\0';
  std::size_t j = Skip(pos_);
  while (k-- > 0 && j < end_) j = Skip(j + 1);
  return j < end_ ? src_[j] : '\0';
}

void Parser::Advance(std::size_t n) {
  if (!continuations_) {
    if (pos_ < end_) pos_ = std::min(pos_ + n, end_);
    return;
  }
  while (n-- > 0 && pos_ < end_) pos_ = Skip(Skip(pos_) + 1);
}


void Parser::SkipComment() {
  // A comment runs to the end of the line; a backslash does not continue it.
  if (Peek() != '#') return;
  while (pos_ < end_ && src_[pos_] != '\n') ++pos_;
}

bool Parser::SkipNewline() {
  if (Peek() != '\n' || AtEnd()) return false;
  ++pos_;
  ReadHeredocBodies();
  return true;
}

void Parser::SkipLinebreaks() {
  // Asked before nearly every command, where there is mostly nothing to skip.
  char c = Peek();
  if (!IsBlank(c) && c != '#' && c != '\n') return;
  do {
    SkipBlanks();
    SkipComment();
  } while (SkipNewline() && !state_.aborted());
}

Parser::Keyword Parser::PeekKeyword(std::size_t* end) {
  // Asked two or three times at the start of every command (the list, the
  // pipeline, the command): the last answer is kept with its position.
  std::size_t at = Skip(pos_);
  if (at != keyword_at_) {
    keyword_at_ = at;
    keyword_ = ReadKeyword(at, &keyword_end_);
  }
  if (keyword_ != Keyword::kNone) *end = keyword_end_;
  return keyword_;
}

Parser::Keyword Parser::ReadKeyword(std::size_t j, std::size_t* end) const {
  char buf[9];
  std::size_t n = 0;
  if (j >= end_ || !kKeywordStart[static_cast<unsigned char>(src_[j])]) return Keyword::kNone;
  if (src_[j] == '{' || src_[j] == '}' || src_[j] == '!') {
    buf[n++] = src_[j];
    j = Skip(j + 1);
  } else if (j + 1 < end_ && src_[j] == '[' && src_[j + 1] == '[') {
    buf[n++] = '[';
    buf[n++] = '[';
    j = Skip(j + 2);
  } else {
    while (j < end_ && n < 9 && src_[j] >= 'a' && src_[j] <= 'z') {
      buf[n++] = src_[j];
      j = Skip(j + 1);
    }
  }
  if (n == 0 || n > 8 || (j < end_ && !IsMeta(src_[j]))) return Keyword::kNone;
  *end = j;
  std::string_view text(buf, n);
  // By first byte: asked at the start of every command, where most words
  // are no keyword.
  switch (buf[0]) {
    case 'i': return text == "if" ? Keyword::kIf : text == "in" ? Keyword::kIn : Keyword::kNone;
    case 't':
      return text == "then" ? Keyword::kThen : text == "time" ? Keyword::kTime : Keyword::kNone;
    case 'e':
      return text == "elif"   ? Keyword::kElif
             : text == "else" ? Keyword::kElse
             : text == "esac" ? Keyword::kEsac
                              : Keyword::kNone;
    case 'f':
      return text == "fi"         ? Keyword::kFi
             : text == "for"      ? Keyword::kFor
             : text == "function" ? Keyword::kFunction
                                  : Keyword::kNone;
    case 'w': return text == "while" ? Keyword::kWhile : Keyword::kNone;
    case 'u': return text == "until" ? Keyword::kUntil : Keyword::kNone;
    case 'd': return text == "do" ? Keyword::kDo : text == "done" ? Keyword::kDone : Keyword::kNone;
    case 's': return text == "select" ? Keyword::kSelect : Keyword::kNone;
    case 'c':
      return text == "case" ? Keyword::kCase : text == "coproc" ? Keyword::kCoproc : Keyword::kNone;
    case '{': return Keyword::kBraceOpen;
    case '}': return Keyword::kBraceClose;
    case '!': return Keyword::kBang;
    case '[': return Keyword::kCondOpen;
    default: break;
  }
  return Keyword::kNone;
}

// ---------------------------------------------------------------- words

bool Parser::ScanWord(Word& word) {
  word.begin = static_cast<std::uint32_t>(Skip(pos_));
  std::size_t start = word.begin;
  int brace_depth = 0;
  bool assignment_checked = false;
  bool last_unquoted_glob = false;  // the last char was an unquoted ?*+@! (extglob)
  while (!state_.aborted()) {
    pos_ = Skip(pos_);
    if (pos_ >= end_) break;
    std::size_t run = pos_;
    while (run < end_ && kPlain[static_cast<unsigned char>(src_[run])]) ++run;
    if (run > pos_) {
      word.text.append(src_.substr(pos_, run - pos_));
      pos_ = run;
      last_unquoted_glob = false;
      continue;
    }
    char c = src_[pos_];
    bool glob_before = last_unquoted_glob;
    last_unquoted_glob = false;
    switch (c) {
      case ' ': case '\t': case '\n': case ';': case '&': case '|': case ')':
        goto done;
      case '(':
        if (!glob_before) goto done;
        ScanGroup(word);
        break;
      case '<': case '>':
        if (PeekAt(1) != '(') goto done;
        Advance(2);
        ScanCommandSubstitution(word, false);
        word.flags |= kProcessSubst;
        break;
      case '\\':
        word.flags |= kQuoted;
        if (pos_ + 1 < end_) {
          word.text += src_[pos_ + 1];
          pos_ += 2;
        } else {
          word.text += '\\';
          ++pos_;
        }
        break;
      case '\'':
        ScanSingleQuoted(word);
        break;
      case '"':
        ScanDoubleQuoted(word);
        break;
      case '$':
        ScanDollar(word, false);
        break;
      case '`':
        ScanBackquote(word, false);
        break;
      case '*': case '?': case '[':
        word.flags |= kGlob;
        word.text += c;
        ++pos_;
        last_unquoted_glob = c != '[';
        break;
      case '@': case '!': case '+':
        word.text += c;
        ++pos_;
        last_unquoted_glob = true;
        break;
      case '~':
        if (pos_ == start) word.flags |= kTilde;
        word.text += c;
        ++pos_;
        break;
      case '{':
        ++brace_depth;
        word.flags |= kBrace;
        word.text += kBraceOpen;
        ++pos_;
        break;
      case ',':
        word.text += brace_depth > 0 ? kBraceComma : ',';
        ++pos_;
        break;
      case '}':
        if (brace_depth > 0) {
          --brace_depth;
          word.text += kBraceClose;
        } else {
          word.text += '}';
        }
        ++pos_;
        break;
      case '=':
        word.text += '=';
        ++pos_;
        if (!assignment_checked) {
          assignment_checked = true;
          CheckAssignment(word);
          if ((word.flags & kAssignment) && Peek() == '(') ScanArrayAssignment(word);
        }
        break;
      default:
        word.text += c;
        ++pos_;
    }
  }
done:
  word.end = static_cast<std::uint32_t>(pos_);
  if (word.expansions != 1 || word.text.size() != 1 || word.text[0] != kExpansionMark) {
    word.var = {};
  }
  if (word.flags & kBrace) FinishBraces(word);
  return word.end > word.begin;
}

void Parser::CheckAssignment(Word& word) {
  if (word.flags & (kQuoted | kExpansion)) return;
  std::string_view name(word.text);
  name.remove_suffix(1);  // '='
  if (!name.empty() && name.back() == '+') name.remove_suffix(1);
  if (!name.empty() && name.back() == ']') {
    std::size_t open = name.find('[');
    if (open == std::string_view::npos) return;
    name = name.substr(0, open);
  }
  if (!IsName(name)) return;
  word.flags |= kAssignment;
  word.flags &= ~kGlob;
}

void Parser::FinishBraces(Word& word) {
  if (!(word.flags & kBrace)) return;
  if ((word.flags & kAssignment) || !HasBraceExpansion(word.text)) {
    RestoreBraces(word.text);
    word.flags &= ~kBrace;
  }
}

void Parser::ScanSingleQuoted(Word& word) {
  word.flags |= kQuoted;
  std::size_t close = src_.find('\'', pos_ + 1);
  if (close == std::string_view::npos || close >= end_) {
    Error("unterminated single quote");
    word.text.append(src_.substr(pos_ + 1, end_ - pos_ - 1));
    pos_ = end_;
    return;
  }
  word.text.append(src_.substr(pos_ + 1, close - pos_ - 1));
  pos_ = close + 1;
}

void Parser::ScanDoubleQuoted(Word& word) {
  word.flags |= kQuoted;
  ++pos_;
  while (!state_.aborted()) {
    pos_ = Skip(pos_);
    if (pos_ >= end_) {
      Error("unterminated double quote");
      return;
    }
    char c = src_[pos_];
    if (c != '"' && c != '\\' && c != '$' && c != '`') {
      // A run of bytes that stand for themselves, appended at once (a
      // continuation starts with a backslash, so none is inside it).
      std::size_t run = pos_ + 1;
      while (run < end_ && src_[run] != '"' && src_[run] != '\\' && src_[run] != '$' &&
             src_[run] != '`') {
        ++run;
      }
      word.text.append(src_.substr(pos_, run - pos_));
      pos_ = run;
      continue;
    }
    if (c == '"') {
      ++pos_;
      return;
    }
    if (c == '\\' && pos_ + 1 < end_) {
      char next = src_[pos_ + 1];
      if (next == '$' || next == '`' || next == '"' || next == '\\') {
        word.text += next;
        pos_ += 2;
        continue;
      }
      word.text += c;
      ++pos_;
    } else if (c == '$') {
      ScanDollar(word, true);
    } else if (c == '`') {
      ScanBackquote(word, true);
    } else {
      word.text += c;
      ++pos_;
    }
  }
}

// ---------------------------------------------------------------- redirections

namespace {

// The delimiter of a heredoc after quote removal, and whether it was quoted.
std::pair<std::string, bool> HeredocDelimiter(std::string_view raw) {
  std::string text;
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\'' || c == '"') {
      quoted = true;
      std::size_t close = raw.find(c, i + 1);
      if (close == std::string_view::npos) close = raw.size();
      text.append(raw.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '\\' && i + 1 < raw.size()) {
      quoted = true;
      if (raw[i + 1] != '\n') text += raw[i + 1];
      ++i;
    } else {
      text += c;
    }
  }
  return {text, quoted};
}

}  // namespace

bool Parser::ParseRedirect(std::vector<Redirect>* out) {
  std::size_t k = Skip(pos_);
  int fd = -1;
  if (k < end_ && IsDigit(src_[k])) {
    std::size_t d = k;
    int value = 0;
    while (d < end_ && IsDigit(src_[d])) value = std::min(value * 10 + (src_[d++] - '0'), 99999);
    if (d >= end_ || (src_[d] != '<' && src_[d] != '>')) return false;
    fd = value;
    k = d;
  } else if (k < end_ && src_[k] == '{') {
    std::size_t d = k + 1;
    while (d < end_ && IsNameChar(src_[d])) ++d;
    if (d == k + 1 || d + 1 >= end_ || src_[d] != '}' || (src_[d + 1] != '<' && src_[d + 1] != '>')) {
      return false;
    }
    fd = 10;  // {name}>: bash picks a descriptor of 10 or above
    k = d + 1;
  }
  if (k >= end_) return false;
  auto at = [&](std::size_t i) { return k + i < end_ ? src_[k + i] : '\0'; };
  RedirectOp op;
  std::size_t length = 1;
  char c = at(0);
  if (c == '<') {
    if (at(1) == '(') return false;
    if (at(1) == '<' && at(2) == '<') { op = RedirectOp::kHereString; length = 3; }
    else if (at(1) == '<') { op = RedirectOp::kHeredoc; length = at(2) == '-' ? 3 : 2; }
    else if (at(1) == '>') { op = RedirectOp::kInOut; length = 2; }
    else if (at(1) == '&') { op = RedirectOp::kDupIn; length = 2; }
    else { op = RedirectOp::kIn; }
  } else if (c == '>') {
    if (at(1) == '(') return false;
    if (at(1) == '>') { op = RedirectOp::kAppend; length = 2; }
    else if (at(1) == '|') { op = RedirectOp::kClobber; length = 2; }
    else if (at(1) == '&') { op = RedirectOp::kDupOut; length = 2; }
    else { op = RedirectOp::kOut; }
  } else if (c == '&' && fd == -1 && at(1) == '>') {
    if (at(2) == '>') { op = RedirectOp::kAppendOutErr; length = 3; }
    else { op = RedirectOp::kOutErr; length = 2; }
  } else {
    return false;
  }
  bool strip_tabs = op == RedirectOp::kHeredoc && length == 3;
  pos_ = k + length;
  SkipBlanks();
  Redirect redirect;
  redirect.fd = fd;
  redirect.op = op;
  if (!ScanWord(redirect.target)) Error("expected a word after a redirection");
  if (op == RedirectOp::kHeredoc) {
    if (++state_.heredocs > state_.max_heredocs) {
      SetLimit("more than " + std::to_string(state_.max_heredocs) + " heredocs");
      return true;
    }
    Heredoc doc;
    auto [delimiter, quoted] = HeredocDelimiter(
        src_.substr(redirect.target.begin, redirect.target.end - redirect.target.begin));
    doc.delimiter = std::move(delimiter);
    doc.quoted = quoted;
    doc.strip_tabs = strip_tabs;
    redirect.heredoc_index = static_cast<std::uint32_t>(heredocs_.size());
    heredocs_.push_back(std::move(doc));
  }
  out->push_back(std::move(redirect));
  return true;
}

}  // namespace corral::policy::shell
