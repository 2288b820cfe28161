// Expansions inside words ($x, ${...}, $(...), `...`, $((...)), extglob
// groups, array assignments), heredoc bodies, and quoted text bash
// evaluates later. Command substitutions are parsed in place, so the
// commands inside are reported as they are found.
#include <algorithm>
#include <string>

#include "policy/shell/shell.h"
#include "policy/shell/parser.h"

namespace corral::policy::shell {

namespace {
// Past this much element text an array's elements are not kept (unknown).
constexpr std::size_t kMaxArrayText = 64 * 1024;
}  // namespace

void ParseExpansions(std::string_view text, const Origin& origin, Visitor& visitor,
                     ParseState& state, int depth) {
  Parser(text, origin, visitor, state, depth).RunExpansions();
}

bool HasSubscriptCode(std::string_view text) {
  std::size_t open = text.find('[');
  if (open == std::string_view::npos) return false;
  std::string_view after = text.substr(open + 1);
  return after.find("$(") != std::string_view::npos || after.find('`') != std::string_view::npos;
}

void Parser::RunExpansions() {
  if (Begin()) ScanExpansionsIn(0, end_);
}

void Parser::CheckEvaluatedWord(const Word& word) {
  // 'a[$(cmd)]' is data to the shell that reads it, and code to the builtin
  // or arithmetic that later evaluates it as a name.
  if (!(word.flags & kQuoted) || !HasSubscriptCode(word.text) || state_.aborted()) return;
  Origin nested = origin_.Nested(src_, word.begin, word.end, word.text);
  ParseExpansions(word.text, nested, visitor_, state_, depth_ + 1);
}


void Parser::AddExpansion(Word& word, bool in_double_quotes) {
  word.flags |= kExpansion;
  if (!in_double_quotes) word.flags |= kUnquotedExpansion;
  word.text += kExpansionMark;
  ++word.expansions;
}

void Parser::ScanDollar(Word& word, bool in_double_quotes) {
  std::size_t dollar = pos_;
  std::size_t j = Skip(pos_ + 1);
  char c = j < end_ ? src_[j] : '\0';
  if (j >= end_) {
    word.text += '$';
    pos_ = j;
    return;
  }
  if (c == '\'' && !in_double_quotes) {  // $'...': ANSI-C quoting
    word.flags |= kQuoted;
    std::size_t k = j + 1;
    while (k < end_ && src_[k] != '\'') k += src_[k] == '\\' ? 2 : 1;
    if (k >= end_) {
      Error("unterminated $' quote");
      k = end_;
    }
    DecodeAnsiC(src_.substr(j + 1, std::min(k, end_) - j - 1), word.text);
    pos_ = std::min(k + 1, end_);
    return;
  }
  if (c == '"' && !in_double_quotes) {  // $"...": a translated string
    pos_ = j;
    ScanDoubleQuoted(word);
    return;
  }
  if (c == '(') {
    std::size_t k = Skip(j + 1);
    if (k < end_ && src_[k] == '(') {
      // $(( $(( ... nests by recursion: bounded like any other nesting.
      if (!Enter()) return;
      pos_ = k + 1;
      std::size_t heredocs = heredocs_.size();
      bool arithmetic = ScanArithmetic();
      Leave();
      if (arithmetic) {
        AddExpansion(word, in_double_quotes);
        return;
      }
      if (!Rewind(heredocs)) return;
    }
    pos_ = j + 1;
    ScanCommandSubstitution(word, in_double_quotes);
    return;
  }
  if (c == '{') {
    pos_ = j + 1;
    ScanParameter(word, in_double_quotes);
    return;
  }
  if (IsNameStart(c)) {
    std::size_t k = j;
    while (k < end_ && IsNameChar(src_[k])) ++k;
    word.var = src_.substr(j, k - j);
    pos_ = k;
    AddExpansion(word, in_double_quotes);
    return;
  }
  if (IsDigit(c) || c == '@' || c == '*' || c == '#' || c == '?' || c == '$' || c == '!' ||
      c == '-') {
    word.var = src_.substr(j, 1);
    pos_ = j + 1;
    AddExpansion(word, in_double_quotes);
    return;
  }
  word.text += '$';
  pos_ = dollar + 1;
}

void Parser::ScanParameter(Word& word, bool in_double_quotes) {
  // ${ cmd; } and ${| cmd; } (bash 5.3) run commands in the current shell.
  char first = Peek();
  if (first == ' ' || first == '\t' || first == '\n' || first == '|') {
    if (first == '|') ++pos_;
    if (Enter()) {
      ++nesting_;
      ParseList(kTermBrace);
      --nesting_;
      ExpectKeyword(Keyword::kBraceClose, "} to close ${");
      Leave();
    }
    AddExpansion(word, in_double_quotes);
    return;
  }
  // ${x:-${y:-...}} nests by recursion: bounded like any other nesting.
  if (!Enter()) return;
  std::size_t name_begin = pos_;
  std::size_t k = pos_;
  while (k < end_ && IsNameChar(src_[k])) ++k;
  std::string_view name;
  if (k > name_begin && k < end_ && src_[k] == '}') name = src_.substr(name_begin, k - name_begin);
  if (k > name_begin && k + 1 < end_ && !IsDigit(src_[name_begin])) {
    std::string_view assigned = src_.substr(name_begin, k - name_begin);
    auto [begin, end] = origin_.Map(name_begin, k);
    if (src_[k] == '=' || (src_[k] == ':' && src_[k + 1] == '=')) {
      visitor_.OnParameterOperator(assigned, '=', begin, end);
    } else if (src_[k] == '@' && src_[k + 1] == 'P') {
      visitor_.OnParameterOperator(assigned, 'P', begin, end);
    }
  }
  // ${NAME[@]}: every element of an array, as words.
  if (k > name_begin && src_.substr(k, 4) == "[@]}") name = src_.substr(name_begin, k - name_begin + 3);
  // ${a['$(cmd)']}: the subscript is evaluated, quotes and all.
  const std::size_t subscript = k < end_ && src_[k] == '[' && k > name_begin ? k : end_;
  bool in_subscript = false;
  Word scratch;
  int depth = 1;
  while (!state_.aborted()) {
    pos_ = Skip(pos_);
    if (pos_ >= end_) {
      Error("unterminated ${");
      break;
    }
    char c = src_[pos_];
    if (c == '}') {
      ++pos_;
      if (--depth == 0) break;
    } else if (c == '{') {
      ++depth;
      ++pos_;
    } else if (c == '\\') {
      pos_ = std::min(pos_ + 2, end_);
    } else if (c == '\'' && in_subscript) {
      ScanQuotedInEvaluation();
    } else if (c == '\'' && !in_double_quotes) {
      ScanSingleQuoted(scratch);
    } else if (c == '"') {
      ScanDoubleQuoted(scratch);
    } else if (c == '$') {
      ScanDollar(scratch, in_double_quotes);
    } else if (c == '`') {
      ScanBackquote(scratch, in_double_quotes);
    } else {
      if (pos_ == subscript) in_subscript = true;
      if (c == ']') in_subscript = false;
      ++pos_;
    }
    if (scratch.text.size() > 4096) scratch.text.clear();
  }
  pos_ = std::min(pos_, end_);
  Leave();
  word.var = name;
  AddExpansion(word, in_double_quotes);
}

void Parser::ScanBackquote(Word& word, bool in_double_quotes) {
  std::size_t open = pos_;
  std::string content;
  std::size_t k = pos_ + 1;
  while (k < end_ && src_[k] != '`') {
    char c = src_[k];
    if (c == '\\' && k + 1 < end_) {
      char next = src_[k + 1];
      if (next == '$' || next == '`' || next == '\\' || (in_double_quotes && next == '"')) {
        content += next;
      } else if (next != '\n') {
        content += c;
        content += next;
      }
      k += 2;
      continue;
    }
    content += c;
    ++k;
  }
  if (k >= end_) {
    Error("unterminated backquote");
    k = end_;
  }
  pos_ = std::min(k + 1, end_);
  ParseNested(content, open + 1, k);
  AddExpansion(word, in_double_quotes);
}

void Parser::ScanCommandSubstitution(Word& word, bool in_double_quotes) {
  if (Enter()) {
    ++nesting_;
    ParseList(kTermParen);
    --nesting_;
    if (Peek() == ')') {
      ++pos_;
    } else {
      Error("unterminated command substitution");
    }
    Leave();
  }
  AddExpansion(word, in_double_quotes);
}

bool Parser::ScanArithmetic() {
  Word scratch;
  int depth = 0;
  while (!state_.aborted()) {
    pos_ = Skip(pos_);
    if (pos_ >= end_) {
      Error("unterminated arithmetic expression");
      return true;
    }
    char c = src_[pos_];
    if (c == '(') {
      ++depth;
      ++pos_;
    } else if (c == ')') {
      if (depth == 0) {
        if (PeekAt(1) != ')') return false;
        Advance(2);
        return true;
      }
      --depth;
      ++pos_;
    } else if (c == '\\') {
      pos_ = std::min(pos_ + 2, end_);
    } else if (c == '\'') {
      ScanQuotedInEvaluation();  // $(( '$(cmd)' )) runs cmd
    } else if (c == '"') {
      ScanDoubleQuoted(scratch);
    } else if (c == '$') {
      ScanDollar(scratch, true);
    } else if (c == '`') {
      ScanBackquote(scratch, true);
    } else {
      ++pos_;
    }
    if (scratch.text.size() > 4096) scratch.text.clear();
  }
  return true;
}

void Parser::ScanQuotedInEvaluation() {
  std::size_t open = pos_;
  std::size_t close = src_.find('\'', pos_ + 1);
  if (close == std::string_view::npos || close >= end_) {
    Error("unterminated single quote");
    close = end_;
  }
  pos_ = std::min(close + 1, end_);
  std::size_t resume = pos_;
  ScanExpansionsIn(open + 1, close);
  pos_ = resume;
}

bool Parser::Rewind(std::size_t heredocs) {
  // "((" and "$((" that do not close with "))" are nested subshells; the
  // text is parsed again that way, a bounded number of times.
  if (++state_.rewinds > state_.max_rewinds) {
    SetLimit("too many ambiguous (( constructs");
    return false;
  }
  heredocs_.resize(std::min(heredocs_.size(), heredocs));
  next_heredoc_ = std::min(next_heredoc_, heredocs_.size());
  return true;
}

void Parser::ScanGroup(Word& word) {
  // An extglob group such as @(a|b): a pattern, copied as written.
  word.flags |= kGlob;
  Word scratch;
  int depth = 0;
  while (!state_.aborted()) {
    pos_ = Skip(pos_);
    if (pos_ >= end_) {
      Error("unterminated pattern group");
      return;
    }
    char c = src_[pos_];
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) {
        word.text += c;
        ++pos_;
        return;
      }
    } else if (c == '\\' || c == '\'' || c == '"' || c == '$' || c == '`') {
      std::size_t before = scratch.text.size();
      if (c == '\\') {
        scratch.text += pos_ + 1 < end_ ? src_[pos_ + 1] : '\\';
        pos_ = std::min(pos_ + 2, end_);
      } else if (c == '\'') {
        ScanSingleQuoted(scratch);
      } else if (c == '"') {
        ScanDoubleQuoted(scratch);
      } else if (c == '$') {
        ScanDollar(scratch, false);
      } else {
        ScanBackquote(scratch, false);
      }
      word.text.append(scratch.text, before);
      word.flags |= scratch.flags & (kExpansion | kUnquotedExpansion);
      continue;
    } else if (c == '\n') {
      Error("newline in pattern group");
      return;
    }
    word.text += c;
    ++pos_;
  }
}

