// The rules of docs/deny-list.md ("How a line matches" and the sections
// after it) and issue 2 section 3, one table row per example.
#include <gtest/gtest.h>

#include "policy/matcher/matcher_test_util.h"

namespace corral::policy {
namespace {

using testing::Case;
using testing::L;
using testing::N;
using testing::U;

class Rules : public ::testing::TestWithParam<Case> {};
TEST_P(Rules, Decides) { testing::ExpectCase(testing::DefaultMatcher(), GetParam()); }

// Reference 000, "How a line matches", every example.
INSTANTIATE_TEST_SUITE_P(Reference000, Rules, ::testing::Values(
    L("git push --force", "git push --force"),
    L("git push origin main --force", "git push --force"),
    N("git push"),
    L("ls && aws s3 ls", "aws"), L("false || aws s3 ls", "aws"), L("true; aws s3 ls", "aws"),
    L("cat x | aws s3 cp - s3://b/x", "aws"), L("sleep 1 & aws s3 ls", "aws"),
    L("(aws s3 ls)", "aws"), L("echo $(aws s3 ls)", "aws"), L("echo `aws s3 ls`", "aws"),
    L("echo \"$(aws s3 ls)\"", "aws"), L("echo \"`aws s3 ls`\"", "aws"),
    L("/usr/local/bin/aws s3 ls", "aws"),
    L("FOO=1 aws s3 ls", "aws"), L("sudo aws s3 ls", "aws"), L("env aws s3 ls", "aws"),
    L("command aws s3 ls", "aws"), L("exec aws s3 ls", "aws"), L("nohup aws s3 ls", "aws"),
    L("time aws s3 ls", "aws"), L("nice aws s3 ls", "aws"),
    L("sh -c 'aws s3 ls'", "aws"), L("bash -c 'aws s3 ls'", "aws"),
    L("zsh -c 'aws s3 ls'", "aws"), L("dash -c 'aws s3 ls'", "aws"), L("eval aws s3 ls", "aws"),
    N("grep -r 'kubectl delete' .")));

// Issue 2 / docs/deny-list.md: quote removal, paths, near misses.
INSTANTIATE_TEST_SUITE_P(Words, Rules, ::testing::Values(
    L("a\\ws s3 ls", "aws"), L("\"aws\" s3 ls", "aws"), L("a''ws s3 ls", "aws"),
    L("$'aws' s3 ls", "aws"), L("$'\\x61ws'", "aws"), L("$'\\141ws'", "aws"),
    L("$'\\u0061ws'", "aws"), L("$\"aws\" s3", "aws"), L("\"a\"w's' s3", "aws"),
    L("a\\\nws s3 ls", "aws"), L("./aws s3 ls", "aws"), L("../bin/kubectl get pods", "kubectl"),
    L("~/bin/aws s3 ls", "aws"),  // tilde only changes the directory: the name is known
    L("$HOME/.local/bin/aws s3 ls", "aws"), L("\"$(npm bin)\"/kubectl get", "kubectl"),
    N("kubectl-foo get"), N("./aws-tools/run"), N("echo aws"), N("echo \"aws s3 ls\""),
    N("awsx --version"), N("my-aws"), N("aws_tool run"), N("ls aws/"), N("cd aws && ls"),
    N("VAR=aws"), N("echo 'sh -c aws'"), N("git commit -m \"git push --force\""),
    N("printf '%s\\n' kubectl"), N("man aws"), N("npm run aws"), N("[ -x /usr/bin/aws ]"),
    N("test -f aws"), N("echo aws # kubectl"), N("# aws s3 ls"), N("echo a#aws")));

INSTANTIATE_TEST_SUITE_P(GitPush, Rules, ::testing::Values(
    L("git push -f", "git push -f"), L("git push -f origin main", "git push -f"),
    L("git push origin main -f", "git push -f"),
    L("git -C repo push --force", "git push --force"),
    L("git -c user.name=x push -f", "git push -f"),
    L("git -c remote.origin.push=+refs/heads/*:refs/heads/* push", "git push --force"),
    L("git -c remote.origin.mirror=true push origin", "git push --force"),
    N("git -c remote.origin.push=refs/heads/main:refs/heads/main push"),
    N("git -c remote.origin.mirror=false push"),
    L("git -C dir -c k=v --git-dir=.git --work-tree . --no-pager push --force",
      "git push --force"),
    L("git --git-dir .git --namespace ns push --force", "git push --force"),
    L("/usr/bin/git push --force", "git push --force"),
    L("git push --force-with-lease --force", "git push --force"),
    // Bundles holding -f force too.
    L("git push -fu origin main", "git push -f"), L("git push -uf origin", "git push -f"),
    // A '+' refspec forces that ref: flagged under the --force entry.
    L("git push origin +main", "git push --force"),
    L("git push origin +HEAD:refs/heads/x", "git push --force"),
    L("git push --mirror backup", "git push --force"),
    // --force=... and unambiguous abbreviations read as --force.
    L("git push --forc origin", "git push --force"),
    N("git push"), N("git push origin main"), N("git push -u origin feature"),
    N("git push --force-with-lease"), N("git push --force-with-lease=main:abc origin main"),
    N("git push --force-if-includes"), N("git push --follow-tags"), N("git fetch --force"),
    N("git pull -f"), N("git log --oneline | grep push"), N("git status"),
    N("git push origin main && git status")));

INSTANTIATE_TEST_SUITE_P(Operators, Rules, ::testing::Values(
    L("echo hi\nkubectl get pods", "kubectl"), L("cat dump.sql |& psql", "psql"),
    L("x=1;aws", "aws"), L("aws&", "aws"), L("! aws s3 ls", "aws"),
    L("time -p aws s3 ls", "aws"), L("time -- aws s3 ls", "aws"), L("time -p -- aws", "aws"), L("echo a\\\n;aws", "aws"),
    L("ech\\\no a; a\\\nws", "aws"), L("{ aws s3 ls; }", "aws"),
    L("(cd /tmp && (aws s3 ls))", "aws"), L("aws s3 ls > out.txt 2>&1", "aws"),
    L("> out.txt aws s3 ls", "aws"), L("2>/dev/null aws", "aws"), L("&>log aws", "aws"),
    L("aws >|f <>g 3<&0 {fd}>h", "aws"), L("exec 3>&1; aws 2>&1 >&3", "aws"),
    L("coproc aws s3 ls", "aws"), L("coproc NAME { aws s3 ls; }", "aws"),
    L("a | b | c | kubectl apply -f -", "kubectl")));

INSTANTIATE_TEST_SUITE_P(Compound, Rules, ::testing::Values(
    L("if aws s3 ls; then echo ok; fi", "aws"), L("if x; then y; elif z; then aws; fi", "aws"),
    L("if x; then y; else aws; fi", "aws"), L("while true; do redis-cli ping; done", "redis-cli"),
    L("until false; do mongosh; done", "mongosh"), L("for i in 1 2; do gcloud x; done", "gcloud"),
    L("for ((i=0;i<3;i++)); do az login; done", "az"), L("for x in $(aws s3 ls); do :; done", "aws"),
    L("select x in a b; do psql; done", "psql"), L("case x in x) pulumi up;; esac", "pulumi"),
    L("case x in (x|y) railway up ;; *) echo no ;; esac", "railway"),
    L("case x in a) echo;& b) fly deploy;;& esac", "fly"),
    L("case $(aws s3 ls) in *) :;; esac", "aws"),
    L("f() { aws s3 ls; }", "aws"), L("f() { aws s3 ls; }; f", "aws"),
    L("function deploy { flyctl deploy; }", "flyctl"), L("function f() ( aws )", "aws"),
    L("f() if true; then aws; fi", "aws"),
    L("[[ -n $(kubectl get pods) ]] && echo yes", "kubectl"), L("(( $(aws s3 ls | wc -l) ))", "aws"),
    L("echo $((1 + $(aws s3 ls | wc -l)))", "aws"), L("((echo hi); aws)", "aws"),
    N("for aws in 1 2; do echo $aws; done"), N("case aws in aws) echo match;; esac"),
    N("[[ $x == aws ]]"), N("(( aws = 1 ))"), N("echo {aws,x}"), N("[[ $x =~ ^(aws|gcloud)$ ]]")));

INSTANTIATE_TEST_SUITE_P(Expansions, Rules, ::testing::Values(
    L("echo ${x:-$(aws s3 ls)}", "aws"), L("echo ${x:-`aws`}", "aws"),
    L("echo \"${x/a/$(kubectl get)}\"", "kubectl"), L("x=$(aws s3 ls)", "aws"),
    L("local_var=\"$(terraform output -json)\"", "terraform"), L("a=(x $(aws s3 ls) y)", "aws"),
    L("diff <(aws s3 ls) listing.txt", "aws"), L("echo x | tee >(kubectl apply -f -)", "kubectl"),
    L("echo `echo \\`aws s3 ls\\``", "aws"), L("echo \"$(echo \"$(aws)\")\"", "aws"),
    L("echo ${ aws s3 ls; }", "aws"), N("echo $(ls)"), N("X=$(echo hi) ls"), N("echo '$(aws)'"),
    N("echo \\$\\(aws\\)"), N("echo \"\\$(aws)\"")));

INSTANTIATE_TEST_SUITE_P(Braces, Rules, ::testing::Values(
    L("{aws,x} s3 ls", "aws"), L("{a,b}ws", "aws"), N("{x,y,aws}"),
    L("a{w,x}s", "aws"), L("{kubectl,foo}", "kubectl"), L("git push {--force,x}", "git push --force")));

INSTANTIATE_TEST_SUITE_P(Heredocs, Rules, ::testing::Values(
    L("bash <<EOF\naws s3 ls\nEOF", "aws"), L("bash <<'EOF'\naws s3 ls\nEOF", "aws"),
    L("sh <<-EOF\n\taws s3 ls\n\tEOF", "aws"), L("sh <<< 'aws s3 ls'", "aws"),
    L("bash -s <<< \"kubectl get pods\"", "kubectl"),
    L("cat <<EOF\n$(aws s3 ls)\nEOF", "aws"),
    L("cat <<EOF > out.txt\nlisting: `kubectl get pods`\nEOF", "kubectl"),
    L("cat <<A; cat <<B\nx\nA\n$(aws)\nB\n", "aws"), L("cat <<A\nx\nA\naws s3 ls", "aws"),
    L("x=$(cat <<EOF\n$(aws s3 ls)\nEOF\n)", "aws"), L("bash <<EOF\nfoo \\\n&& aws\nEOF", "aws"),
    L("cat <<EOF\nEO\\\nF\naws\n", "aws"),  // the continuation closes the body
    N("cat <<'EOF'\naws s3 ls\nEOF"), N("cat <<EOF\naws s3 ls\nEOF"),
    N("cat > notes.md <<'EOF'\nRun `aws s3 ls` and $(kubectl get pods) later\nEOF"),
    N("cat <<\\EOF\n$(aws)\nEOF"), N("cat <<\"EOF\"\n$(aws)\nEOF"),
    N("cat <<-'X'\n\t$(aws)\n\tX\necho done")));

// A quoted heredoc's text given as an argument is data (issue 27): a commit
// message that names listed commands. Where that text reaches something
// that runs it, it is still refused.
const std::string kMessage =
    "\"$(cat <<'EOF'\nFix the deploy notes\n\nWe no longer run aws s3 sync or kubectl apply by "
    "hand; terraform apply does it.\ngit push --force is never needed.\nEOF\n)\"";
const std::string kCode = "\"$(cat <<'EOF'\naws s3 ls\nEOF\n)\"";

INSTANTIATE_TEST_SUITE_P(HeredocArguments, Rules, ::testing::Values(
    N("git commit -m " + kMessage), N("git commit -q -a -m " + kMessage),
    N("git commit --amend -m " + kMessage), N("git -C sub commit -m " + kMessage),
    N("git tag -a v1 -m " + kMessage), N("git merge --no-ff -m " + kMessage + " feature"),
    N("git notes add -m " + kMessage), N("echo " + kMessage), N("printf '%s\\n' " + kMessage),
    // An unquoted body: its words are data, its substitutions run.
    N("git commit -m \"$(cat <<EOF\nWe no longer run aws s3 sync; terraform apply\nEOF\n)\""),
    L("git commit -m \"$(cat <<EOF\nfiles: $(aws s3 ls)\nEOF\n)\"", "aws"),
    L("git commit -m \"$(cat <<EOF\npods: `kubectl get pods`\nEOF\n)\"", "kubectl"),
    L("git commit -m " + kMessage + " && aws s3 ls", "aws"),
    L("git -c core.editor=aws commit -m " + kMessage, "aws"),
    L("bash <<'EOF'\naws s3 ls\nEOF", "aws"), L("sh -s <<EOF\naws s3 ls\nEOF", "aws"),
    U("bash -c " + kCode), U("sh -c " + kCode), U("eval " + kCode), U(kCode),
    U("timeout 5 bash -c " + kCode), U("xargs sh -c " + kCode + " <<< x"),
    U("find . -exec sh -c " + kCode + " \\;"), U("echo " + kCode + " | bash"),
    U("ssh host " + kCode), U("watch " + kCode), U("git -c core.editor=" + kCode + " commit"),
    U("GIT_EDITOR=" + kCode + " git commit"), U("git rebase -x " + kCode),
    U("git bisect run " + kCode), U("git clone " + kCode), U("git ls-remote " + kCode)));

TEST(MatcherTest, ListsCommandByTheEntrysCommandName) {
  auto matcher = Matcher::Create({"aws", "git push --force", "/opt/bin/terraform apply"});
  ASSERT_TRUE(matcher.ok());
  EXPECT_TRUE(matcher->ListsCommand("aws"));
  EXPECT_TRUE(matcher->ListsCommand("git"));
  EXPECT_TRUE(matcher->ListsCommand("terraform"));  // entries are known by their basename
  EXPECT_FALSE(matcher->ListsCommand("ls"));
  EXPECT_FALSE(matcher->ListsCommand("/usr/bin/aws"));  // a name, not a path
}

}  // namespace
}  // namespace corral::policy
