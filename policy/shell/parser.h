// The parser's class, shared by the lexer, the parser and the expansions
// files. Private to policy/shell/.
#pragma once

#include "policy/shell/shell.h"

namespace corral::policy::shell {

class Parser {
 public:
  Parser(std::string_view source, const Origin& origin, Visitor& visitor, ParseState& state,
         int depth);

  // Parses the whole text, reporting commands as it goes.
  void Run();
  // Reports only the substitutions in the text, read as the inside of
  // double quotes (a prompt string, a value bash evaluates later).
  void RunExpansions();

 private:
  struct Heredoc {
    std::string delimiter;
    bool strip_tabs = false;
    bool quoted = false;
    std::uint32_t body_begin = 0;
    std::uint32_t body_end = 0;
    bool read = false;
  };
  struct Deferred {  // a command waiting for its heredoc bodies
    std::vector<Word> words;
    std::vector<Redirect> redirects;
    std::uint32_t pipeline_id = 0;
    std::uint32_t pipe_index = 0;
    bool top_level = false;
    bool in_function = false;
  };
  enum Term : std::uint32_t {
    kTermParen = 1u << 0,
    kTermBrace = 1u << 1,
    kTermThen = 1u << 2,
    kTermElse = 1u << 3,  // elif, else, fi
    kTermFi = 1u << 4,
    kTermDo = 1u << 5,
    kTermDone = 1u << 6,
    kTermCase = 1u << 7,  // ;; ;& ;;& esac
  };
  enum class Keyword {
    kNone, kIf, kThen, kElif, kElse, kFi, kWhile, kUntil, kDo, kDone, kFor, kSelect, kIn,
    kCase, kEsac, kFunction, kTime, kCoproc, kBraceOpen, kBraceClose, kBang, kCondOpen,
  };

  // ---- grammar (shell_parser.cc)
  bool Begin();  // counts this text's work; false (limit set) past the limits
  void ParseList(std::uint32_t terms);
  void ParseAndOr();
  void ParsePipeline();
  void ParseCommand(std::uint32_t pipeline_id, std::uint32_t pipe_index);
  void ParseCompound(Keyword keyword);
  void ParseCompoundBody(Keyword keyword);
  void ParseIf();
  void ParseLoop();
  void ParseFor();
  void ParseCase();
  void ParseFunction();
  void ParseFunctionBody(const Word& name);
  void ParseCondition();
  void ParseSubshell();
  void ParseArithCommand();
  void ParseSimpleCommand(std::uint32_t pipeline_id, std::uint32_t pipe_index);
  void ParseTrailingRedirects();
  bool ParseRedirect(std::vector<Redirect>* out);
  void Emit(std::span<const Word> words, std::span<const Redirect> redirects,
            std::uint32_t pipeline_id, std::uint32_t pipe_index, bool top_level,
            bool in_function);
  void ExpectKeyword(Keyword keyword, const char* what);
  bool AtTerminator(std::uint32_t terms);

  // ---- tokens and words (shell_lexer.cc)
  // Past line continuations at j. Asked at nearly every byte, so a text
  // with none (most) answers without looking.
  std::size_t Skip(std::size_t j) const { return continuations_ ? SkipContinuations(j) : j; }
  std::size_t SkipContinuations(std::size_t j) const;
  char Peek() {  // current char after line continuations, '\0' at end
    if (continuations_) pos_ = SkipContinuations(pos_);
    return pos_ < end_ ? src_[pos_] : '\0';
  }
  char PeekAt(std::size_t k);  // k chars further, continuations skipped
  void Advance(std::size_t n);  // over n chars, continuations skipped
  bool AtEnd() {
    if (continuations_) pos_ = SkipContinuations(pos_);
    return pos_ >= end_;
  }
  void SkipBlanks() {
    if (continuations_) {
      while (IsBlank(Peek())) ++pos_;
      return;
    }
    std::size_t at = pos_;  // a local: a store to pos_ might change end_ for all the compiler knows
    while (at < end_ && IsBlank(src_[at])) ++at;
    pos_ = at;
  }
  void SkipComment();
  bool SkipNewline();  // consumes one newline token, reading pending heredocs
  void SkipLinebreaks();
  Keyword PeekKeyword(std::size_t* end);
  Keyword ReadKeyword(std::size_t at, std::size_t* end) const;
  void ConsumeTo(std::size_t end) { pos_ = end; }
  bool ScanWord(Word& word);
  void ScanSingleQuoted(Word& word);
  void ScanDoubleQuoted(Word& word);
  void ScanDollar(Word& word, bool in_double_quotes);
  void ScanParameter(Word& word, bool in_double_quotes);
  void ScanBackquote(Word& word, bool in_double_quotes);
  void ScanCommandSubstitution(Word& word, bool in_double_quotes);
  void AddExpansion(Word& word, bool in_double_quotes);
  bool ScanArithmetic();  // after "((": false when it was not arithmetic
  bool Rewind(std::size_t heredocs);  // after a failed ScanArithmetic
  void ScanGroup(Word& word);  // extglob (...) and array assignments
  void ScanArrayAssignment(Word& word);
  void CheckAssignment(Word& word);
  void FinishBraces(Word& word);
  void ReadHeredocBodies();
  void ReadHeredocBody(Heredoc& doc);
  // Substitutions in bytes [begin, end) run here (heredoc bodies, and quoted
  // text that bash evaluates: arithmetic, subscripts).
  void ScanExpansionsIn(std::size_t begin, std::size_t end);
  void ScanQuotedInEvaluation();  // a single-quoted string that bash evaluates anyway
  void CheckEvaluatedWord(const Word& word);
  void ParseNested(std::string_view text, std::size_t raw_begin, std::size_t raw_end);
  void Error(std::string_view what);
  void SetLimit(std::string what);
  bool Enter();  // recursion guard; false (and limit set) when too deep
  void Leave() { --depth_; }

  std::string_view src_;
  bool continuations_;  // src_ holds a backslash-newline
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  Origin origin_;
  Visitor& visitor_;
  ParseState& state_;
  int depth_;
  std::vector<Heredoc> heredocs_;
  std::size_t next_heredoc_ = 0;  // first heredoc whose body is unread
  std::vector<Deferred> deferred_;
  bool outermost_ = false;   // the text of the whole command line
  int nesting_ = 0;          // inside subshells, substitutions, compounds other than { }
  int function_depth_ = 0;   // inside function bodies
  bool conditional_ = false;  // after && or ||
  // PeekKeyword's last answer: the keyword at keyword_at_ (none before the
  // first question), ending at keyword_end_.
  static constexpr std::size_t kNoKeywordAt = static_cast<std::size_t>(-1);
  std::size_t keyword_at_ = kNoKeywordAt;
  std::size_t keyword_end_ = 0;
  Keyword keyword_ = Keyword::kNone;
};

}  // namespace corral::policy::shell
