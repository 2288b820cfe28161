// The built corral-shell under a shell's name, against a stand-in oracle,
// with the built corral-shim beside it for the fallback.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "images/shell/fake_oracle_test_util.h"

namespace {

constexpr char kAllow[] = "{\"v\":1,\"decision\":\"allow\"}\n";

struct Outcome {
  int code = -1;
  std::string out, err;
};

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ShellBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = oracle_.dir() / "bin";
    std::filesystem::create_directories(bin_);
    for (const char* name : {"bash", "sh"}) {
      std::filesystem::create_symlink(CORRAL_SHELL_BINARY, bin_ / name);
    }
    std::ofstream(oracle_.dir() / "deny-list") << "# the session's list\nkubectl\n";
  }

  // Runs `line` through /bin/sh with the session's variables set; `line`
  // names the front as "$BIN/bash".
  Outcome Run(const std::string& line) {
    std::filesystem::path out = oracle_.dir() / "out", err = oracle_.dir() / "err";
    std::string script = "cd '" + oracle_.dir().string() + "' && BIN='" + bin_.string() +
                         "' CORRAL_ORACLE_SOCKET='" + oracle_.socket() +
                         "' CORRAL_DENY_LIST_FILE=deny-list /bin/sh -c '" + line + "' >'" +
                         out.string() + "' 2>'" + err.string() + "' </dev/null";
    int status = std::system(script.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(out), Slurp(err)};
  }

  std::string Asked(std::size_t i = 0) {
    EXPECT_GT(oracle_.requests().size(), i);
    if (oracle_.requests().size() <= i) return "";
    return nlohmann::json::parse(oracle_.requests()[i])["command"];
  }

  FakeOracle oracle_;
  std::filesystem::path bin_;
};

TEST_F(ShellBinaryTest, AllowedCommandsRunAsTheRealShell) {
  oracle_.Serve(kAllow);
  Outcome run = Run("\"$BIN/bash\" -e -c \"echo \\$0 ran; exit 3\"");
  oracle_.Join();
  EXPECT_EQ(run.code, 3);
  EXPECT_NE(run.out.find("ran"), std::string::npos) << run.out << run.err;
  EXPECT_EQ(Asked(), "echo $0 ran; exit 3");
  auto request = nlohmann::json::parse(oracle_.requests()[0]);
  EXPECT_EQ(request["shell"], "bash");
  EXPECT_EQ(std::filesystem::path(request["cwd"].get<std::string>()), oracle_.dir());
}

TEST_F(ShellBinaryTest, RefusedCommandsDoNotRun) {
  oracle_.Serve("{\"v\":1,\"decision\":\"deny\",\"message\":\"corral blocked this: aws\"}\n");
  Outcome run = Run("\"$BIN/bash\" -c \"touch ran\"");
  oracle_.Join();
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "corral blocked this: aws\n");
  EXPECT_FALSE(std::filesystem::exists(oracle_.dir() / "ran"));
}

TEST_F(ShellBinaryTest, ScriptsAndPipedTextAreCheckedByTheirText) {
  std::ofstream(oracle_.dir() / "deploy.sh") << "echo deploying\n";
  oracle_.Serve(kAllow, 2);
  Outcome script = Run("\"$BIN/sh\" deploy.sh");
  Outcome piped = Run("printf \"echo piped\\n\" | \"$BIN/bash\"");
  oracle_.Join();
  EXPECT_EQ(script.out, "deploying\n");
  EXPECT_EQ(Asked(0), "echo deploying\n");
  EXPECT_EQ(piped.out, "piped\n") << piped.err;
  EXPECT_EQ(Asked(1), "echo piped\n");
}

// bash <(curl ...), bash /dev/stdin, a FIFO: reading the script to check it
// empties the pipe, so the shell must still be given the text.
TEST_F(ShellBinaryTest, ScriptsGivenThroughPipesStillRunAfterTheCheck) {
  oracle_.Serve(kAllow, 2);
  Outcome stdin_path = Run("printf \"echo from-pipe \\$1\\n\" | \"$BIN/bash\" /dev/stdin one");
  Outcome fifo = Run("mkfifo f && { printf \"echo from-fifo\\n\" >f & } && timeout 10 \"$BIN/sh\" f");
  oracle_.Join();
  EXPECT_EQ(stdin_path.out, "from-pipe one\n") << stdin_path.err;
  EXPECT_EQ(Asked(0), "echo from-pipe $1\n");
  EXPECT_EQ(fifo.out, "from-fifo\n") << fifo.err;
  EXPECT_EQ(Asked(1), "echo from-fifo\n");
}

TEST_F(ShellBinaryTest, APipedScriptTooLargeToCheckIsRefused) {
  Outcome run = Run("head -c 9000000 /dev/zero | tr \"\\000\" \" \" | \"$BIN/bash\" /dev/stdin");
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("could not be checked"), std::string::npos) << run.err;
  EXPECT_TRUE(oracle_.requests().empty());
}

