// A recursive-descent parser for the bash / POSIX sh command language that
// reports every simple command it finds (also inside substitutions, compound
// commands, function bodies and unquoted heredoc bodies) to a Visitor. It
// never throws, bounds its recursion and work, and keeps going after a syntax
// error so that nothing can hide behind one. Private to policy/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/shell_lexer.h"

namespace corral::policy::shell {

// Where a parsed text sits in the original command line. Text decoded from
// quotes or escapes does not map byte for byte; its words map to the range
// of the word it came from.
struct Origin {
  bool exact = true;
  std::size_t base = 0;        // exact: offset of byte 0 of the text
  std::size_t span_begin = 0;  // inexact: the range everything maps to
  std::size_t span_end = 0;

  // The range in the original input of bytes [begin, end) of this text.
  // Inline: asked for every word, and a call returning the pair through
  // registers cost a store-forwarding stall per word (perf annotate).
  std::pair<std::size_t, std::size_t> Map(std::size_t begin, std::size_t end) const {
    if (exact) return {base + begin, base + end};
    return {span_begin, span_end};
  }
  // The origin of `text`, which was decoded from bytes [begin, end) of `source`.
  Origin Nested(std::string_view source, std::size_t begin, std::size_t end,
                std::string_view text) const;
};

enum class RedirectOp : std::uint8_t {
  kIn,             // <
  kOut,            // >
  kAppend,         // >>
  kClobber,        // >|
  kInOut,          // <>
  kDupIn,          // <&
  kDupOut,         // >&
  kOutErr,         // &>
  kAppendOutErr,   // &>>
  kHeredoc,        // << and <<-
  kHereString,     // <<<
};

struct Redirect {
  int fd = -1;  // explicit descriptor number, -1 when none
  RedirectOp op = RedirectOp::kOut;
  Word target;  // file, descriptor, here-string word or heredoc delimiter
  // Heredocs: the body's raw range in the source, and whether the delimiter
  // was quoted (then the body is data without expansions).
  std::uint32_t body_begin = 0;
  std::uint32_t body_end = 0;
  bool body_quoted = false;
  std::uint32_t heredoc_index = 0;  // parser-internal
};

struct SimpleCommand {
  std::span<const Word> words;  // leading assignments included (kAssignment)
  std::span<const Redirect> redirects;
  std::string_view source;      // the text the words and bodies index into
  const Origin* origin = nullptr;
  int depth = 0;                 // nesting depth, for the recursion limit
  std::uint32_t pipeline_id = 0;
  std::uint32_t pipe_index = 0;  // > 0: standard input is the previous command's output
  // Runs in the shell of the whole line, unconditionally, before the text
  // after it: not in a subshell, substitution, function, loop, branch or
  // after && / ||. (A pipeline or & after it is in ParseState.)
  bool top_level = false;
  bool in_function = false;  // inside a function body, as defined (not as called)
};

class Visitor {
 public:
  virtual void OnSimpleCommand(const SimpleCommand& command) = 0;
  // A function definition, after its body's commands were reported: the
  // body is bytes [begin, end) of `source`.
  virtual void OnFunction(const Word& /*name*/, std::string_view /*source*/, std::size_t /*begin*/,
                          std::size_t /*end*/, const Origin& /*origin*/) {}
  // for/select NAME [in ITEMS]: NAME takes each item (the positional
  // parameters when there is no `in`), reported before the body.
  virtual void OnLoopVariable(const Word& /*name*/, std::span<const Word> /*items*/,
                              bool /*has_list*/) {}
  // ${NAME:=...} / ${NAME=...} (op '=') assign NAME; ${NAME@P} (op 'P')
  // expands NAME's value as a prompt string, substitutions included.
  // [begin, end) is where it stands in the original command line.
  virtual void OnParameterOperator(std::string_view /*name*/, char /*op*/, std::size_t /*begin*/,
                                   std::size_t /*end*/) {}

 protected:
  ~Visitor() = default;
};

// Shared by every parser working on one command line, nested ones included.
struct ParseState {
  std::size_t max_depth = 48;
  std::size_t work_limit = 0;  // bytes over all nested texts
  std::size_t work = 0;
  std::uint32_t rewinds = 0;    // (( and $(( that turned out to be subshells
  std::uint32_t heredocs = 0;
  std::uint32_t pipelines = 0;
  std::uint32_t max_heredocs = 10000;
  std::uint32_t max_rewinds = 8;
  // By pipeline id: pipelines of more than one command, and pipelines in a
  // list put in the background with &. Their commands run in subshells.
  // The first 64 ids in a word (a line has a few pipelines; a vector cost
  // an allocation in every line with one), the rest in a vector.
  std::uint64_t subshell_few = 0;
  std::vector<bool> subshell_more;
  void MarkSubshell(std::uint32_t first, std::uint32_t last) {
    for (std::uint32_t id = first; id <= last && id < 64; ++id) subshell_few |= 1ull << id;
    if (last < 64) return;
    if (subshell_more.size() <= last) subshell_more.resize(last + 1, false);
    for (std::uint32_t id = std::max(first, 64u); id <= last; ++id) subshell_more[id] = true;
  }
  bool InSubshell(std::uint32_t id) const {
    if (id < 64) return (subshell_few >> id) & 1;
    return id < subshell_more.size() && subshell_more[id];
  }
  std::string limit;  // set once a limit was hit; everything stops
  std::string error;  // the first syntax error, with its offset
  bool aborted() const { return !limit.empty(); }
};

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

// Parses a whole command line.
void ParseShell(std::string_view source, const Origin& origin, Visitor& visitor,
                ParseState& state, int depth);

// Reports the substitutions in `text` read as the inside of double quotes.
void ParseExpansions(std::string_view text, const Origin& origin, Visitor& visitor,
                     ParseState& state, int depth);

// True when `text` holds an array subscript with a substitution in it
// (a[$(cmd)]): bash runs it wherever it evaluates the text as a name or a
// number (arithmetic, test -v, printf -v, read, declare -n, ${!x}, ...).
bool HasSubscriptCode(std::string_view text);

}  // namespace corral::policy::shell
