#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "policy/oracle/oracle_state.h"
#include "policy/oracle/oracle.h"

namespace corral::policy {
namespace {

namespace fs = std::filesystem;

// A connected socket, or -1.
int Connect(const std::string& socket_path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A client speaking the wire format: one request per connection.
nlohmann::json Ask(const std::string& socket_path, const std::string& request_line) {
  int fd = Connect(socket_path);
  if (fd < 0) return {{"error", "connect"}};
  std::string line = request_line + "\n";
  ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
  std::string reply;
  char buffer[4096];
  ssize_t n;
  while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) reply.append(buffer, n);
  ::close(fd);
  auto parsed = nlohmann::json::parse(reply, nullptr, false);
  return parsed.is_discarded() ? nlohmann::json{{"error", "unparsable: " + reply}} : parsed;
}

nlohmann::json AskCommand(const std::string& socket_path, const std::string& command) {
  return Ask(socket_path,
             nlohmann::json{{"v", 1}, {"shell", "bash"}, {"command", command}, {"cwd", "/p"}}.dump());
}

class OracleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-oracle-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    config_ = (dir_ / "config.yaml").string();
    WriteConfig("deny_unattended: [aws, git push --force]\n");
  }
  void TearDown() override {
    if (oracle_) oracle_->Stop();
    fs::remove_all(dir_);
  }

  void WriteConfig(const std::string& text) {
    std::string temp = config_ + ".tmp";
    std::ofstream(temp) << text;
    fs::rename(temp, config_);
  }

  void Start() {
    OracleOptions options;
    options.socket_path = (dir_ / "oracle.sock").string();
    options.policy_source.config_path = config_;
    options.policy_source.getenv = [](const char*) -> const char* { return nullptr; };
    options.deny_list_copy = (dir_ / "deny-list").string();
    options.record = [path = (dir_ / "events.jsonl").string(), this](std::string_view line) {
      std::lock_guard lock(record_mu_);
      std::ofstream(path, std::ios::app) << line << "\n";
    };
    options.inbox_dir = (dir_ / "state").string();
    options.session = "s1";
    options.project = "/p";
    options.agent = "claude";
    options.watching = [this] { return watching_.load(); };
    options.on_deny_list_copy = [this](const std::string& text) {
      std::lock_guard lock(record_mu_);
      copies_told_.push_back(text);
    };
    auto oracle = Oracle::Start(std::move(options));
    ASSERT_TRUE(oracle.ok()) << oracle.error().message;
    oracle_ = std::move(*oracle);
  }
  std::string Socket() const { return (dir_ / "oracle.sock").string(); }

  fs::path dir_;
  std::string config_;
  std::atomic<bool> watching_{false};
  std::mutex record_mu_;
  std::vector<std::string> copies_told_;  // on_deny_list_copy's texts
  std::unique_ptr<Oracle> oracle_;
};

TEST_F(OracleTest, RefusesListedWhileAwayAndAllowsOthers) {
  Start();
  auto reply = AskCommand(Socket(), "cd x && aws s3 ls");
  EXPECT_EQ(reply["v"], 1);
  EXPECT_EQ(reply["decision"], "deny");
  EXPECT_EQ(reply["message"],
            "corral blocked this: `aws` may not run while nobody is watching. Leave it for the "
            "user and tell them what it was for.");
  EXPECT_EQ(AskCommand(Socket(), "git push")["decision"], "allow");
  EXPECT_EQ(AskCommand(Socket(), "git push origin main --force")["decision"], "deny");
  EXPECT_FALSE(AskCommand(Socket(), "ls").contains("message"));
}

TEST_F(OracleTest, WatchingLetsListedCommandsRun) {
  Start();
  watching_ = true;
  EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "allow");
  watching_ = false;
  EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "deny");
}

TEST_F(OracleTest, UndeterminedIsRefusedWhileAway) {
  Start();
  auto reply = AskCommand(Socket(), "$TOOL s3 ls");
  EXPECT_EQ(reply["decision"], "deny");
  EXPECT_NE(reply["message"].get<std::string>().find("could not be determined"), std::string::npos);
}