TEST_F(ShellBinaryTest, AScriptFoundInPathIsCheckedByItsText) {
  std::filesystem::create_directories(oracle_.dir() / "tools");
  std::ofstream(oracle_.dir() / "tools" / "rollout") << "echo rolling\n";
  oracle_.Serve(kAllow);
  Outcome run = Run("PATH=\"$PWD/tools:$PATH\" \"$BIN/bash\" rollout");
  oracle_.Join();
  EXPECT_EQ(run.out, "rolling\n") << run.err;  // bash found it in PATH too
  EXPECT_EQ(Asked(), "echo rolling\n");
}

TEST_F(ShellBinaryTest, BashEnvIsCheckedWithTheCommand) {
  std::ofstream(oracle_.dir() / "env.sh") << "kubectl delete ns prod\n";
  oracle_.Serve(kAllow);
  Run("BASH_ENV=env.sh \"$BIN/bash\" -c true");
  oracle_.Join();
  EXPECT_EQ(Asked(), "kubectl delete ns prod\n\ntrue");
}

TEST_F(ShellBinaryTest, BashEnvGivenThroughAPipeStillRunsAfterTheCheck) {
  oracle_.Serve(kAllow);
  Outcome run = Run(
      "mkfifo e && { printf \"echo from-env\\n\" >e & } && "
      "BASH_ENV=e timeout 10 \"$BIN/bash\" -c \"echo cmd\"");
  oracle_.Join();
  EXPECT_EQ(Asked(), "echo from-env\n\necho cmd");
  EXPECT_EQ(run.out, "from-env\ncmd\n") << run.err;
}

TEST_F(ShellBinaryTest, WithoutTheHostOnlyTheListIsRefused) {
  // No oracle at all: corral-shim check-locally reads the session's list.
  Outcome listed = Run("\"$BIN/bash\" -c \"kubectl get pods; touch ran\"");
  EXPECT_EQ(listed.code, 1);
  EXPECT_NE(listed.err.find("could not be asked"), std::string::npos) << listed.err;
  EXPECT_FALSE(std::filesystem::exists(oracle_.dir() / "ran"));
  Outcome other = Run("printf \"echo \\$0 fine\" | \"$BIN/bash\" -s");
  EXPECT_EQ(other.code, 0) << other.err;
  EXPECT_EQ(other.out, (bin_ / "bash").string() + " fine\n");  // argv[0] kept
  // An answer that is not a decision counts as no answer.
  oracle_.Serve("{\"v\":1}\n");
  Outcome garbled = Run("\"$BIN/bash\" -c \"kubectl get pods\"");
  oracle_.Join();
  EXPECT_EQ(garbled.code, 1);
  EXPECT_NE(garbled.err.find("could not be asked"), std::string::npos) << garbled.err;
}

// Longer than the room the front keeps for the usual question.
TEST_F(ShellBinaryTest, ALongCommandIsAskedWhole) {
  oracle_.Serve(kAllow);
  std::string command = "echo " + std::string(5000, 'x') + " >/dev/null; echo done";
  Outcome run = Run("\"$BIN/bash\" -c \"" + command + "\"");
  oracle_.Join();
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "done\n");
  EXPECT_EQ(Asked(), command);
}

// A working folder longer than the room the front keeps for it is sent whole.
TEST_F(ShellBinaryTest, ALongWorkingFolderIsSentWhole) {
  oracle_.Serve(kAllow);
  std::filesystem::path deep = oracle_.dir();
  for (int i = 0; i < 12; ++i) deep /= std::string(60, 'a' + i);  // over 700 bytes
  std::filesystem::create_directories(deep);
  Outcome run = Run("cd " + deep.string() + " && \"$BIN/bash\" -c \"echo here\"");
  oracle_.Join();
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "here\n");
  ASSERT_EQ(oracle_.requests().size(), 1u);
  auto request = nlohmann::json::parse(oracle_.requests()[0]);
  EXPECT_EQ(request["cwd"], deep.string());
}

// The real shell is never the front itself, however the front was started:
// it knows its own file by the path it was started by (or /proc/self/exe).
TEST_F(ShellBinaryTest, TheRealShellIsNeverTheFrontItself) {
  oracle_.Serve(kAllow, 2);
  Outcome run = Run("CORRAL_REAL_BASH=\"$BIN/bash\" timeout 10 \"$BIN/bash\" -c \"echo ran\" && "
                    "cd \"$BIN\" && CORRAL_REAL_SH=./bash timeout 10 ./sh -c \"echo ran too\"");
  oracle_.Join();
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "ran\nran too\n") << run.err;
  EXPECT_EQ(oracle_.requests().size(), 2u);  // one question each: no second round through itself
}

TEST_F(ShellBinaryTest, VersionNeedsNoAnswer) {
  Outcome run = Run("\"$BIN/bash\" --version");
  EXPECT_EQ(run.code, 0);
  EXPECT_NE(run.out.find("GNU bash"), std::string::npos);
}

}  // namespace
