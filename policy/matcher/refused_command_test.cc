// MatchResult::command: the simple command an entry matched, as a person
// reads it in the inbox and the end line (issue 33), not the agent's wrapper.
#include <gtest/gtest.h>

#include "policy/matcher/matcher_test_util.h"

namespace corral::policy {
namespace {

std::string Refused(std::string_view line) {
  MatchResult result = testing::DefaultMatcher().Check(line);
  EXPECT_EQ(result.finding, Finding::kListed) << line;
  return result.command;
}

TEST(RefusedCommand, ClaudeCodesWrapperGivesTheCommandInside) {
  // Claude Code's Bash tool: its shell snapshot sourced, the command in eval.
  EXPECT_EQ(Refused("source /home/u/.claude/shell-snapshots/snapshot-bash-1750000000000-ab12cd.sh "
                    "&& eval 'aws s3 ls --recursive' \\< /dev/null && pwd -P >| "
                    "/tmp/claude-5d2e-cwd"),
            "aws s3 ls --recursive");
  EXPECT_EQ(Refused("shopt -u extglob 2>/dev/null || true && eval 'cd /srv/app && git push "
                    "--force origin main' < /dev/null && pwd -P >| /tmp/claude-5d2e-cwd"),
            "git push --force origin main");
}

TEST(RefusedCommand, TheSimpleCommandThatMatched) {
  EXPECT_EQ(Refused("ls && aws s3 ls | head"), "aws s3 ls");
  EXPECT_EQ(Refused("bash -c 'kubectl delete pod web-1'"), "kubectl delete pod web-1");
  EXPECT_EQ(Refused("echo $(aws sts get-caller-identity)"), "aws sts get-caller-identity");
  EXPECT_EQ(Refused("FOO=1 /usr/local/bin/aws s3 ls"), "/usr/local/bin/aws s3 ls");
}

TEST(RefusedCommand, WordsAreShownAsAShellWouldReadThem) {
  EXPECT_EQ(Refused("aws s3 cp 'my file' \"s3://b/it's\""),
            "aws s3 cp 'my file' 's3://b/it'\\''s'");
  EXPECT_EQ(Refused("aws s3 cp \"$FILE\" s3://b/"), "aws s3 cp \"$FILE\" s3://b/");
  EXPECT_EQ(Refused("aws s3 cp *.txt ~ s3://b/"), "aws s3 cp *.txt ~ s3://b/");
  EXPECT_EQ(Refused("aws s3 cp \"$(date)\".log s3://b/"), "aws s3 cp \xe2\x80\xa6.log s3://b/");
}

TEST(RefusedCommand, ALongCommandIsCut) {
  std::string line = "aws s3 rm";
  for (int i = 0; i < 100; ++i) line += " f" + std::to_string(i);
  std::string refused = Refused(line);
  EXPECT_EQ(refused.rfind("aws s3 rm f0 f1 ", 0), 0u) << refused;
  EXPECT_EQ(refused.substr(refused.size() - 4), " \xe2\x80\xa6");
}

TEST(RefusedCommand, NoneWhenNothingMatched) {
  EXPECT_EQ(testing::DefaultMatcher().Check("ls -la").command, "");
  EXPECT_EQ(QuoteWord(""), "''");
  EXPECT_EQ(QuoteWord("a-b_c.d/e:f=g,h@i%j+k"), "a-b_c.d/e:f=g,h@i%j+k");
  EXPECT_EQ(QuoteWord("a b"), "'a b'");
}

}  // namespace
}  // namespace corral::policy
