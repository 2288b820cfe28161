#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "images/shell/fake_oracle_test_util.h"
#include "images/shell/shell.h"

namespace {

shell_call Parse(std::vector<std::string> args) {
  static std::vector<std::string> kept;
  static std::vector<char*> pointers;
  kept = std::move(args);
  pointers.clear();
  for (std::string& arg : kept) pointers.push_back(arg.data());
  return shell_parse_args(static_cast<int>(pointers.size()), pointers.data());
}

std::string ParseText(std::vector<std::string> args) {
  shell_call call = Parse(std::move(args));
  return call.text ? call.text : "<none>";
}

TEST(ShellArgsTest, FindsCommandTextInAnyFlagOrder) {
  EXPECT_EQ(ParseText({"-c", "aws s3 ls"}), "aws s3 ls");
  EXPECT_EQ(ParseText({"-lc", "aws s3 ls"}), "aws s3 ls");
  EXPECT_EQ(ParseText({"-e", "-c", "x"}), "x");
  EXPECT_EQ(ParseText({"-xec", "x"}), "x");
  EXPECT_EQ(ParseText({"-o", "pipefail", "-c", "x"}), "x");
  EXPECT_EQ(ParseText({"-c", "-e", "x"}), "x");  // bash takes the first operand
  EXPECT_EQ(ParseText({"--norc", "--login", "-c", "x", "name", "arg"}), "x");
  EXPECT_EQ(ParseText({"--rcfile", "f", "-c", "x"}), "x");
  EXPECT_EQ(ParseText({"--emulate", "sh", "-c", "x"}), "x");  // zsh
  EXPECT_EQ(ParseText({"-c", "--", "x"}), "x");
  EXPECT_EQ(Parse({"+O", "extglob", "-c", "x"}).kind, SHELL_COMMAND);
  EXPECT_EQ(ParseText({"-c"}), "");
  EXPECT_EQ(Parse({"-c"}).kind, SHELL_COMMAND);
}

TEST(ShellArgsTest, ScriptStdinAndInfo) {
  shell_call script = Parse({"-e", "deploy.sh", "prod"});
  EXPECT_EQ(script.kind, SHELL_SCRIPT);
  EXPECT_STREQ(script.text, "deploy.sh");
  EXPECT_EQ(Parse({}).kind, SHELL_STDIN);
  EXPECT_EQ(Parse({"-s", "arg"}).kind, SHELL_STDIN);
  EXPECT_EQ(Parse({"-i"}).kind, SHELL_STDIN);
  EXPECT_EQ(Parse({"--version"}).kind, SHELL_INFO);
  EXPECT_EQ(Parse({"--", "script.sh"}).kind, SHELL_SCRIPT);
  EXPECT_EQ(Parse({"-o", "errexit", "run.sh"}).kind, SHELL_SCRIPT);
}

TEST(ShellArgsTest, ShellNames) {
  EXPECT_TRUE(shell_is_name("bash"));
  EXPECT_TRUE(shell_is_name("/run/corral/bin/sh"));
  EXPECT_TRUE(shell_is_name("-bash"));
  EXPECT_FALSE(shell_is_name("corral-shell"));
  EXPECT_FALSE(shell_is_name("bashful"));
  EXPECT_STREQ(shell_name("/run/corral/bin/-zsh"), "zsh");
}

nlohmann::json Request(const std::string& command, const std::string& cwd = "/p") {
  shell_buf out{};
  shell_request(&out, "bash", command.data(), command.size(), cwd.c_str());
  std::string line = Text(out);
  shell_buf_free(&out);
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
  return nlohmann::json::parse(line);  // throws, failing the test, when it is not JSON
}

TEST(ShellBufTest, LentStorageMovesToTheHeapWhenFull) {
  char storage[8];
  shell_buf buf;
  shell_buf_lend(&buf, storage, sizeof storage);
  shell_buf_append(&buf, "abcde", 5);
  EXPECT_EQ(buf.data, storage);  // fits: no allocation
  EXPECT_STREQ(buf.data, "abcde");
  shell_buf_append(&buf, "fghijklmnopqrstuvwxyz", 21);
  EXPECT_NE(buf.data, storage);
  EXPECT_STREQ(buf.data, "abcdefghijklmnopqrstuvwxyz");
  EXPECT_EQ(buf.len, 26u);
  EXPECT_STREQ(storage, "abcde");  // the lent storage is left as it was
  shell_buf_free(&buf);            // frees the heap copy only
  EXPECT_EQ(buf.data, nullptr);
}

TEST(ShellRequestTest, IsTheWireFormat) {
  auto request = Request("aws s3 ls", "/work/my project");
  EXPECT_EQ(
      request,
      (nlohmann::json{
          {"v", 1}, {"shell", "bash"}, {"command", "aws s3 ls"}, {"cwd", "/work/my project"}}));
}

TEST(ShellRequestTest, EscapesEveryAwkwardByte) {
  std::string awkward = "echo \"quoted\" \\ back\ttab\nline\r\x01\x1f\x7f é 😀";
  EXPECT_EQ(Request(awkward)["command"], awkward);
  EXPECT_EQ(Request(std::string("a\0b", 3))["command"], std::string("a\0b", 3));
}

TEST(ShellRequestTest, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(Request("aws\xff s3")["command"], "aws\xEF\xBF\xBD s3");
  EXPECT_EQ(Request("\xC0\xAF")["command"], "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(Request("\xED\xA0\x80")["command"],
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");                              // surrogate
  EXPECT_EQ(Request("cut \xE2\x82")["command"], "cut \xEF\xBF\xBD\xEF\xBF\xBD");  // truncated
}

// The decision for a reply line: "allow", "deny: MESSAGE", or "not a decision".
std::string Decide(const std::string& line) {
  shell_buf message{};
  int verdict = shell_read_decision(line.data(), line.size(), &message);
  std::string text = Text(message);
  shell_buf_free(&message);
  if (verdict == 1) return "allow";
  if (verdict == 0) return "deny: " + text;
  EXPECT_EQ(verdict, -1);
  return "not a decision";
}

TEST(ShellDecisionTest, ReadsTheOraclesAnswers) {
  EXPECT_EQ(Decide(R"({"v":1,"decision":"allow"})"), "allow");
  EXPECT_EQ(Decide(R"({"v":1,"decision":"deny","message":"no"})"), "deny: no");
  EXPECT_EQ(Decide(R"( { "message" : "first", "v" : 1.5e3, "decision" : "deny" } )"),
            "deny: first");
  EXPECT_EQ(Decide(R"({"decision":"deny"})"), "deny: corral blocked this command.");
  EXPECT_EQ(Decide(R"({"decision":"ask"})"), "deny: corral blocked this command.");
  EXPECT_EQ(Decide(R"({"decision":1})"), "deny: corral blocked this command.");
  EXPECT_EQ(Decide(R"({"decision":"allow","decision":"deny"})"),
            "deny: corral blocked this command.");
  EXPECT_EQ(
      Decide(R"({"extra":{"decision":"deny","list":[1,[true,false,null],{}]},"decision":"allow"})"),
      "allow");
}

TEST(ShellDecisionTest, DecodesTheMessage) {
  EXPECT_EQ(Decide(R"({"decision":"deny","message":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 é"})"),
            "deny: a\"b\\c/d\n\té😀 é");
}

TEST(ShellDecisionTest, AnythingElseIsNotADecision) {
  for (const char* line : {
           "",
           "null",
           "[]",
           R"("allow")",
           "{}",
           R"({"v":1})",
           R"({"extra":{"decision":"allow"}})",  // not at the top
           R"({"decision":"allow"} x)",
           R"({"decision":"allow",})",
           R"({"decision" "allow"})",
           R"({"decision":"allow")",
           R"({"decision":"all)",
           R"({"decision":"a\qb"})",
           R"({"decision":"allow","message":"\ud83d"})",      // lone high surrogate
           R"({"decision":"allow","message":"\ude00"})",      // lone low surrogate
           "{\"decision\":\"allow\",\"message\":\"a\x01\"}",  // raw control character
           "{\"decision\":\"allow\",\"message\":\"\xff\"}",   // not UTF-8
           R"({"decision":"allow","n":01})",
           R"({"decision":"allow","n":1.})",
           R"({"decision":"allow","n":-})",
           R"({"decision":"allow","n":tru})",
       }) {
    EXPECT_EQ(Decide(line), "not a decision") << line;
  }
  std::string deep(100, '[');
  EXPECT_EQ(Decide(R"({"decision":"allow","x":)" + deep + std::string(100, ']') + "}"),
            "not a decision");
}

