// The grammar: lists, pipelines, compound commands, simple commands and
// redirections. Tolerant by design: after a syntax error it records the
// error and parses on, because bash runs the lines before a broken one and a
// matcher must not stop looking where bash would go on executing.
#include "policy/shell/parser.h"

#include <algorithm>

#include "base/reused_vector.h"

namespace corral::policy::shell {

Origin Origin::Nested(std::string_view source, std::size_t begin, std::size_t end,
                      std::string_view text) const {
  Origin nested;
  begin = std::min(begin, source.size());
  end = std::clamp(end, begin, source.size());
  if (exact) {
    // The decoded text sits right after its opening quote when nothing was
    // unescaped ('...', "...", $'...'); only those places are tried, so
    // this stays linear.
    std::string_view raw = source.substr(begin, end - begin);
    for (std::size_t at = 0; at <= 2 && at <= raw.size(); ++at) {
      if (raw.substr(at).starts_with(text)) {
        nested.base = base + begin + at;
        return nested;
      }
    }
  }
  nested.exact = false;
  auto [b, e] = Map(begin, end);
  nested.span_begin = b;
  nested.span_end = e;
  return nested;
}

Parser::Parser(std::string_view source, const Origin& origin, Visitor& visitor, ParseState& state,
               int depth)
    : src_(source), continuations_(source.find("\\\n") != std::string_view::npos),
      end_(source.size()), origin_(origin), visitor_(visitor), state_(state),
      depth_(depth), outermost_(depth == 0) {}

void ParseShell(std::string_view source, const Origin& origin, Visitor& visitor, ParseState& state,
                int depth) {
  Parser(source, origin, visitor, state, depth).Run();
}

bool Parser::Begin() {
  state_.work += src_.size();
  if (state_.work > state_.work_limit) {
    SetLimit("the command needs more parsing work than the limit allows");
    return false;
  }
  if (static_cast<std::size_t>(depth_) > state_.max_depth) {
    SetLimit("commands are nested more than " + std::to_string(state_.max_depth) + " levels deep");
    return false;
  }
  return true;
}

void Parser::Run() {
  if (!Begin()) return;
  ParseList(0);
  // Heredocs still open at the end of the text take the rest as their body.
  if (!state_.aborted()) ReadHeredocBodies();
}

void Parser::Error(std::string_view what) {
  if (!state_.error.empty()) return;
  auto [offset, unused] = origin_.Map(std::min(pos_, src_.size()), std::min(pos_, src_.size()));
  state_.error = std::string(what) + " at offset " + std::to_string(offset);
}

void Parser::SetLimit(std::string what) {
  if (state_.limit.empty()) state_.limit = std::move(what);
  pos_ = end_;
}

bool Parser::Enter() {
  if (static_cast<std::size_t>(++depth_) > state_.max_depth) {
    SetLimit("commands are nested more than " + std::to_string(state_.max_depth) + " levels deep");
    --depth_;
    return false;
  }
  return true;
}

void Parser::ParseNested(std::string_view text, std::size_t raw_begin, std::size_t raw_end) {
  Origin nested = origin_.Nested(src_, raw_begin, raw_end, text);
  ParseShell(text, nested, visitor_, state_, depth_ + 1);
}

bool Parser::AtTerminator(std::uint32_t terms) {
  std::size_t end = 0;
  Keyword keyword = PeekKeyword(&end);
  std::uint32_t wanted = 0;
  switch (keyword) {
    case Keyword::kThen: wanted = kTermThen; break;
    case Keyword::kElif: case Keyword::kElse: wanted = kTermElse; break;
    case Keyword::kFi: wanted = kTermElse | kTermFi; break;
    case Keyword::kDo: wanted = kTermDo; break;
    case Keyword::kDone: wanted = kTermDone; break;
    case Keyword::kEsac: wanted = kTermCase; break;
    case Keyword::kBraceClose: wanted = kTermBrace; break;
    default: return false;
  }
  if (terms & wanted) return true;
  Error("unexpected keyword");
  pos_ = end;
  return false;
}

void Parser::ParseList(std::uint32_t terms) {
  while (!state_.aborted()) {
    SkipLinebreaks();
    if (AtEnd()) return;
    char c = Peek();
    if (c == ')') {
      if (terms & kTermParen) return;
      Error("unexpected )");
      ++pos_;
      continue;
    }
    if (c == ';') {
      if (PeekAt(1) == ';' || PeekAt(1) == '&') {
        if (terms & kTermCase) return;
        Error("unexpected ;;");
        Advance(PeekAt(2) == '&' ? 3 : 2);
      } else {
        Error("unexpected ;");
        ++pos_;
      }
      continue;
    }
    if (c == '|' || (c == '&' && PeekAt(1) != '>')) {
      Error("unexpected operator");
      ++pos_;
      continue;
    }
    std::size_t before = pos_;
    if (AtTerminator(terms)) return;
    if (pos_ != before) continue;  // a stray keyword, skipped
    std::uint32_t first_pipeline = state_.pipelines + 1;
    ParseAndOr();
    SkipBlanks();
    SkipComment();
    c = Peek();
    if (AtEnd() || c == ')' || c == '\n') continue;
    if (c == ';') {
      if (PeekAt(1) == ';' || PeekAt(1) == '&') continue;  // the loop top decides
      ++pos_;
    } else if (c == '&') {
      ++pos_;
      state_.MarkSubshell(first_pipeline, state_.pipelines);
    } else if (pos_ == before) {
      Error("unexpected character");
      ++pos_;
    } else {
      Error("expected ; or a newline");
    }
  }
}

void Parser::ParseAndOr() {
  ParsePipeline();
  while (!state_.aborted()) {
    SkipBlanks();
    char c = Peek();
    if ((c == '&' || c == '|') && PeekAt(1) == c) {
      Advance(2);
      SkipLinebreaks();
      bool saved = conditional_;
      conditional_ = true;
      ParsePipeline();
      conditional_ = saved;
    } else {
      return;
    }
  }
}

void Parser::ParsePipeline() {
  std::uint32_t id = ++state_.pipelines;
  while (!state_.aborted()) {
    SkipBlanks();
    std::size_t end = 0;
    Keyword keyword = PeekKeyword(&end);
    if (keyword == Keyword::kBang) {
      pos_ = end;
    } else if (keyword == Keyword::kTime) {
      pos_ = end;
      SkipBlanks();
      // `time -p`, `time --`, `time -p --`: bash takes each before the command.
      if (Peek() == '-' && PeekAt(1) == 'p' && (IsMeta(PeekAt(2)) || PeekAt(2) == '\0')) {
        Advance(2);
        SkipBlanks();
      }
      if (Peek() == '-' && PeekAt(1) == '-' && (IsMeta(PeekAt(2)) || PeekAt(2) == '\0')) Advance(2);
    } else {
      break;
    }
  }
  std::uint32_t index = 0;
  ParseCommand(id, index);
  while (!state_.aborted()) {
    SkipBlanks();
    if (Peek() != '|' || PeekAt(1) == '|') break;
    Advance(PeekAt(1) == '&' ? 2 : 1);
    SkipLinebreaks();
    ++nesting_;  // a later stage runs in a subshell
    ParseCommand(id, ++index);
    --nesting_;
  }
  if (index > 0) state_.MarkSubshell(id, id);
}

void Parser::ParseCommand(std::uint32_t pipeline_id, std::uint32_t pipe_index) {
  if (!Enter()) return;
  SkipBlanks();
  if (Peek() == '(') {
    if (PeekAt(1) == '(') {
      ParseArithCommand();
    } else {
      ParseSubshell();
    }
    ParseTrailingRedirects();
    Leave();
    return;
  }
  std::size_t end = 0;
  Keyword keyword = PeekKeyword(&end);
  switch (keyword) {
    case Keyword::kIf: case Keyword::kWhile: case Keyword::kUntil: case Keyword::kFor:
    case Keyword::kSelect: case Keyword::kCase: case Keyword::kFunction:
    case Keyword::kBraceOpen: case Keyword::kCondOpen: case Keyword::kCoproc:
      pos_ = end;
      ParseCompound(keyword);
      ParseTrailingRedirects();
      break;
    case Keyword::kBang: case Keyword::kTime:  // misplaced, but harmless
      pos_ = end;
      ParseCommand(pipeline_id, pipe_index);
      break;
    default:
      ParseSimpleCommand(pipeline_id, pipe_index);
  }
  Leave();
}

void Parser::ParseCompound(Keyword keyword) {
  // Only { } runs its list once, in this shell, unconditionally.
  bool nests = keyword != Keyword::kBraceOpen;
  nesting_ += nests;
  ParseCompoundBody(keyword);
  nesting_ -= nests;
}

void Parser::ParseCompoundBody(Keyword keyword) {
  switch (keyword) {
    case Keyword::kIf: ParseIf(); break;
    case Keyword::kWhile: case Keyword::kUntil: ParseLoop(); break;
    case Keyword::kFor: case Keyword::kSelect: ParseFor(); break;
    case Keyword::kCase: ParseCase(); break;
    case Keyword::kFunction: ParseFunction(); break;
    case Keyword::kCondOpen: ParseCondition(); break;
    case Keyword::kBraceOpen:
      ParseList(kTermBrace);
      ExpectKeyword(Keyword::kBraceClose, "expected } to close {");
      break;
    case Keyword::kCoproc: {
      // coproc NAME compound-command: skip NAME when a compound follows it.
      SkipBlanks();
      std::size_t k = pos_;
      while (k < end_ && IsNameChar(src_[k])) ++k;
      if (k > pos_) {
        std::size_t saved = pos_;
        pos_ = k;
        SkipBlanks();
        std::size_t end = 0;
        Keyword next = PeekKeyword(&end);
        bool compound = Peek() == '(' || next == Keyword::kBraceOpen || next == Keyword::kIf ||
                        next == Keyword::kWhile || next == Keyword::kUntil ||
                        next == Keyword::kFor || next == Keyword::kCase ||
                        next == Keyword::kSelect || next == Keyword::kCondOpen;
        if (!compound) pos_ = saved;
      }
      ParseCommand(++state_.pipelines, 0);
      break;
    }
    default: break;
  }
}

void Parser::ExpectKeyword(Keyword keyword, const char* what) {
  SkipLinebreaks();
  std::size_t end = 0;
  if (PeekKeyword(&end) == keyword) {
    pos_ = end;
  } else {
    Error(what);
  }
}

void Parser::ParseIf() {
  ParseList(kTermThen);
  ExpectKeyword(Keyword::kThen, "expected then");
  ParseList(kTermElse);
  while (!state_.aborted()) {
    std::size_t end = 0;
    Keyword keyword = PeekKeyword(&end);
    if (keyword == Keyword::kElif) {
      pos_ = end;
      ParseList(kTermThen);
      ExpectKeyword(Keyword::kThen, "expected then");
      ParseList(kTermElse);
    } else if (keyword == Keyword::kElse) {
      pos_ = end;
      ParseList(kTermFi);
      ExpectKeyword(Keyword::kFi, "expected fi");
      return;
    } else if (keyword == Keyword::kFi) {
      pos_ = end;
      return;
    } else {
      Error("expected fi");
      return;
    }
  }
}

void Parser::ParseLoop() {
  ParseList(kTermDo);
  ExpectKeyword(Keyword::kDo, "expected do");
  ParseList(kTermDone);
  ExpectKeyword(Keyword::kDone, "expected done");
}

void Parser::ParseFor() {
  SkipBlanks();
  if (Peek() == '(' && PeekAt(1) == '(') {
    Advance(2);
    if (!ScanArithmetic()) Error("expected )) to close for ((");
  } else {
    Word name;
    if (!ScanWord(name)) Error("expected a name after for");
    SkipLinebreaks();
    std::size_t end = 0;
    std::vector<Word> items;
    bool has_list = PeekKeyword(&end) == Keyword::kIn;
    if (has_list) {
      pos_ = end;
      while (!state_.aborted()) {
        SkipBlanks();
        char c = Peek();
        if (AtEnd() || c == ';' || c == '\n') break;
        if (c == '#') {
          SkipComment();
          break;
        }
        Word item;
        if (!ScanWord(item)) {
          Error("unexpected character in for list");
          ++pos_;
          continue;
        }
        CheckEvaluatedWord(item);
        items.push_back(std::move(item));
      }
    }
    if (!state_.aborted()) visitor_.OnLoopVariable(name, items, has_list);
  }
  SkipBlanks();
  if (Peek() == ';') ++pos_;
  SkipLinebreaks();
  std::size_t end = 0;
  Keyword keyword = PeekKeyword(&end);
  if (keyword == Keyword::kDo) {
    pos_ = end;
    ParseList(kTermDone);
    ExpectKeyword(Keyword::kDone, "expected done");
  } else if (keyword == Keyword::kBraceOpen) {
    pos_ = end;
    ParseList(kTermBrace);
    ExpectKeyword(Keyword::kBraceClose, "expected }");
  } else {
    Error("expected do");
  }
}

void Parser::ParseCase() {
  SkipBlanks();
  Word subject;
  if (!ScanWord(subject)) Error("expected a word after case");
  SkipLinebreaks();
  ExpectKeyword(Keyword::kIn, "expected in");
  while (!state_.aborted()) {
    SkipLinebreaks();
    if (AtEnd()) {
      Error("expected esac");
      return;
    }
    std::size_t end = 0;
    if (PeekKeyword(&end) == Keyword::kEsac) {
      pos_ = end;
      return;
    }
    if (Peek() == '(') ++pos_;
    while (!state_.aborted()) {  // pattern | pattern ... )
      SkipBlanks();
      Word pattern;
      bool scanned = ScanWord(pattern);
      SkipBlanks();
      char c = Peek();
      if (c == '|') {
        ++pos_;
        continue;
      }
      if (c == ')') {
        ++pos_;
        break;
      }
      Error("expected ) after a case pattern");
      if (!scanned && !AtEnd()) ++pos_;
      break;
    }
    ParseList(kTermCase);
    SkipBlanks();
    if (Peek() == ';' && PeekAt(1) == ';') {
      Advance(PeekAt(2) == '&' ? 3 : 2);
    } else if (Peek() == ';' && PeekAt(1) == '&') {
      Advance(2);
    }
  }
}

void Parser::ParseFunction() {
  SkipBlanks();
  Word name;
  if (!ScanWord(name)) Error("expected a function name");
  SkipBlanks();
  if (Peek() == '(') {
    ++pos_;
    SkipBlanks();
    if (Peek() == ')') {
      ++pos_;
    } else {
      Error("expected ) in function definition");
    }
  }
  ParseFunctionBody(name);
}

void Parser::ParseFunctionBody(const Word& name) {
  SkipLinebreaks();
  std::size_t begin = Skip(pos_);
  ++function_depth_;
  ParseCommand(++state_.pipelines, 0);
  --function_depth_;
  if (!state_.aborted() && !name.text.empty()) {
    visitor_.OnFunction(name, src_, begin, std::max(begin, std::min(pos_, end_)), origin_);
  }
}

void Parser::ParseCondition() {
  // [[ ... ]]: operands are words (their substitutions run), operators are
  // not commands.
  while (!state_.aborted()) {
    SkipBlanks();
    if (SkipNewline()) continue;
    if (AtEnd()) {
      Error("expected ]] to close [[");
      return;
    }
    char c = Peek();
    if (c == ']' && PeekAt(1) == ']' && (IsMeta(PeekAt(2)) || PeekAt(2) == '\0')) {
      Advance(2);
      return;
    }
    if (c == ';') {
      Error("expected ]] to close [[");
      return;
    }
    if (c == '(' || c == ')' || c == '<' || c == '>' || c == '!' || c == '|' || c == '&') {
      ++pos_;
      continue;
    }
    Word operand;
    if (!ScanWord(operand)) {
      ++pos_;
      continue;
    }
    CheckEvaluatedWord(operand);
  }
}

void Parser::ParseSubshell() {
  ++pos_;  // (
  ++nesting_;
  ParseList(kTermParen);
  --nesting_;
  if (Peek() == ')') {
    ++pos_;
  } else {
    Error("expected ) to close (");
  }
}

void Parser::ParseArithCommand() {
  std::size_t start = pos_;
  std::size_t heredocs = heredocs_.size();
  Advance(2);
  if (ScanArithmetic()) return;
  if (!Rewind(heredocs)) return;
  pos_ = start;
  ParseSubshell();
}

void Parser::ParseTrailingRedirects() {
  // Redirections of a compound command; heredoc bodies are still read and
  // their expansions found.
  std::vector<Redirect> redirects;
  while (!state_.aborted()) {
    SkipBlanks();
    if (!ParseRedirect(&redirects)) break;
  }
}

void Parser::ParseSimpleCommand(std::uint32_t pipeline_id, std::uint32_t pipe_index) {
  ReusedVector<Word> reused;  // one buffer per command, kept for the next
  std::vector<Word>& words = *reused;
  words.reserve(8);
  std::vector<Redirect> redirects;
  while (!state_.aborted()) {
    SkipBlanks();
    if (AtEnd()) break;
    char c = Peek();
    if (c == '\n' || c == ';' || c == '|' || c == ')') break;
    if (c == '&' && PeekAt(1) != '>') break;
    if (c == '#') {
      SkipComment();
      break;
    }
    // Only these bytes can start a redirection (2>, {fd}>, <, >, &>).
    if ((IsDigit(c) || c == '{' || c == '<' || c == '>' || c == '&') && ParseRedirect(&redirects)) {
      continue;
    }
    if (c == '(') {
      if (words.size() == 1 && redirects.empty() && !(words[0].flags & kQuoted)) {
        ++pos_;  // name () compound-command
        SkipBlanks();
        if (Peek() == ')') {
          ++pos_;
        } else {
          Error("expected ) in function definition");
        }
        ++nesting_;
        ParseFunctionBody(words[0]);
        --nesting_;
        return;
      }
      Error("unexpected (");
      ParseSubshell();
      continue;
    }
    // Scanned in place: a Word moved into the vector cost a copy of its text.
    if (!ScanWord(words.emplace_back())) {
      words.pop_back();
      Error("unexpected character");
      ++pos_;
      continue;
    }
    CheckEvaluatedWord(words.back());
  }
  bool waiting = std::any_of(redirects.begin(), redirects.end(), [this](const Redirect& r) {
    return r.op == RedirectOp::kHeredoc && r.heredoc_index >= next_heredoc_;
  });
  bool top_level = outermost_ && nesting_ == 0 && !conditional_;
  if (waiting) {
    deferred_.push_back({std::move(words), std::move(redirects), pipeline_id, pipe_index,
                         top_level, function_depth_ > 0});
    return;
  }
  Emit(words, redirects, pipeline_id, pipe_index, top_level, function_depth_ > 0);
}

void Parser::Emit(std::span<const Word> words, std::span<const Redirect> redirects,
                  std::uint32_t pipeline_id, std::uint32_t pipe_index, bool top_level,
                  bool in_function) {
  if (words.empty() && redirects.empty()) return;
  SimpleCommand command;
  command.top_level = top_level;
  command.in_function = in_function;
  command.words = words;
  command.redirects = redirects;
  command.source = src_;
  command.origin = &origin_;
  command.depth = depth_;
  command.pipeline_id = pipeline_id;
  command.pipe_index = pipe_index;
  visitor_.OnSimpleCommand(command);
}

}  // namespace corral::policy::shell
