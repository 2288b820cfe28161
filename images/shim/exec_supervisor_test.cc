// The exec check on the real kernel: a child installs the filter through
// ExecCheckStart as PID 1's child does, this process supervises it, and a
// fake oracle answers. Each case is one exec by a grandchild.
#include "images/shim/exec_supervisor.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "images/shim/exec_check.h"
#include "images/shim/exec_filter.h"

namespace corral::shim {
namespace {

namespace fs = std::filesystem;

constexpr int kRan = 0, kRefused = 77, kOtherError = 78;

// Answers presence questions with `watching`, and exec verdicts with deny
// unless watching; keeps every request.
class FakeOracle {
 public:
  FakeOracle(const fs::path& socket, bool watching) : watching_(watching) {
    listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::listen(listener_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeOracle() {
    ::shutdown(listener_, SHUT_RDWR);
    thread_.join();
    ::close(listener_);
  }
  std::vector<nlohmann::json> Requests(const char* kind) {
    std::lock_guard lock(mu_);
    std::vector<nlohmann::json> found;
    for (const auto& r : requests_) {
      if (r.contains(kind)) found.push_back(r);
    }
    return found;
  }

 private:
  void Serve() {
    for (;;) {
      int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      std::string line;
      char buffer[4096];
      ssize_t n;
      while (line.find('\n') == std::string::npos &&
             (n = ::recv(client, buffer, sizeof buffer, 0)) > 0) {
        line.append(buffer, static_cast<std::size_t>(n));
      }
      auto request = nlohmann::json::parse(line, nullptr, false);
      {
        // Kept before the answer: the exec it decides may be the test's last.
        std::lock_guard lock(mu_);
        requests_.push_back(request);
      }
      nlohmann::json reply =
          request.contains("ask")
              ? nlohmann::json{{"v", 1}, {"watching", watching_}}
              : nlohmann::json{{"v", 1}, {"decision", watching_ ? "allow" : "deny"}};
      std::string text = reply.dump() + "\n";
      ::send(client, text.data(), text.size(), MSG_NOSIGNAL);
      ::close(client);
    }
  }

  bool watching_;
  int listener_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<nlohmann::json> requests_;
};

// One exec: the path and its arguments, tried `attempts` times by the same
// process (as execvp tries each PATH folder).
struct Case {
  std::string path;
  std::vector<std::string> argv;
  int attempts = 1;
  std::string open_as_5_and_stdin = "";  // a file the process holds as descriptors 5 and 0
};

class ExecSupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-supervise-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "bin");
    fs::create_directories(dir_ / "tmp");
    Script(dir_ / "bin" / "aws", "echo aws ran");
    Script(dir_ / "bin" / "helper", "echo helper ran");
    std::ofstream(dir_ / "deny-list") << "aws\ngit push --force\n";
    fs::copy_file(dir_ / "bin" / "aws", dir_ / "tmp" / "x");  // a copy under another name
    fs::create_symlink(dir_ / "bin" / "aws", dir_ / "tmp" / "soft");
    settings_.deny_list_file = (dir_ / "deny-list").string();
    settings_.search_path = (dir_ / "bin").string() + ":/usr/bin:/bin";
    settings_.front_dirs = (dir_ / "front").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Script(const fs::path& path, const std::string& body) {
    std::ofstream(path) << "#!/bin/sh\n" << body << " >/dev/null\n";
    fs::permissions(path, fs::perms::owner_all);
  }

  std::string Bin(const char* name) const { return (dir_ / "bin" / name).string(); }
  std::string Tmp(const char* name) const { return (dir_ / "tmp" / name).string(); }