int Ask(const std::string& socket, std::string* reply, int timeout_ms = 2000) {
  shell_buf out{};
  const char request[] = "{\"v\":1}\n";
  int result = shell_ask(socket.c_str(), request, sizeof request - 1, timeout_ms, &out);
  *reply = Text(out);
  shell_buf_free(&out);
  return result;
}

TEST(ShellAskTest, ReadsOneLineEvenInPieces) {
  FakeOracle oracle;
  oracle.Serve("{\"decision\":\"allow\"}\nignored", 1, 3);
  std::string reply;
  EXPECT_EQ(Ask(oracle.socket(), &reply), 0);
  oracle.Join();
  EXPECT_EQ(reply, "{\"decision\":\"allow\"}");
  ASSERT_EQ(oracle.requests().size(), 1u);
  EXPECT_EQ(oracle.requests()[0], "{\"v\":1}\n");
}

TEST(ShellAskTest, NoOracleOrNoLineIsNoAnswer) {
  FakeOracle oracle;
  std::string reply;
  EXPECT_EQ(Ask(oracle.socket(), &reply), -1);  // nothing listening
  oracle.Serve("{\"decision\":\"allow\"}", 1);  // closes without a newline
  EXPECT_EQ(Ask(oracle.socket(), &reply), -1);
}

TEST(ShellAskTest, ASilentOracleTimesOut) {
  FakeOracle oracle;
  oracle.Serve("");
  std::string reply;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Ask(oracle.socket(), &reply, 200), -1);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(190));
  EXPECT_LT(took, std::chrono::milliseconds(550));
}

TEST(ShellFindRealTest, NeverFindsItselfAndHonoursTheSetting) {
  char path[4096];
  ASSERT_EQ(shell_find_real("sh", path, sizeof path), 0);
  EXPECT_NE(std::filesystem::canonical(path), std::filesystem::canonical("/proc/self/exe"));
  EXPECT_EQ(shell_find_real("no-such-shell-here", path, sizeof path), -1);
  ::setenv("CORRAL_REAL_NO-SUCH-SHELL-HERE", "/bin/sh", 1);
  EXPECT_EQ(shell_find_real("no-such-shell-here", path, sizeof path), 0);
  EXPECT_STREQ(path, "/bin/sh");
  ::setenv("CORRAL_REAL_NO-SUCH-SHELL-HERE", "/proc/self/exe", 1);  // this program: skipped
  EXPECT_EQ(shell_find_real("no-such-shell-here", path, sizeof path), -1);
  ::unsetenv("CORRAL_REAL_NO-SUCH-SHELL-HERE");
}

}  // namespace
