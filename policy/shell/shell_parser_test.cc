// The parser on its own: which simple commands it reports, with which words.
#include "policy/shell/shell.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace corral::policy::shell {
namespace {

struct Seen {
  std::vector<std::string> words;  // marks shown as $ { , }
  std::vector<std::uint32_t> flags;
  std::vector<std::string> bodies;  // heredoc bodies
  std::uint32_t pipe_index = 0;
  std::uint32_t pipeline_id = 0;
  bool top_level = false;
  bool in_function = false;
};

class Collect : public Visitor {
 public:
  void OnSimpleCommand(const SimpleCommand& command) override {
    Seen seen;
    for (const Word& word : command.words) {
      std::string text;
      for (char c : word.text) {
        text += c == kExpansionMark ? '$' : c == kBraceOpen ? '{' : c == kBraceComma ? ','
              : c == kBraceClose ? '}' : c;
      }
      seen.words.push_back(text);
      seen.flags.push_back(word.flags);
    }
    for (const Redirect& r : command.redirects) {
      if (r.op == RedirectOp::kHeredoc) {
        seen.bodies.emplace_back(command.source.substr(r.body_begin, r.body_end - r.body_begin));
      }
    }
    seen.pipe_index = command.pipe_index;
    seen.pipeline_id = command.pipeline_id;
    seen.top_level = command.top_level;
    seen.in_function = command.in_function;
    commands.push_back(seen);
  }
  void OnFunction(const Word& name, std::string_view source, std::size_t begin, std::size_t end,
                  const Origin&) override {
    functions.push_back(name.text + "=" + std::string(source.substr(begin, end - begin)));
  }
  void OnLoopVariable(const Word& name, std::span<const Word> items, bool has_list) override {
    std::string seen = name.text + (has_list ? " in" : "");
    for (const Word& item : items) seen += " " + item.text;
    loops.push_back(seen);
  }
  void OnParameterOperator(std::string_view name, char op, std::size_t, std::size_t) override {
    operators.push_back(std::string(name) + op);
  }
  std::vector<Seen> commands;
  std::vector<std::string> functions;
  std::vector<std::string> loops;
  std::vector<std::string> operators;
};

struct Parsed {
  std::vector<Seen> commands;
  std::string error;
  Collect collect;
  ParseState state;
};

Parsed Parse(std::string_view text) {
  Parsed parsed;
  parsed.state.work_limit = 1 << 24;
  ParseShell(text, Origin{}, parsed.collect, parsed.state, 0);
  parsed.commands = parsed.collect.commands;
  parsed.error = parsed.state.error;
  return parsed;
}

std::vector<std::string> FirstWords(std::string_view text) {
  std::vector<std::string> out;
  for (const Seen& seen : Parse(text).commands) {
    if (!seen.words.empty()) out.push_back(seen.words[0]);
  }
  return out;
}

using Words = std::vector<std::string>;

TEST(Parser, QuoteRemoval) {
  Parsed p = Parse("echo 'a b' \"c $x d\" e\\ f $'g\\th' $\"i\" j''k \"\"");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_EQ(p.commands[0].words, (Words{"echo", "a b", "c $ d", "e f", "g\th", "i", "jk", ""}));
  EXPECT_TRUE(p.commands[0].flags[2] & kExpansion);
  EXPECT_FALSE(p.commands[0].flags[2] & kUnquotedExpansion);
  EXPECT_TRUE(p.error.empty());
}

TEST(Parser, SubstitutionsAreReportedBeforeTheirCommand) {
  EXPECT_EQ(FirstWords("a $(b) `c` <(d) >(e) \"$(f)\" ${x:-$(g)} $((1+$(h)))"),
            (Words{"b", "c", "d", "e", "f", "g", "h", "a"}));
}

TEST(Parser, KeywordsOnlyInCommandPosition) {
  EXPECT_EQ(FirstWords("echo if then fi; if a; then b; fi"), (Words{"echo", "a", "b"}));
  EXPECT_EQ(FirstWords("for x in a b; do c; done"), (Words{"c"}));
  EXPECT_EQ(FirstWords("case w in a|b) c;; (d) e;& esac"), (Words{"c", "e"}));
  EXPECT_EQ(FirstWords("{ a; }; ( b ); ! c; time -p d"), (Words{"a", "b", "c", "d"}));
  EXPECT_EQ(FirstWords("echo { } }"), (Words{"echo"}));
}

TEST(Parser, Pipelines) {
  Parsed p = Parse("a | b |& c && d");
  ASSERT_EQ(p.commands.size(), 4u);
  EXPECT_EQ(p.commands[1].pipe_index, 1u);
  EXPECT_EQ(p.commands[2].pipe_index, 2u);
  EXPECT_EQ(p.commands[3].pipe_index, 0u);
}

TEST(Parser, Assignments) {
  Parsed p = Parse("A=1 B+=2 C[3]=4 D=(x y) \"E=5\" f G=6");
  ASSERT_EQ(p.commands.size(), 1u);
  const Seen& s = p.commands[0];
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(s.flags[i] & kAssignment) << i;
  EXPECT_FALSE(s.flags[4] & kAssignment);
}

TEST(Parser, BraceExpansionIsMarked) {
  Parsed p = Parse("{a,b}c {1..3} {} {x} a{b x={a,b}");
  const Seen& s = p.commands[0];
  EXPECT_TRUE(s.flags[0] & kBrace);
  EXPECT_TRUE(s.flags[1] & kBrace);
  EXPECT_FALSE(s.flags[2] & kBrace);
  EXPECT_FALSE(s.flags[3] & kBrace);
  EXPECT_FALSE(s.flags[4] & kBrace);
  EXPECT_FALSE(s.flags[5] & kBrace);  // assignments are not brace-expanded
}

TEST(Parser, Heredocs) {
  Parsed p = Parse("cat <<A <<-'B'; x\none\nA\n\ttwo\n\tB\ny");
  ASSERT_EQ(p.commands.size(), 3u);
  EXPECT_EQ(p.commands[0].words[0], "x");  // the heredoc command waits for its bodies
  EXPECT_EQ(p.commands[1].words[0], "cat");
  EXPECT_EQ(p.commands[1].bodies, (Words{"one\n", "\ttwo\n"}));
  EXPECT_EQ(p.commands[2].words[0], "y");
}

TEST(Parser, HeredocDelimiterQuotingAndEof) {
  EXPECT_EQ(FirstWords("cat <<\"E\"\n$(a)\nE\nb"), (Words{"cat", "b"}));
  EXPECT_EQ(FirstWords("cat <<E\n$(a)\nE\nb"), (Words{"a", "cat", "b"}));
  EXPECT_EQ(FirstWords("cat <<E\n$(a)"), (Words{"a", "cat"}));  // body runs to the end
}

TEST(Parser, LineContinuations) {
  EXPECT_EQ(FirstWords("ec\\\nho a &\\\n& b"), (Words{"echo", "b"}));
  EXPECT_EQ(FirstWords("a # comment \\\nb"), (Words{"a", "b"}));
}

TEST(Parser, ArithmeticAndNestedSubshells) {
  EXPECT_EQ(FirstWords("(( x = $(a) )); ((b) ); $((c) )"), (Words{"a", "b", "c", "$"}));
  EXPECT_EQ(FirstWords("for ((i=0; i<$(a); i++)); do b; done"), (Words{"a", "b"}));
}

TEST(Parser, FunctionsAndCoproc) {
  EXPECT_EQ(FirstWords("f() { a; }; function g { b; }; function h() ( c ); coproc N { d; }"),
            (Words{"a", "b", "c", "d"}));
}

TEST(Parser, ConditionalsAreNotCommands) {
  EXPECT_EQ(FirstWords("[[ a == b && ( c < d ) || $(e) =~ ^(f|g)$ ]]"), (Words{"e"}));
}

TEST(Parser, SyntaxErrorsAreRecordedAndParsingGoesOn) {
  Parsed p = Parse("a; )\nb; fi; c \"");
  EXPECT_FALSE(p.error.empty());
  EXPECT_EQ(FirstWords("a; )\nb; fi; c \""), (Words{"a", "b", "c"}));
}

TEST(Parser, TopLevelCommandsRunUnconditionallyInThisShell) {
  Parsed p = Parse("a; { b; }; c && d; (e); $(f); if g; then h; fi; i | j; k &\nl; m(){ n; }");
  std::vector<std::string> top;
  for (const Seen& seen : p.commands) {
    if (seen.top_level) top.push_back(seen.words[0]);
  }
  // i heads its pipeline and k its list: ParseState says they are piped or
  // in the background. $(f) as a command is the outer shell's; f is not.
  EXPECT_EQ(top, (Words{"a", "b", "c", "$", "i", "k", "l"}));
  for (const Seen& seen : p.commands) {
    bool subshell = seen.words[0] == "i" || seen.words[0] == "j" || seen.words[0] == "k";
    EXPECT_EQ(p.state.InSubshell(seen.pipeline_id), subshell) << seen.words[0];
  }
  for (const Seen& seen : p.commands) {
    EXPECT_EQ(seen.in_function, seen.words[0] == "n") << seen.words[0];
  }
}

TEST(Parser, ReportsFunctionsLoopVariablesAndParameterOperators) {
  Parsed p = Parse("f() { a \"$@\"; }; function g { b; }; for x in 1 $y; do :; done; for z; do :; "
                   "done; echo ${v:=1} ${w=2} ${p@P} ${q:-3}");
  EXPECT_EQ(p.collect.functions, (Words{"f={ a \"$@\"; }", "g={ b; }"}));
  EXPECT_EQ(p.collect.loops, (Words{"x in 1 \x1f", "z"}));
  EXPECT_EQ(p.collect.operators, (Words{"v=", "w=", "pP"}));
}

TEST(Parser, QuotedSubscriptCodeIsReportedWhereBashEvaluatesIt) {
  // 'a[$(x)]' as a word, in $(( '...' )), in ${a['...']}, in [[ ]] and
  // in a for list: bash evaluates the subscript, so x runs.
  EXPECT_EQ(FirstWords("test -v 'a[$(x)]'"), (Words{"x", "test"}));
  EXPECT_EQ(FirstWords("echo $(( '$(x)' ))"), (Words{"x", "echo"}));
  EXPECT_EQ(FirstWords("echo ${a['$(x)']}"), (Words{"x", "echo"}));
  EXPECT_EQ(FirstWords("[[ -v 'a[`x`]' ]]"), (Words{"x"}));
  EXPECT_EQ(FirstWords("echo '$(x)' ${y:-'$(z)'}"), (Words{"echo"}));  // data, not evaluated
}

TEST(Parser, ArrayAssignmentsAreMarked) {
  Parsed p = Parse("a=(x y) b=c");
  ASSERT_EQ(p.commands.size(), 1u);
  EXPECT_TRUE(p.commands[0].flags[0] & kArray);
  EXPECT_FALSE(p.commands[0].flags[1] & kArray);
}

TEST(Parser, NulEndsAnAnsiCString) {
  // Bash cuts $'...' at a NUL, however it is written.
  for (const char* text : {"$'aw\\0zz's", "$'aw\\x00z's", "$'aw\\c@z's", "$'aw\\u0000z's",
                           "$'aw\\000z's", "$'aw\\U00000000z's"}) {
    Parsed p = Parse(text);
    ASSERT_EQ(p.commands.size(), 1u) << text;
    EXPECT_EQ(p.commands[0].words[0], "aws") << text;
  }
}

TEST(Origin, MapsNestedTextBack) {
  Origin top;
  std::string_view outer = "bash -c 'x y'";
  Origin nested = top.Nested(outer, 8, 13, "x y");
  EXPECT_TRUE(nested.exact);
  EXPECT_EQ(nested.Map(2, 3).first, 11u);
  Origin inexact = top.Nested(outer, 8, 13, "unrelated");
  EXPECT_FALSE(inexact.exact);
  EXPECT_EQ(inexact.Map(0, 1), (std::pair<std::size_t, std::size_t>{8, 13}));
}

}  // namespace
}  // namespace corral::policy::shell