TEST_F(OracleTest, ConfigEditReachesTheNextCommand) {
  Start();
  EXPECT_EQ(AskCommand(Socket(), "kubectl get pods")["decision"], "allow");
  WriteConfig("deny_unattended: [kubectl]\n");
  EXPECT_EQ(AskCommand(Socket(), "kubectl get pods")["decision"], "deny");
  EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "allow");
  std::ifstream copy(dir_ / "deny-list");
  std::string text((std::istreambuf_iterator<char>(copy)), {});
  EXPECT_NE(text.find("\nkubectl\n"), std::string::npos);
  EXPECT_EQ(text.find("aws"), std::string::npos);
}

// The network mode sends the copy on to the box's session volume.
TEST_F(OracleTest, EachRewrittenCopyIsToldWithTheTextWritten) {
  Start();
  WriteConfig("deny_unattended: [kubectl]\n");
  (void)AskCommand(Socket(), "ls");
  std::ifstream copy(dir_ / "deny-list");
  std::string text((std::istreambuf_iterator<char>(copy)), {});
  std::lock_guard lock(record_mu_);
  ASSERT_EQ(copies_told_.size(), 2u);  // at the start, then after the edit
  EXPECT_NE(copies_told_[0].find("\naws\n"), std::string::npos);
  EXPECT_EQ(copies_told_[1], text);
}

TEST_F(OracleTest, BrokenConfigEditKeepsTheLastGoodList) {
  Start();
  WriteConfig("deny_unattended: [kubectl\n");
  EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "deny");
}

TEST_F(OracleTest, MalformedRequestIsRefused) {
  Start();
  EXPECT_EQ(Ask(Socket(), "not json")["decision"], "deny");
  EXPECT_EQ(Ask(Socket(), R"({"v":2,"command":"ls"})")["decision"], "deny");
  EXPECT_EQ(Ask(Socket(), R"({"v":1,"command":42})")["decision"], "deny");
}

TEST_F(OracleTest, LogsEveryDecisionAndKeepsRefusalsForTheInbox) {
  Start();
  AskCommand(Socket(), "ls");
  AskCommand(Socket(), "aws s3 ls");
  watching_ = true;
  AskCommand(Socket(), "aws s3 cp a b");
  oracle_->Stop();

  std::ifstream log(dir_ / "events.jsonl");
  std::vector<nlohmann::json> events;
  for (std::string line; std::getline(log, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0]["decision"], "allow");
  EXPECT_EQ(events[0]["watching"], nullptr);  // presence is not asked for ordinary commands
  EXPECT_EQ(events[1]["event"], "command");
  EXPECT_EQ(events[1]["decision"], "deny");
  EXPECT_EQ(events[1]["entry"], "aws");
  EXPECT_EQ(events[1]["session"], "s1");
  EXPECT_EQ(events[1]["finding"], "listed");
  EXPECT_EQ(events[1]["words"][0]["text"], "aws");
  EXPECT_NE(events[1]["message"].get<std::string>().find("corral blocked this"), std::string::npos);
  EXPECT_FALSE(events[0].contains("message"));
  EXPECT_EQ(events[0]["reason"], "no command on the deny list");
  EXPECT_EQ(events[2]["decision"], "allow");
  EXPECT_EQ(events[2]["watching"], true);

  auto inbox = InboxTake((dir_ / "state").string(), false);
  ASSERT_TRUE(inbox.ok());
  ASSERT_EQ(inbox->size(), 1u);
  EXPECT_EQ((*inbox)[0].command, "aws s3 ls");
  EXPECT_EQ((*inbox)[0].agent, "claude");
  EXPECT_EQ(oracle_->Stats().refused_while_away, 1u);
}

