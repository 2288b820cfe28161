// policy/shell/: the bash / POSIX sh command language as the matcher reads
// it. The lexer's words and character classes, and a recursive-descent parser
// that reports every simple command it finds (also inside substitutions,
// compound commands, function bodies and unquoted heredoc bodies) to a
// Visitor. It never throws, bounds its recursion and work, and keeps going
// after a syntax error so that nothing can hide behind one. Brace expansion
// of the words the lexer marked.
// The one public header of policy/shell/ (docs/architecture.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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

// ---------------------------------------------------------------- parser

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

// ---------------------------------------------------------------- brace expansion

namespace corral::policy {


// Appends the words `text` expands to. False when there would be more than
// `limit` of them (the output is then incomplete).
bool ExpandBraces(std::string_view text, std::size_t limit, std::vector<std::string>* out);

// The text with brace marks turned back into { , }.
std::string RestoreBraceMarks(std::string_view text);

}  // namespace corral::policy
