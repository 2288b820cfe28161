// Limits, syntax errors, word positions, list compilation, and the order of
// findings. None of these may crash, hang or let a listed command through.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "policy/matcher/matcher_test_util.h"

namespace corral::policy {
namespace {

const Matcher& M() { return testing::DefaultMatcher(); }

TEST(Findings, ListedBeatsUndeterminedWhicheverComesFirst) {
  MatchResult r = M().Check("$X; aws s3 ls");
  EXPECT_EQ(r.finding, Finding::kListed);
  EXPECT_EQ(r.entry, "aws");
  r = M().Check("aws s3 ls; $X");
  EXPECT_EQ(r.finding, Finding::kListed);
}

TEST(Findings, FirstListedMatchIsReported) {
  MatchResult r = M().Check("kubectl get pods; aws s3 ls");
  EXPECT_EQ(r.entry, "kubectl");
  r = M().Check("echo $(gcloud x) && aws");
  EXPECT_EQ(r.entry, "gcloud");
}

TEST(Findings, UndeterminedReasonSaysTheProgramCouldNotBeDetermined) {
  MatchResult r = M().Check("$CMD s3 ls");
  EXPECT_EQ(r.finding, Finding::kUndetermined);
  EXPECT_NE(r.reason.find("could not be determined"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("$CMD"), std::string::npos) << r.reason;
}

TEST(Findings, EmptyListStillReportsUndeterminedButNeverListed) {
  Matcher empty = std::move(Matcher::Create({}).value());
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.Check("aws s3 ls").finding, Finding::kNone);
  EXPECT_EQ(empty.Check("$X").finding, Finding::kUndetermined);
  EXPECT_FALSE(M().empty());
}

TEST(Positions, WordsPointIntoTheInput) {
  std::string command = "cd x && git push origin main --force";
  MatchResult r = M().Check(command);
  ASSERT_EQ(r.words.size(), 3u);
  EXPECT_EQ(r.words[0].text, "git");
  EXPECT_EQ(command.substr(r.words[0].offset, r.words[0].length), "git");
  EXPECT_EQ(command.substr(r.words[1].offset, r.words[1].length), "push");
  EXPECT_EQ(command.substr(r.words[2].offset, r.words[2].length), "--force");
}

TEST(Positions, QuotedWordCoversItsQuotes) {
  std::string command = "echo; \"a\"ws s3";
  MatchResult r = M().Check(command);
  ASSERT_EQ(r.words.size(), 1u);
  EXPECT_EQ(r.words[0].text, "aws");
  EXPECT_EQ(command.substr(r.words[0].offset, r.words[0].length), "\"a\"ws");
}

TEST(Positions, WordsInsideShellCodeMapBackToTheOuterString) {
  std::string command = "bash -c 'echo hi; aws s3 ls'";
  MatchResult r = M().Check(command);
  ASSERT_FALSE(r.words.empty());
  EXPECT_EQ(command.substr(r.words[0].offset, r.words[0].length), "aws");
  command = "eval \"kubectl get\"";
  r = M().Check(command);
  EXPECT_EQ(command.substr(r.words[0].offset, r.words[0].length), "kubectl");
  command = "bash <<'EOF'\nls\nterraform plan\nEOF";
  r = M().Check(command);
  EXPECT_EQ(command.substr(r.words[0].offset, r.words[0].length), "terraform");
}

TEST(Positions, DecodedCodeMapsInsideTheInput) {
  // The code had escapes removed: positions are approximate but in range.
  std::string command = "bash -c \"echo \\\"x\\\"; aws\"";
  MatchResult r = M().Check(command);
  ASSERT_EQ(r.finding, Finding::kListed);
  EXPECT_LE(r.words[0].offset + r.words[0].length, command.size());
}

TEST(ParseErrors, ListedCommandBeforeTheErrorStillFound) {
  EXPECT_EQ(M().Check("aws s3 ls; echo \"").entry, "aws");
  EXPECT_EQ(M().Check("echo 'unterminated\naws").finding, Finding::kUndetermined);
  EXPECT_EQ(M().Check("echo ) ; aws").entry, "aws");
  EXPECT_EQ(M().Check("fi; aws").entry, "aws");
  EXPECT_EQ(M().Check("echo $(\naws").entry, "aws");
  EXPECT_EQ(M().Check("if true; then aws").entry, "aws");
}

TEST(ParseErrors, OtherwiseUndeterminedWithAReason) {
  MatchResult r = M().Check("echo \"unterminated");
  EXPECT_EQ(r.finding, Finding::kUndetermined);
  EXPECT_NE(r.reason.find("could not be parsed"), std::string::npos) << r.reason;
  EXPECT_EQ(M().Check("echo `x").finding, Finding::kUndetermined);
  EXPECT_EQ(M().Check("echo ${x").finding, Finding::kUndetermined);
  EXPECT_EQ(M().Check("case x in").finding, Finding::kUndetermined);
  EXPECT_EQ(M().Check("done").finding, Finding::kUndetermined);
}

TEST(Limits, OversizedInputFailsClosed) {
  std::string command(3 * 1024 * 1024, 'a');
  MatchResult r = M().Check(command);
  EXPECT_EQ(r.finding, Finding::kUndetermined);
  EXPECT_NE(r.reason.find("limit"), std::string::npos);
}

TEST(Limits, DeepNestingFailsClosedWithoutOverflow) {
  for (const char* open_close : {"()", "{}"}) {
    std::string command;
    for (int i = 0; i < 100000; ++i) command += open_close[0] == '(' ? "(" : "{ ";
    MatchResult r = M().Check(command);
    EXPECT_EQ(r.finding, Finding::kUndetermined);
  }
  std::string subst;
  for (int i = 0; i < 50000; ++i) subst += "$(";
  EXPECT_EQ(M().Check(subst).finding, Finding::kUndetermined);
  std::string quotes = "aws";
  for (int i = 0; i < 60; ++i) quotes = "bash -c '" + quotes + "'";  // not valid nesting past 1
  EXPECT_NE(M().Check(quotes).finding, Finding::kNone);
  std::string backticks;
  for (int i = 0; i < 2000; ++i) backticks += "`";
  M().Check(backticks);  // must return
  std::string arith;
  for (int i = 0; i < 20000; ++i) arith += "((";
  EXPECT_EQ(M().Check(arith).finding, Finding::kUndetermined);
  // Expansions nest by recursion too: ${ ${ ..., $(( $(( ..., "${x:-"${x:-...
  for (const char* open : {"${", "$((", "${x:-\"", "\"$((", "$((x["}) {
    std::string expansions;
    while (expansions.size() < 600000) expansions += open;
    EXPECT_EQ(M().Check(expansions + "aws").finding, Finding::kUndetermined) << open;
  }
}

TEST(Limits, WrapperChainsFailClosedWithoutOverflow) {
  std::string command;
  for (int i = 0; i < 200000; ++i) command += "sudo ";
  EXPECT_EQ(M().Check(command + "ls").finding, Finding::kUndetermined);
  command.clear();
  for (int i = 0; i < 100000; ++i) command += "eval ";
  EXPECT_EQ(M().Check(command + "ls").finding, Finding::kUndetermined);
  command.clear();
  for (int i = 0; i < 100000; ++i) command += "env -S ";
  M().Check(command + "ls");
  // A long chain of env is decided in time linear in its length.
  command.clear();
  for (int i = 0; i < 200000; ++i) command += "env A=1 ";
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(M().Check(command + "ls").finding, Finding::kUndetermined);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(M().Check("sudo nice env timeout 5 nohup sudo aws").entry, "aws");
}

TEST(Limits, NestedShellsWithinTheLimitAreFollowed) {
  std::string command = "aws s3 ls";
  for (int i = 0; i < 8; ++i) {
    std::string quoted;
    for (char c : command) {
      if (c == '"' || c == '\\' || c == '$' || c == '`') quoted += '\\';
      quoted += c;
    }
    command = "bash -c \"" + quoted + "\"";
  }
  EXPECT_EQ(M().Check(command).entry, "aws");
}

TEST(Limits, BraceBombsAndManyHeredocsFinish) {
  std::string braces;
  for (int i = 0; i < 40; ++i) braces += "{a,b}";
  EXPECT_EQ(M().Check(braces).finding, Finding::kUndetermined);  // too many to list
  EXPECT_EQ(M().Check("echo " + braces).finding, Finding::kNone);
  EXPECT_EQ(M().Check("{1..100000000}").finding, Finding::kUndetermined);
  std::string heredocs;
  for (int i = 0; i < 20000; ++i) heredocs += "cat <<E ";
  heredocs += "\n";
  EXPECT_EQ(M().Check(heredocs).finding, Finding::kUndetermined);
}

TEST(Limits, OneMebibyteCommandIsDecided) {
  // Timing is measured in bench/; here it must finish and find the needle.
  std::string command;
  while (command.size() < 1024 * 1024) command += "echo \"hello $(date) world\" | grep -v x && ";
  command += "aws s3 ls";
  auto start = std::chrono::steady_clock::now();
  MatchResult r = M().Check(command);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.entry, "aws");
  EXPECT_LT(elapsed, std::chrono::seconds(10));  // generous: sanitizer builds are slow
  std::string words(1024 * 1024, ' ');
  for (std::size_t i = 0; i < words.size(); i += 2) words[i] = 'a';
  EXPECT_EQ(M().Check(words).finding, Finding::kNone);
}

TEST(Limits, PathologicalInputsReturn) {
  for (const std::string& command :
       {std::string(100000, '\\'), std::string(100000, '\''), std::string(100000, '"'),
        std::string(100000, '$'), std::string(100000, '<'), std::string(100000, '|'),
        std::string(100000, '{'), std::string(100000, '}'), std::string(100000, '\n'),
        std::string(100000, '\0'), std::string(50000, ';') + "aws"}) {
    M().Check(command);
  }
  SUCCEED();
}

// Issue 14's readers (files written and run again, functions called again,
// interpreter code, scripts, variables) on inputs built to make them slow.
TEST(Limits, RereadTextsStayBounded) {
  auto repeat = [](std::string_view piece, std::size_t bytes) {
    std::string out;
    while (out.size() < bytes) out += piece;
    return out;
  };
  std::string big_file = "printf '%s' '" + std::string(60000, 'x') + "' > x.py; ";
  std::string body(60000, ' ');
  std::vector<std::string> commands = {
      big_file + repeat("python3 x.py; ", 900000),
      big_file + repeat("cat x.py > y; ", 900000),
      "echo 'x: ; true' > Makefile; " + repeat("make; ", 900000),
      "f(){ " + body + "g; }; " + repeat("f; ", 900000),
      "f(){ f; }; f",
      "f(){ \"$@\" \"$@\" \"$@\" \"$@\"; }; f " + repeat("a ", 900000),
      repeat("x=ls; ", 400000) + repeat("$x; ", 400000),
      "python3 -c '" + repeat("system(system(", 300000) + "'",
      "python3 -c 'import subprocess\n" + repeat("subprocess.run(['x'])\n", 400000) + "'",
      "make --eval '" + repeat("$(shell ", 200000) + "'",
      "m4 <<< '" + repeat("syscmd(", 200000) + "'",
      "vim -c '" + repeat("|", 900000) + "'",
      "expect -c '" + repeat("[", 200000) + "'",
      "sed '" + repeat("s/x/y/;", 200000) + "' f",
      repeat("x='a[$(ls)]'; ", 80000),
      repeat("echo a >> x.sh; ", 60000) + "bash x.sh",
      "x='${x@P}'; echo ${x@P}",
      "echo 'bash x.sh' > x.sh; bash x.sh",
  };
  for (const std::string& command : commands) {
    auto start = std::chrono::steady_clock::now();
    M().Check(command);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5))
        << command.substr(0, 60);
  }
}