void Parser::ScanArrayAssignment(Word& word) {
  word.flags |= kArray;
  ++pos_;  // (
  // The elements follow the '=' in the word's text, each ended by a NUL (no
  // shell word holds one), when every one is literal (kListArray).
  std::string elements;
  bool listed = true;
  while (!state_.aborted()) {
    SkipBlanks();
    SkipComment();
    if (SkipNewline()) continue;
    if (AtEnd()) {
      Error("unterminated array assignment");
      return;
    }
    if (Peek() == ')') {
      ++pos_;
      if (listed && word.literal() && elements.size() <= kMaxArrayText) {
        word.text += elements;
        word.flags |= kListArray;
      }
      return;
    }
    Word element;
    if (!ScanWord(element)) {
      Error("unexpected character in array assignment");
      ++pos_;
    }
    word.flags |= element.flags & (kExpansion | kUnquotedExpansion);
    // A pattern, a brace or a tilde ([key]=value too) makes the elements
    // known only when it runs.
    if (!element.literal()) listed = false;
    if (elements.size() <= kMaxArrayText) elements += element.text + '\0';
  }
}

// ---------------------------------------------------------------- heredocs

void Parser::ReadHeredocBodies() {
  while (next_heredoc_ < heredocs_.size() && !state_.aborted()) {
    ReadHeredocBody(heredocs_[next_heredoc_++]);
  }
  if (deferred_.empty() || next_heredoc_ < heredocs_.size()) return;
  std::vector<Deferred> ready;
  ready.swap(deferred_);
  for (Deferred& command : ready) {
    for (Redirect& redirect : command.redirects) {
      if (redirect.op != RedirectOp::kHeredoc || redirect.heredoc_index >= heredocs_.size()) {
        continue;
      }
      const Heredoc& doc = heredocs_[redirect.heredoc_index];
      redirect.body_begin = doc.body_begin;
      redirect.body_end = doc.body_end;
      redirect.body_quoted = doc.quoted;
    }
    Emit(command.words, command.redirects, command.pipeline_id, command.pipe_index,
         command.top_level, command.in_function);
  }
}

