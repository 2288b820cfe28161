#include <poll.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <thread>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

// A connection to the socket at `path`, or -1.
int ConnectOnce(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
  ::close(fd);
  return -1;
}

// The same, waiting up to 2 s for the socket.
int Connect(const std::string& path) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (int fd = ConnectOnce(path); fd >= 0) return fd;
    ::usleep(10000);
  }
  return -1;
}

// A fresh folder for one test's relay sockets.
struct RelayFolder {
  explicit RelayFolder(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))),
        oracle(dir + "/oracle.sock"),
        watchdog(dir + "/watchdog.sock") {
    std::filesystem::create_directories(dir);
  }
  ~RelayFolder() { std::filesystem::remove_all(dir); }
  std::string dir, oracle, watchdog;
};

std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

void Write(int fd, const std::string& text) {
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

TEST(Relay, CarriesEachQuestionOutAndItsAnswerBackThenGoesWithTheStream) {
  RelayFolder folder("relay");
  const std::string &path = folder.oracle, &watchdog = folder.watchdog;
  int to_relay[2], from_relay[2];
  ASSERT_EQ(::pipe(to_relay), 0);
  ASSERT_EQ(::pipe(from_relay), 0);
  Result<void> ended = Ok();
  std::thread relay([&] { ended = RunRelay({path, watchdog}, to_relay[0], from_relay[1]); });
  ::usleep(50000);
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing listens before corral says so";
  EXPECT_FALSE(std::filesystem::exists(watchdog));
  Write(to_relay[1], std::string(kRelayListen) + "\n");
  EXPECT_EQ(ReadLine(from_relay[0]), kRelayReady) << "said once both sockets listen";
  int held = Connect(watchdog);
  ASSERT_GE(held, 0);

  int first = Connect(path), second = Connect(path);
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  Write(first, R"({"v":1,"shell":"bash","command":"aws s3 ls","cwd":"/p"})"
               "\n");
  auto one = nlohmann::json::parse(ReadLine(from_relay[0]));
  EXPECT_EQ(one["request"]["command"], "aws s3 ls");
  Write(second, R"({"v":1,"shell":"bash","command":"ls","cwd":"/p"})"
                "\n");
  auto two = nlohmann::json::parse(ReadLine(from_relay[0]));
  EXPECT_EQ(two["request"]["command"], "ls");
  EXPECT_NE(one["id"], two["id"]);
  // Answered out of order, each to its own connection.
  Write(to_relay[1],
        nlohmann::json{{"id", two["id"]}, {"answer", {{"v", 1}, {"decision", "allow"}}}}.dump() +
            "\n");
  Write(to_relay[1], R"({"id":999,"answer":{}})"
                     "\n");  // nobody asked: dropped
  Write(to_relay[1], nlohmann::json{{"id", one["id"]},
                                    {"answer", {{"v", 1}, {"decision", "deny"}, {"message", "no"}}}}
                             .dump() +
                         "\n");
  EXPECT_EQ(nlohmann::json::parse(ReadLine(second))["decision"], "allow");
  EXPECT_EQ(nlohmann::json::parse(ReadLine(first))["decision"], "deny");
  // Not JSON: the connection is closed unanswered, nothing goes out.
  int bad = Connect(path);
  Write(bad, "not json\n");
  EXPECT_EQ(ReadLine(bad), "");
  // corral could not ask its oracle: no answer, the connection closed, so
  // the shim's fallback decides instead of waiting.
  int unanswered = Connect(path);
  Write(unanswered, R"({"v":1,"shell":"bash","command":"kubectl get pods","cwd":"/p"})"
                    "\n");
  auto three = nlohmann::json::parse(ReadLine(from_relay[0]));
  Write(to_relay[1], nlohmann::json{{"id", three["id"]}, {"answer", nullptr}}.dump() + "\n");
  EXPECT_EQ(ReadLine(unanswered), "");

  ::close(to_relay[1]);  // corral's stream is gone
  relay.join();
  EXPECT_TRUE(ended) << ended.error().message;
  EXPECT_FALSE(std::filesystem::exists(path)) << "the shim finds no oracle and falls back";
  EXPECT_FALSE(std::filesystem::exists(watchdog));
  char byte;
  EXPECT_EQ(::read(held, &byte, 1), 0) << "the watchdog closes: the shim ends the box";
  for (int fd : {first, second, bad, unanswered, held, to_relay[0], from_relay[0], from_relay[1]}) {
    ::close(fd);
  }
}

// corral gone before it said the copy landed (the read-back failed): the
// relay ends and never listens, so the shim never runs the agent.
TEST(Relay, NeverListensUnlessTold) {
  RelayFolder folder("relay-untold");
  const std::string &path = folder.oracle, &watchdog = folder.watchdog;
  for (const std::string& first : {std::string(), std::string("{\"id\":1,\"answer\":{}}\n")}) {
    int to_relay[2], from_relay[2];
    ASSERT_EQ(::pipe(to_relay), 0);
    ASSERT_EQ(::pipe(from_relay), 0);
    if (!first.empty()) Write(to_relay[1], first);
    ::close(to_relay[1]);
    Result<void> ended = RunRelay({path, watchdog}, to_relay[0], from_relay[1]);
    EXPECT_EQ(static_cast<bool>(ended), first.empty()) << "an unexpected first line is an error";
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(watchdog));
    for (int fd : {to_relay[0], from_relay[0], from_relay[1]}) ::close(fd);
  }
}

