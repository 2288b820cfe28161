#include "images/shim/door.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace corral::shim {
namespace {

// `enter` with `words`, its output in a pipe; its exit status and output.
std::pair<int, std::string> RunEnter(std::vector<std::string> words, int signal_after_ms = -1) {
  int out[2];
  if (::pipe(out) != 0) return {-1, ""};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    ::_exit(corral::shim::Enter(static_cast<int>(argv.size()), argv.data()));
  }
  ::close(out[1]);
  if (signal_after_ms >= 0) {
    ::usleep(static_cast<useconds_t>(signal_after_ms) * 1000);
    ::kill(pid, SIGTERM);
  }
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

// In a network namespace of its own (the door is an abstract socket) and a
// pid namespace whose end takes the keeper with it: as root only.
template <typename Body>
void InOwnNamespaces(Body body) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (network and pid namespaces)";
  pid_t outer = ::fork();
  if (outer == 0) {
    if (::unshare(CLONE_NEWNET | CLONE_NEWPID) != 0) ::_exit(77);
    pid_t init = ::fork();
    if (init == 0) ::_exit(body());
    int status = 0;
    ::waitpid(init, &status, 0);
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 99);
  }
  int status = 0;
  ::waitpid(outer, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no namespaces here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed step " << WEXITSTATUS(status);
}

TEST(Door, RunsACommandWithItsOutputStatusAndDirectory) {
  InOwnNamespaces([] {
    if (RunEnter({"--", "true"}).first != 125) return 1;  // no door yet
    UniqueFd door = OpenDoor();
    if (!door.valid()) return 2;
    StartDoorKeeper(door);
    door.Reset();
    if (::chdir("/tmp") != 0) return 3;
    auto [code, out] = RunEnter({"--", "echo", "in", "$(pwd);", "exit", "3"});
    if (code != 3 || out != "in /tmp\n") return 4;
    // Words are joined as ssh does: one word may be a whole command line.
    auto [code2, out2] = RunEnter({"echo a && echo b"});
    if (code2 != 0 || out2 != "a\nb\n") return 5;
    return 0;
  });
}

TEST(Door, ASignalToEnterReachesTheCommand) {
  InOwnNamespaces([] {
    UniqueFd door = OpenDoor();
    if (!door.valid()) return 1;
    StartDoorKeeper(door);
    door.Reset();
    auto [code, out] = RunEnter({"--", "trap 'echo got TERM; exit 7' TERM; echo ready; "
                                    "sleep 5 & wait"}, 500);
    if (code != 7 || out != "ready\ngot TERM\n") return 2;
    return 0;
  });
}

}  // namespace
}  // namespace corral::shim
