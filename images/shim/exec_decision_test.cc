#include "images/shim/exec_decision.h"

#include <gtest/gtest.h>

namespace corral::shim {
namespace {

class ExecDecisionTest : public ::testing::Test {
 protected:
  ExecDecisionTest() : matcher_(ListMatcher()) {}

  static policy::Matcher ListMatcher() {
    auto matcher = policy::Matcher::Create({"aws", "gcloud", "git push --force", "kubectl"});
    return std::move(*matcher);
  }

  // An exec of `path` (resolved to `resolved`, "" = the same) with `argv`.
  ExecVerdict Decide(std::string path, std::vector<std::string> argv, std::string resolved = "",
                     std::string listed_as = "") {
    ExecFacts facts;
    facts.program = {path, resolved.empty() ? path : resolved, listed_as};
    facts.argv = std::move(argv);
    return DecideExec(matcher_, facts);
  }

  policy::Matcher matcher_;
};

TEST_F(ExecDecisionTest, AListedProgramIsRefusedByItsPath) {
  ExecVerdict verdict = Decide("/usr/local/bin/aws", {"aws", "s3", "ls"});
  EXPECT_TRUE(verdict.refuse);
  EXPECT_EQ(verdict.entry, "aws");
  EXPECT_EQ(verdict.command, "/usr/local/bin/aws s3 ls");
  EXPECT_FALSE(Decide("/usr/bin/ls", {"ls", "-la"}).refuse);
}

TEST_F(ExecDecisionTest, TheFileDecidesNotArgvZero) {
  // subprocess.run(["aws", ...]) finds the file in PATH; argv[0] is only a label.
  EXPECT_TRUE(Decide("/usr/local/bin/aws", {"cloud-tool", "s3", "ls"}).refuse);
  EXPECT_FALSE(Decide("/bin/true", {"aws", "s3", "ls"}).refuse);
}

TEST_F(ExecDecisionTest, ALinkIsTheProgramItPointsTo) {
  EXPECT_TRUE(Decide("/tmp/x", {"x", "s3", "ls"}, "/usr/local/bin/aws").refuse);
}

TEST_F(ExecDecisionTest, AMultiCallBinaryIsTheProgramItWasRunAs) {
  // busybox runs its applets as /proc/self/exe with the applet's name in
  // argv[0] (a listed applet: `nc`, `wget`, ...).
  EXPECT_TRUE(Decide("/proc/self/exe", {"kubectl", "get"}, "/bin/busybox").refuse);
  EXPECT_FALSE(Decide("/proc/self/exe", {"ls"}, "/bin/busybox").refuse);
  EXPECT_FALSE(Decide("/usr/bin/tool", {"kubectl", "get"}).refuse);  // argv[0] is a label
}

TEST_F(ExecDecisionTest, ACopyUnderAnotherNameIsRefusedAsTheListedProgram) {
  ExecVerdict verdict = Decide("/tmp/x", {"x", "s3", "ls"}, "", "aws");
  EXPECT_TRUE(verdict.refuse);
  EXPECT_EQ(verdict.command, "aws s3 ls");  // what the inbox shows
  EXPECT_FALSE(Decide("/tmp/x", {"x", "s3", "ls"}).refuse);
}

TEST_F(ExecDecisionTest, EntriesWithWordsNeedTheirWords) {
  EXPECT_TRUE(Decide("/usr/bin/git", {"git", "push", "origin", "main", "--force"}).refuse);
  EXPECT_FALSE(Decide("/usr/bin/git", {"git", "push", "origin", "main"}).refuse);
  // A renamed git: its own words still decide.
  EXPECT_TRUE(Decide("/tmp/g", {"g", "push", "--force"}, "", "git").refuse);
  EXPECT_FALSE(Decide("/tmp/g", {"g", "status"}, "", "git").refuse);
}

TEST_F(ExecDecisionTest, WhatTheArgumentsWouldStartIsLeftToItsOwnExec) {
  // env, find and sh start the listed program with an exec of their own,
  // checked then; a shell front in between answers first with its message.
  EXPECT_FALSE(Decide("/usr/bin/env", {"env", "FOO=1", "aws", "s3", "ls"}).refuse);
  EXPECT_FALSE(
      Decide("/usr/bin/find", {"find", ".", "-exec", "kubectl", "apply", "{}", ";"}).refuse);
  EXPECT_FALSE(Decide("/bin/bash", {"bash", "-c", "cd x && aws s3 ls"}).refuse);
  EXPECT_FALSE(Decide("/bin/sh", {"sh", "-c", "\"$@\"", "sh", "ls"}).refuse);
  // Arguments are data, whatever characters they hold.
  EXPECT_FALSE(
      Decide("/usr/local/bin/tool", {"tool", "a; aws s3 ls", "$(kubectl get pods)"}).refuse);
  // A listed wrapper is itself the program.
  auto sudo = policy::Matcher::Create({"sudo"});
  ExecFacts facts;
  facts.program = {"/usr/bin/sudo", "/usr/bin/sudo", ""};
  facts.argv = {"sudo", "ls"};
  EXPECT_TRUE(DecideExec(*sudo, facts).refuse);
}

TEST_F(ExecDecisionTest, AnInterpreterRunningAListedProgramsFile) {
  auto python = [&](std::string script, FileFacts file) {
    ExecFacts facts;
    facts.program = {"/usr/bin/python3", "/usr/bin/python3.11", ""};
    facts.argv = {"python3", "-u", script, "s3", "ls"};
    facts.script = file;
    facts.script_index = 2;
    return DecideExec(matcher_, facts);
  };
  ExecVerdict verdict = python("/usr/bin/aws", {"/usr/bin/aws", "/usr/bin/aws", "aws"});
  EXPECT_TRUE(verdict.refuse);
  EXPECT_EQ(verdict.entry, "aws");
  EXPECT_FALSE(python("./helper.py", {"./helper.py", "/work/helper.py", ""}).refuse);
  verdict = python("./copy", {"./copy", "/tmp/copy", "gcloud"});  // a copy, as a script
  EXPECT_TRUE(verdict.refuse);
  EXPECT_EQ(verdict.command, "gcloud s3 ls");
}

// The index in argv of the file an interpreter is asked to run, if any.
std::optional<std::size_t> ScriptOperand(std::string_view name, const std::vector<std::string>& argv) {
  auto input = InterpreterInputOf(name, argv);
  return input ? input->script : std::nullopt;
}

TEST(ScriptOperandTest, FindsTheFileEachInterpreterRuns) {
  using Args = std::vector<std::string>;
  EXPECT_EQ(ScriptOperand("python3.11", Args{"python3", "-u", "/usr/bin/aws", "s3"}), 2u);
  EXPECT_EQ(ScriptOperand("python3", Args{"python3", "-W", "ignore", "x.py"}), 3u);
  EXPECT_EQ(ScriptOperand("python3", Args{"python3", "-Wignore", "x.py"}), 2u);
  EXPECT_EQ(ScriptOperand("python3", Args{"python3", "-c", "print(1)", "x.py"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("python3", Args{"python3", "-m", "http.server"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("python3", Args{"python3", "-"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("sh", Args{"sh", "/usr/bin/gcloud", "auth"}), 1u);
  EXPECT_EQ(ScriptOperand("bash", Args{"bash", "-o", "pipefail", "-e", "x.sh"}), 4u);
  EXPECT_EQ(ScriptOperand("bash", Args{"bash", "-c", "x.sh"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("dash", Args{"dash", "-s", "x"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("node", Args{"node", "--require", "m", "app.js"}), 3u);
  EXPECT_EQ(ScriptOperand("node", Args{"node", "--require=m", "app.js"}), 2u);
  EXPECT_EQ(ScriptOperand("nodejs", Args{"node", "-e", "x", "app.js"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("perl5.36.0", Args{"perl", "-w", "x.pl"}), 2u);
  EXPECT_EQ(ScriptOperand("perl", Args{"perl", "-ne", "print", "x"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("ruby", Args{"ruby", "-r", "json", "x.rb"}), 3u);
  EXPECT_EQ(ScriptOperand("busybox", Args{"busybox", "sh", "x.sh"}), 2u);
  EXPECT_EQ(ScriptOperand("busybox", Args{"sh", "x.sh"}), 1u);  // run through its link
  EXPECT_EQ(ScriptOperand("busybox", Args{"ls", "x"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("cat", Args{"cat", "/usr/bin/aws"}), std::nullopt);
  EXPECT_EQ(ScriptOperand("cp", Args{"cp", "/usr/bin/aws", "/tmp/x"}), std::nullopt);
}

TEST(ShellWordsTest, ReadsBackAsTheSameWords) {
  EXPECT_EQ(ShellWords("/usr/bin/aws", {"aws", "s3", "ls"}, 1), "/usr/bin/aws s3 ls");
  EXPECT_EQ(ShellWords("x", {"x", "a b", "it's", "", "$HOME"}, 1), "x 'a b' 'it'\\''s' '' '$HOME'");
  EXPECT_EQ(ShellWords("/tmp/a=b", {}, 1), "'/tmp/a=b'");  // never an assignment
}

TEST(InterpreterInputTest, FindsTheModuleTheCodeAndStandardInput) {
  using Args = std::vector<std::string>;
  auto input = InterpreterInputOf("python3", Args{"python3", "-u", "-m", "awscli", "s3"});
  ASSERT_TRUE(input);
  EXPECT_EQ(input->family, "python");
  EXPECT_EQ(input->module, 3u);
  input = InterpreterInputOf("python3", Args{"python3", "-mawscli.clidriver"});
  ASSERT_TRUE(input && input->module);
  EXPECT_EQ(input->Value({"python3", "-mawscli.clidriver"}, *input->module), "awscli.clidriver");
  input = InterpreterInputOf("node", Args{"node", "--eval=require('x')"});
  ASSERT_TRUE(input && input->code);
  EXPECT_EQ(input->attached, "require('x')");
  input = InterpreterInputOf("perl", Args{"perl", "-w", "-e", "print 1"});
  ASSERT_TRUE(input);
  EXPECT_EQ(input->code, 3u);
  input = InterpreterInputOf("python3", Args{"python3"});
  ASSERT_TRUE(input);
  EXPECT_EQ(input->standard_input, 1u);
  input = InterpreterInputOf("python3", Args{"python3", "-", "arg"});
  ASSERT_TRUE(input);
  EXPECT_EQ(input->standard_input, 1u);
  input = InterpreterInputOf("ld-linux-x86-64.so.2", Args{"ld.so", "--library-path", "/x", "/usr/bin/git", "push"});
  ASSERT_TRUE(input);
  EXPECT_EQ(input->script, 3u);
  input = InterpreterInputOf("ld-linux-x86-64.so.2", Args{"ld.so", "--list", "/usr/bin/git"});
  ASSERT_TRUE(input);
  EXPECT_EQ(input->script, std::nullopt);  // lists its libraries: nothing runs
  EXPECT_EQ(InterpreterInputOf("cat", Args{"cat", "x"}), std::nullopt);
}

TEST_F(ExecDecisionTest, AListedProgramsModuleOrCodeIsRefusedAsIt) {
  auto decide = [&](std::vector<std::string> argv, std::vector<std::string> named_in_code = {}) {
    ExecFacts facts;
    facts.program = {"/usr/bin/python3", "/usr/bin/python3.11", ""};
    facts.argv = argv;
    auto input = InterpreterInputOf("python3", argv);
    facts.family = std::string(input->family);
    if (input->module) facts.module = input->Value(argv, *input->module), facts.module_index = *input->module;
    if (input->code) facts.code = input->Value(argv, *input->code);
    facts.named_in_code = std::move(named_in_code);
    return DecideExec(matcher_, facts);
  };
  ExecVerdict verdict = decide({"python3", "-m", "awscli", "s3", "ls"});
  EXPECT_TRUE(verdict.refuse);
  EXPECT_EQ(verdict.entry, "aws");
  EXPECT_EQ(verdict.command, "aws s3 ls");
  EXPECT_TRUE(decide({"python3", "-mawscli.clidriver"}).refuse);
  EXPECT_FALSE(decide({"python3", "-m", "awscli_helper"}).refuse);
  EXPECT_FALSE(decide({"python3", "-m", "azure.cli"}).refuse);  // az is not on this list
  EXPECT_TRUE(decide({"python3", "-c", "from awscli.clidriver import main; main()"}).refuse);
  EXPECT_TRUE(decide({"python3", "-c", "import googlecloudsdk"}).refuse);  // gcloud's
  EXPECT_FALSE(decide({"python3", "-c", "print('myawscli awscli_x')"}).refuse);
  EXPECT_TRUE(decide({"python3", "-c", "exec(open(p).read())"}, {"aws"}).refuse);  // its file, by path
  EXPECT_FALSE(decide({"python3", "-c", "print(1)"}, {"git"}).refuse);  // only `git push --force` is listed
}

}  // namespace
}  // namespace corral::shim