// The box's shim waits for the relay's sockets to appear and takes any
// other answer than "not there" as final: a path must appear open to the
// agent's uid (0666) and listening. A watcher spins on both paths while the
// relay starts, many times.
TEST(Relay, ItsSocketsAppearOnlyWhenReady) {
  RelayFolder folder("relay-ready");
  const std::string &path = folder.oracle, &watchdog = folder.watchdog;
  int early = 0, refused = 0;
  for (int round = 0; round < 60; ++round) {
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      for (const std::string& p : {watchdog, path}) {
        struct stat st {};
        while (!stop && ::stat(p.c_str(), &st) != 0) {
        }
        if (stop) return;
        if ((st.st_mode & 0777) != 0666) ++early;
        int fd = ConnectOnce(p);
        if (fd < 0) ++refused;
        ::close(fd);
      }
    });
    int to_relay[2], from_relay[2];
    ASSERT_EQ(::pipe(to_relay), 0);
    ASSERT_EQ(::pipe(from_relay), 0);
    std::thread relay([&] { (void)RunRelay({path, watchdog}, to_relay[0], from_relay[1]); });
    Write(to_relay[1], std::string(kRelayListen) + "\n");
    EXPECT_EQ(ReadLine(from_relay[0]), kRelayReady);
    stop = true;
    watcher.join();
    ::close(to_relay[1]);
    relay.join();
    for (int fd : {to_relay[0], from_relay[0], from_relay[1]}) ::close(fd);
  }
  EXPECT_EQ(early, 0) << "a socket's path was there before its mode was set";
  EXPECT_EQ(refused, 0) << "a socket's path was there before it listened";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder.dir), {}), 0)
      << "no temporary name is left";
}

// Docker's multiplexed stream: stdout (1), the length, the bytes.
std::string StdoutFrame(const std::string& data) {
  std::string frame = {1, 0, 0, 0};
  for (int shift : {24, 16, 8, 0}) frame += static_cast<char>((data.size() >> shift) & 0xff);
  return frame + data;
}

// The box may ask before corral has read past the relay's ready line (the
// box starts while the sidecar does): a question in the same read as that
// line is answered, not dropped with it.
TEST(OracleChannel, AnswersAQuestionThatCameInTheSameReadAsTheReadyLine) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("channel-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string oracle_path = dir + "/oracle.sock";
  // This machine's oracle: answers one question.
  int oracle = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, oracle_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(oracle, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(oracle, 4), 0);
  std::string asked;
  std::thread answering([&] {
    pollfd waiting{oracle, POLLIN, 0};
    if (::poll(&waiting, 1, 10000) != 1) return;  // never asked
    int client = ::accept(oracle, nullptr, nullptr);
    if (client < 0) return;
    asked = ReadLine(client);
    Write(client, R"({"v":1,"decision":"deny","message":"no"})"
                  "\n");
    ::close(client);
  });
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  Write(pair[1], StdoutFrame(std::string(kRelayReady) + "\n" +
                             R"({"id":7,"request":{"v":1,"command":"aws s3 ls"}})" + "\n"));
  auto channel = OracleChannel::Start(
      std::make_unique<RawConnection>(RawConnection::Adopt(pair[0])), oracle_path);
  ASSERT_TRUE(channel) << channel.error().message;
  timeval timeout{10, 0};
  ::setsockopt(pair[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  EXPECT_EQ(ReadLine(pair[1]), kRelayListen) << "the relay is told to listen first";
  std::string line = ReadLine(pair[1]);
  answering.join();
  EXPECT_NE(asked.find(R"("command":"aws s3 ls")"), std::string::npos)
      << "this machine's oracle was not asked: '" << asked << "'";
  auto answer = nlohmann::json::parse(line, nullptr, false);
  ASSERT_TRUE(answer.is_object()) << "no answer came back: '" << line << "'";
  EXPECT_EQ(answer["id"], 7);
  EXPECT_EQ(answer["answer"]["decision"], "deny");
  EXPECT_EQ((*channel)->questions(), 1u);
  channel->reset();
  ::close(pair[1]);
  ::close(oracle);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace corral::launcher::network_mode
