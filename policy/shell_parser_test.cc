// The parser on its own: which simple commands it reports, with which words.
#include "policy/shell_parser.h"

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
    commands.push_back(seen);
  }
  std::vector<Seen> commands;
};

struct Parsed {
  std::vector<Seen> commands;
  std::string error;
};

Parsed Parse(std::string_view text) {
  Collect collect;
  ParseState state;
  state.work_limit = 1 << 24;
  ParseShell(text, Origin{}, collect, state, 0);
  return {collect.commands, state.error};
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