TEST(Create, RejectsEntriesThatAreNotPlainWords) {
  EXPECT_FALSE(Matcher::Create({""}).ok());
  EXPECT_FALSE(Matcher::Create({"   "}).ok());
  EXPECT_FALSE(Matcher::Create({"aws; rm"}).ok());
  EXPECT_FALSE(Matcher::Create({"\"aws\""}).ok());
  Result<Matcher> bad = Matcher::Create({"aws", "kubectl | x"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("kubectl | x"), std::string::npos);
}

TEST(Create, UserEntriesMatchByTheSameRule) {
  Matcher m = std::move(
      Matcher::Create({"  docker run --privileged ", "/usr/bin/helm", "rm -r"}).value());
  EXPECT_EQ(m.Check("docker run -it --privileged ubuntu").entry, "docker run --privileged");
  EXPECT_EQ(m.Check("docker run ubuntu").finding, Finding::kNone);
  EXPECT_EQ(m.Check("sudo helm install x").entry, "/usr/bin/helm");
  EXPECT_EQ(m.Check("rm -rf build").entry, "rm -r");  // -rf holds -r
  EXPECT_EQ(m.Check("rm --recursive x").finding, Finding::kNone);
}

TEST(Dangerous, ReportedIndependentlyOfTheList) {
  Matcher empty = std::move(Matcher::Create({}).value());
  MatchResult r = empty.Check("rm -rf /tmp/x");
  EXPECT_EQ(r.finding, Finding::kNone);
  ASSERT_TRUE(r.dangerous.has_value());
  EXPECT_EQ(r.dangerous->category, "recursive-delete");
  r = M().Check("sudo aws s3 ls");
  EXPECT_EQ(r.entry, "aws");
  ASSERT_TRUE(r.dangerous.has_value());
  EXPECT_EQ(r.dangerous->category, "privilege-escalation");
}

}  // namespace
}  // namespace corral::policy