// The agent's wrapper (Claude Code's) is kept whole in `command`; `refused`
// is the simple command inside it that the list matched, in the record and the inbox.
TEST_F(OracleTest, TheRefusedCommandIsRecordedBesideTheAgentsText) {
  Start();
  const std::string wrapped =
      "source /home/u/.claude/shell-snapshots/snapshot-bash-1750000000000-ab12cd.sh && eval "
      "'aws s3 ls --recursive' \\< /dev/null && pwd -P >| /tmp/claude-5d2e-cwd";
  AskCommand(Socket(), wrapped);
  AskCommand(Socket(), "ls");
  oracle_->Stop();
  std::ifstream log(dir_ / "events.jsonl");
  std::vector<nlohmann::json> events;
  for (std::string line; std::getline(log, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["command"], wrapped);
  EXPECT_EQ(events[0]["refused"], "aws s3 ls --recursive");
  EXPECT_EQ(events[1]["refused"], nullptr);
  auto inbox = InboxTake((dir_ / "state").string(), false);
  ASSERT_TRUE(inbox.ok());
  ASSERT_EQ(inbox->size(), 1u);
  EXPECT_EQ((*inbox)[0].command, wrapped);
  EXPECT_EQ((*inbox)[0].refused, "aws s3 ls --recursive");
}

// A command asked again is answered from CleanCommands when nothing was
// found in it the first time: its answer and its record line are the same
// (but for the time); one with a finding is decided anew each time.
TEST_F(OracleTest, ACommandAskedAgainGetsTheSameAnswerAndRecord) {
  Start();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(AskCommand(Socket(), "make -j4 && ./run"), nlohmann::json({{"v", 1}, {"decision", "allow"}}));
    EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "deny");
    watching_ = true;
    EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "allow");
    watching_ = false;
  }
  oracle_->Stop();
  std::ifstream log(dir_ / "events.jsonl");
  std::vector<nlohmann::json> events;
  for (std::string line; std::getline(log, line);) {
    events.push_back(nlohmann::json::parse(line));
    events.back().erase("time");
  }
  ASSERT_EQ(events.size(), 9u);
  for (int i = 1; i < 3; ++i) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(events[3 * i + k], events[k]) << i << " " << k;
  }
  EXPECT_EQ(events[0]["finding"], "none");
  EXPECT_EQ(events[1]["finding"], "listed");
  EXPECT_EQ(oracle_->Stats().refused_while_away, 3u);
}

TEST(CleanCommands, KeepsShortTextsWithinItsBudget) {
  CleanCommands clean;
  EXPECT_FALSE(clean.Contains("ls"));
  clean.Add("ls");
  EXPECT_TRUE(clean.Contains("ls"));
  EXPECT_FALSE(clean.Contains("ls "));
  std::string longest(CleanCommands::kLongest, 'x'), longer(CleanCommands::kLongest + 1, 'x');
  clean.Add(longer);
  EXPECT_FALSE(clean.Contains(longer));
  clean.Add(longest);
  EXPECT_TRUE(clean.Contains(longest));
  // Past the budget it starts afresh: what was kept is gone, the new text is kept.
  std::string last;  // short texts count the set's own memory too
  for (std::size_t i = 0; i * CleanCommands::kPerText <= CleanCommands::kBudget; ++i) {
    last = std::to_string(i);
    clean.Add(last);
  }
  EXPECT_TRUE(clean.Contains(last));
  EXPECT_FALSE(clean.Contains("ls"));
  EXPECT_FALSE(clean.Contains(longest));
}

TEST_F(OracleTest, TellsTheShimWhetherSomebodyIsWatching) {
  Start();
  EXPECT_EQ(Ask(Socket(), R"({"v":1,"ask":"watching"})"),
            (nlohmann::json{{"v", 1}, {"watching", false}}));
  watching_ = true;
  EXPECT_EQ(Ask(Socket(), R"({"v":1,"ask":"watching"})")["watching"], true);
  oracle_->Stop();
  EXPECT_FALSE(fs::exists(dir_ / "events.jsonl") && fs::file_size(dir_ / "events.jsonl") > 0)
      << "a presence question is not a decision";
}