void Parser::ReadHeredocBody(Heredoc& doc) {
  doc.body_begin = static_cast<std::uint32_t>(pos_);
  std::string logical;
  while (pos_ < end_) {
    std::size_t line_begin = pos_;
    std::size_t nl = src_.find('\n', pos_);
    if (nl == std::string_view::npos || nl > end_) nl = end_;
    std::size_t next = nl < end_ ? nl + 1 : end_;
    std::string_view line = src_.substr(line_begin, nl - line_begin);
    // In an unquoted body a backslash-newline joins lines, also the one
    // that closes it.
    if (!doc.quoted && !line.empty() && line.back() == '\\') {
      std::size_t slashes = 0;
      while (slashes < line.size() && line[line.size() - 1 - slashes] == '\\') ++slashes;
      if (slashes % 2 == 1 && nl < end_) {
        logical.assign(line.substr(0, line.size() - 1));
        std::size_t k = next;
        while (k < end_) {
          std::size_t nl2 = src_.find('\n', k);
          if (nl2 == std::string_view::npos || nl2 > end_) nl2 = end_;
          std::string_view part = src_.substr(k, nl2 - k);
          k = nl2 < end_ ? nl2 + 1 : end_;
          if (!part.empty() && part.back() == '\\' && nl2 < end_) {
            logical.append(part.substr(0, part.size() - 1));
            continue;
          }
          logical.append(part);
          break;
        }
        next = k;
        line = logical;
      }
    }
    if (doc.strip_tabs) {
      while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
    }
    if (line == doc.delimiter) {
      doc.body_end = static_cast<std::uint32_t>(line_begin);
      pos_ = next;
      if (!doc.quoted) ScanExpansionsIn(doc.body_begin, doc.body_end);
      return;
    }
    pos_ = next;
  }
  doc.body_end = static_cast<std::uint32_t>(end_);
  if (!doc.quoted) ScanExpansionsIn(doc.body_begin, doc.body_end);
}

void Parser::ScanExpansionsIn(std::size_t begin, std::size_t end) {
  // Expansions in an unquoted body run in this shell, whoever reads it.
  std::size_t saved_pos = pos_;
  std::size_t saved_end = end_;
  pos_ = begin;
  end_ = end;
  keyword_at_ = kNoKeywordAt;  // read with another end
  Word scratch;
  while (pos_ < end_ && !state_.aborted()) {
    std::size_t next = src_.find_first_of("\\$`", pos_);
    if (next == std::string_view::npos || next >= end_) break;
    pos_ = next;
    char c = src_[pos_];
    if (c == '\\') {
      pos_ = std::min(pos_ + 2, end_);
    } else if (c == '$') {
      ScanDollar(scratch, true);
    } else {
      ScanBackquote(scratch, true);
    }
    if (scratch.text.size() > 4096) scratch.text.clear();
  }
  pos_ = saved_pos;
  end_ = saved_end;
  keyword_at_ = kNoKeywordAt;
}

}  // namespace corral::policy::shell