  // Runs each case in a filtered child, with the oracle at `socket`; the
  // exit code of each exec.
  std::vector<int> Run(const std::vector<Case>& cases, const fs::path& socket) {
    std::vector<std::vector<char*>> argvs;  // ready before the fork: the child only execs
    for (const Case& c : cases) {
      argvs.emplace_back();
      for (const std::string& arg : c.argv) argvs.back().push_back(const_cast<char*>(arg.c_str()));
      argvs.back().push_back(nullptr);
    }
    std::string path_env = "PATH=" + settings_.search_path;
    char* envp[] = {path_env.data(), nullptr};
    int results[2];
    EXPECT_EQ(::pipe(results), 0);
    auto start = ExecCheckStart::Prepare(ExecCheckMode::kRequire);
    EXPECT_TRUE(start);
    pid_t child = ::fork();
    if (child == 0) {
      if (!start->InChild()) _exit(125);
      ::usleep(200'000);  // the first presence answer arrives
      for (std::size_t i = 0; i < cases.size(); ++i) {
        pid_t one = ::fork();
        if (one == 0) {
          if (!cases[i].open_as_5_and_stdin.empty()) {
            int fd = ::open(cases[i].open_as_5_and_stdin.c_str(), O_RDONLY);
            if (::dup2(fd, 5) != 5 || ::dup2(fd, 0) != 0) _exit(kOtherError);
          }
          for (int attempt = 0; attempt < cases[i].attempts; ++attempt) {
            ::execve(cases[i].path.c_str(), argvs[i].data(), envp);
          }
          _exit(errno == EACCES ? kRefused : kOtherError);
        }
        int status = 0;
        ::waitpid(one, &status, 0);
        char code = static_cast<char>(WIFEXITED(status) ? WEXITSTATUS(status) : 99);
        (void)!::write(results[1], &code, 1);
      }
      _exit(0);
    }
    ::close(results[1]);
    UniqueFd listener;
    EXPECT_EQ(start->InParent(child, listener), 0);
    std::thread supervisor(SuperviseExecs, std::move(listener), settings_,
                           OracleAnswers(socket.string()), nullptr);
    int status = 0;
    ::waitpid(child, &status, 0);
    supervisor.join();  // ends when no filtered process is left
    std::vector<int> codes;
    char code;
    while (::read(results[0], &code, 1) == 1) codes.push_back(code);
    ::close(results[0]);
    return codes;
  }

  fs::path dir_;
  SupervisorSettings settings_;
};

TEST_F(ExecSupervisorTest, NobodyWatchingListedProgramsAreRefusedByAnyRoute) {
  if (!ExecFilterUnavailable(0).empty()) GTEST_SKIP() << ExecFilterUnavailable(0);
  FakeOracle oracle(dir_ / "oracle.sock", /*watching=*/false);
  std::vector<Case> cases = {
      {"/bin/true", {"true"}},
      {Bin("helper"), {"helper"}},
      {Bin("aws"), {"aws", "s3", "ls"}},             // by name, as subprocess.run does
      {Tmp("x"), {"x", "s3", "ls"}},                 // a byte-identical copy
      {Tmp("soft"), {"soft"}},                       // a symbolic link
      {"/bin/sh", {"sh", Bin("aws")}},               // an interpreter running its file
      {"/usr/bin/env", {"env", "aws", "s3", "ls"}},  // refused at env's exec of aws
      {"/bin/sh", {"sh", "-c", "true; true"}},       // what make runs
      {Bin("aws"), {"aws", "sts"}, /*attempts=*/2},  // refused twice, told once
  };
  std::vector<int> codes = Run(cases, dir_ / "oracle.sock");
  constexpr int kEnvCannotRun = 126;  // env's own exec of aws was refused
  EXPECT_EQ(codes, (std::vector<int>{kRan, kRan, kRefused, kRefused, kRefused, kRefused,
                                     kEnvCannotRun, kRan, kRefused}));
  auto reports = oracle.Requests("command");
  ASSERT_EQ(reports.size(), 6u) << nlohmann::json(reports).dump();
  EXPECT_EQ(reports[0]["shell"], "exec");
  EXPECT_EQ(reports[0]["command"], "aws s3 ls");
  EXPECT_EQ(reports[0]["program"], Bin("aws"));
  EXPECT_EQ(reports[1]["command"], "aws s3 ls");  // the copy, named as what it is
  EXPECT_EQ(reports[1]["program"], Tmp("x"));
  EXPECT_EQ(reports[5]["command"], "aws sts");
}

// Detours that reach a listed program other than by its own path: each
// runs while somebody watches (the control), and is refused while nobody does.
std::vector<Case> Detours(const std::string& aws, const fs::path& tmp) {
  std::ofstream(tmp / "shebang") << "#!" << aws << "\n";
  std::ofstream(tmp / "shebang-twice") << "#!" << (tmp / "shebang").string() << " -x\n";
  fs::permissions(tmp / "shebang", fs::perms::owner_all);
  fs::permissions(tmp / "shebang-twice", fs::perms::owner_all);
  fs::create_symlink("/proc/self/fd/5", tmp / "fd-link");
  fs::copy_file("/bin/sh", tmp / "not-a-shell");
  fs::permissions(tmp / "not-a-shell", fs::perms::owner_all);
  std::string git = "/usr/bin/git";
  std::vector<Case> cases = {
      {"/dev/fd/5", {"x", "s3"}, 1, aws},
      {"/dev/stdin", {"x", "s3"}, 1, aws},
      {"/proc/./self/fd/5", {"x", "s3"}, 1, aws},
      {(tmp / "fd-link").string(), {"x", "s3"}, 1, aws},
      {(tmp / "shebang").string(), {"shebang", "s3"}},
      {(tmp / "shebang-twice").string(), {"shebang-twice", "s3"}},
      {(tmp / "not-a-shell").string(), {"not-a-shell", aws, "s3"}},
      {"/bin/sh", {"sh", "-s", "s3"}, 1, aws},  // the listed program on standard input
  };
  if (fs::exists("/usr/bin/python3")) {  // its code, given as text (the program, as text, fails in python)
    cases.push_back({"/usr/bin/python3", {"python3", "-c", "exec(open('" + aws + "').read())"}});
    cases.push_back({"/usr/bin/python3", {"python3", "-m", "awscli.clidriver", "s3"}});
  }
  for (const char* loader : {"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"}) {
    if (!fs::exists(loader) || !fs::exists(git)) continue;
    fs::copy_file(loader, tmp / "loader");
    fs::permissions(tmp / "loader", fs::perms::owner_all);
    // Outside any repository (-C a folder that is not one): it exits 128 when it runs.
    std::vector<std::string> push = {git, "-C", tmp.string(), "push", "--force", "--dry-run", "nowhere"};
    push.insert(push.begin(), "ld.so");
    cases.push_back({loader, push});
    push[0] = "loader";
    cases.push_back({(tmp / "loader").string(), push});
    break;
  }
  return cases;
}

TEST_F(ExecSupervisorTest, DetoursToAListedProgramAreRefusedAndRunWhileWatched) {
  if (!ExecFilterUnavailable(0).empty()) GTEST_SKIP() << ExecFilterUnavailable(0);
  std::vector<Case> cases = Detours(Bin("aws"), dir_ / "tmp");
  {
    FakeOracle oracle(dir_ / "watched.sock", /*watching=*/true);
    std::vector<int> codes = Run(cases, dir_ / "watched.sock");
    for (std::size_t i = 0; i < cases.size(); ++i) {
      // git push outside a repository exits 128: it ran.
      EXPECT_NE(codes.at(i), kRefused) << "watched, " << cases[i].path << " did not run";
      EXPECT_NE(codes.at(i), kOtherError) << cases[i].path;
    }
  }
  FakeOracle oracle(dir_ / "oracle.sock", /*watching=*/false);
  std::vector<int> codes = Run(cases, dir_ / "oracle.sock");
  ASSERT_EQ(codes.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(codes[i], kRefused) << "nobody watching, " << cases[i].path << " was not refused";
  }
  auto reports = oracle.Requests("command");
  ASSERT_EQ(reports.size(), cases.size()) << nlohmann::json(reports).dump();
  EXPECT_EQ(reports[0]["command"], "aws s3");  // the descriptor's file, named as what it is
  EXPECT_EQ(reports[4]["command"], "aws " + Tmp("shebang") + " s3");  // as the kernel starts it
  // shebang-twice runs `shebang -x shebang-twice s3`, which runs aws.
  EXPECT_EQ(reports[5]["command"], "aws " + Tmp("shebang") + " -x " + Tmp("shebang-twice") + " s3");
}

// Where busybox is also sh (a box's /bin/sh), its other applets are not shells:
// `cat /usr/bin/aws` copies the file and runs nothing.
TEST_F(ExecSupervisorTest, AMultiCallBinaryIsReadByTheNameItRunsAs) {
  if (!ExecFilterUnavailable(0).empty()) GTEST_SKIP() << ExecFilterUnavailable(0);
  if (!fs::exists("/bin/busybox")) GTEST_SKIP() << "no /bin/busybox";
  fs::create_symlink("/bin/busybox", dir_ / "bin" / "sh");
  FakeOracle oracle(dir_ / "oracle.sock", /*watching=*/false);
  std::vector<Case> cases = {{"/bin/busybox", {"cat", Bin("aws")}}, {Bin("sh"), {"sh", Bin("aws")}}};
  EXPECT_EQ(Run(cases, dir_ / "oracle.sock"), (std::vector<int>{kRan, kRefused}));
}

TEST_F(ExecSupervisorTest, SomebodyWatchingExecsGoOnWithoutAskingPerExec) {
  if (!ExecFilterUnavailable(0).empty()) GTEST_SKIP() << ExecFilterUnavailable(0);
  FakeOracle oracle(dir_ / "oracle.sock", /*watching=*/true);
  std::vector<Case> cases = {
      {Bin("aws"), {"aws", "s3", "ls"}}, {Tmp("x"), {"x"}}, {"/bin/true", {"true"}}};
  std::vector<int> codes = Run(cases, dir_ / "oracle.sock");
  EXPECT_EQ(codes, (std::vector<int>{kRan, kRan, kRan}));
  EXPECT_TRUE(oracle.Requests("command").empty()) << "a verdict was asked for while watching";
  EXPECT_GE(oracle.Requests("ask").size(), 1u);
}

TEST_F(ExecSupervisorTest, WithoutTheHostListedProgramsAreRefusedAndOthersRun) {
  if (!ExecFilterUnavailable(0).empty()) GTEST_SKIP() << ExecFilterUnavailable(0);
  std::vector<Case> cases = {{Bin("aws"), {"aws"}}, {"/bin/true", {"true"}}};
  std::vector<int> codes = Run(cases, dir_ / "no-oracle.sock");
  EXPECT_EQ(codes, (std::vector<int>{kRefused, kRan}));
}

TEST_F(ExecSupervisorTest, TheListFileIsFollowed) {
  if (!ExecFilterUnavailable(0).empty()) GTEST_SKIP() << ExecFilterUnavailable(0);
  std::ofstream(dir_ / "deny-list") << "helper\n";
  FakeOracle oracle(dir_ / "oracle.sock", /*watching=*/false);
  std::vector<Case> cases = {{Bin("aws"), {"aws"}}, {Bin("helper"), {"helper"}}};
  std::vector<int> codes = Run(cases, dir_ / "oracle.sock");
  EXPECT_EQ(codes, (std::vector<int>{kRan, kRefused}));
}

TEST(ExecCheckStartTest, ModesAreReadAsWritten) {
  EXPECT_EQ(ParseExecCheckMode("on"), ExecCheckMode::kOn);
  EXPECT_EQ(ParseExecCheckMode("require"), ExecCheckMode::kRequire);
  EXPECT_EQ(ParseExecCheckMode("off"), ExecCheckMode::kOff);
  EXPECT_EQ(ParseExecCheckMode("yes"), std::nullopt);
}

}  // namespace
}  // namespace corral::shim