TEST_F(OracleTest, AnExecRefusedByTheShimIsLoggedWithItsProgramAndKeptForTheInbox) {
  Start();
  auto reply = Ask(Socket(), nlohmann::json{{"v", 1},
                                            {"shell", "exec"},
                                            {"command", "aws s3 ls"},
                                            {"cwd", "/p"},
                                            {"program", "/tmp/x"}}
                                 .dump());
  EXPECT_EQ(reply["decision"], "deny");
  oracle_->Stop();
  std::ifstream log(dir_ / "events.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(log, line));
  auto event = nlohmann::json::parse(line);
  EXPECT_EQ(event["shell"], "exec");
  EXPECT_EQ(event["program"], "/tmp/x");
  auto inbox = InboxTake((dir_ / "state").string(), false);
  ASSERT_TRUE(inbox.ok());
  ASSERT_EQ(inbox->size(), 1u);
  EXPECT_EQ((*inbox)[0].command, "aws s3 ls");
}

TEST_F(OracleTest, SocketIsPrivateAndRemovedOnStop) {
  Start();
  struct stat st {};
  ASSERT_EQ(::stat(Socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  oracle_->Stop();
  EXPECT_FALSE(fs::exists(Socket()));
}

TEST_F(OracleTest, ConcurrentClientsAllGetAnswers) {
  Start();
  std::atomic<int> wrong{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < 100; ++i) {
        bool listed = (i + c) % 2 == 0;
        auto reply = AskCommand(Socket(), listed ? "aws s3 ls" : "npm test");
        if (reply.value("decision", "") != (listed ? "deny" : "allow")) ++wrong;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(wrong.load(), 0);
  auto stats = oracle_->Stats();
  EXPECT_EQ(stats.allowed + stats.refused, 800u);
}

// The worker that accepts answers quick questions itself; one that waits on
// a client must let the others answer meanwhile.
TEST_F(OracleTest, SilentClientsDoNotHoldUpTheOthers) {
  Start();
  std::vector<int> silent;
  for (int i = 0; i < 3; ++i) silent.push_back(Connect(Socket()));  // 3 of the 4 workers
  for (int i = 0; i < 20; ++i) {
    auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(AskCommand(Socket(), i % 2 ? "aws s3 ls" : "ls")["decision"], i % 2 ? "deny" : "allow");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  }
  for (int fd : silent) ::close(fd);
}

TEST_F(OracleTest, ARequestSentInPiecesIsReadWhole) {
  Start();
  int fd = Connect(Socket());
  ASSERT_GE(fd, 0);
  std::string line =
      nlohmann::json{{"v", 1}, {"shell", "bash"}, {"command", "aws s3 ls"}, {"cwd", "/p"}}.dump() +
      "\n";
  std::size_t half = line.size() / 2;
  ::send(fd, line.data(), half, MSG_NOSIGNAL);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // longer than a quick read waits
  ::send(fd, line.data() + half, line.size() - half, MSG_NOSIGNAL);
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) reply.append(buffer, n);
  ::close(fd);
  EXPECT_EQ(nlohmann::json::parse(reply)["decision"], "deny") << reply;
}

// A request whose fields have the wrong types is refused or read without
// them; it used to throw inside the worker, which ended the whole process.
TEST_F(OracleTest, RequestsWithFieldsOfTheWrongTypeDoNotStopIt) {
  Start();
  EXPECT_EQ(Ask(Socket(), R"({"v":"1","command":"ls"})")["decision"], "deny");
  EXPECT_EQ(Ask(Socket(), R"({"v":1,"shell":7,"cwd":[],"command":"ls"})")["decision"], "allow");
  EXPECT_EQ(AskCommand(Socket(), "aws s3 ls")["decision"], "deny");
  std::ifstream events(dir_ / "events.jsonl");
  std::string line, last;
  while (std::getline(events, line)) last = line;
  auto event = nlohmann::json::parse(last);
  EXPECT_EQ(event["command"], "aws s3 ls");
}

TEST_F(OracleTest, BadConfigStopsStart) {
  WriteConfig("level: sometimes\n");
  OracleOptions options;
  options.socket_path = Socket();
  options.policy_source.config_path = config_;
  EXPECT_FALSE(Oracle::Start(std::move(options)).ok());
}

}  // namespace
}  // namespace corral::policy
