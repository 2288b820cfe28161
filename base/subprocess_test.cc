#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>

#include "base/base.h"

namespace corral {
namespace {

using std::chrono::milliseconds;

TEST(RunCaptureTest, CollectsStdoutAndStatus) {
  auto out = RunCapture({"sh", "-c", "echo hello; echo err >&2; exit 3"}, milliseconds(5000));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->out, "hello\n");
  EXPECT_EQ(out->exit_status, 3);
}

TEST(RunCaptureTest, KillsAfterTimeout) {
  auto start = std::chrono::steady_clock::now();
  auto out = RunCapture({"sleep", "10"}, milliseconds(200));
  EXPECT_FALSE(out.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunCaptureTest, MissingProgramIsAnError) {
  auto out = RunCapture({"corral-no-such-program"}, milliseconds(1000));
  EXPECT_FALSE(out.ok());
}

// An inheritable descriptor of this process, as libcurl's sockets were:
// one at a low number and one at a high one.
struct Inheritable {
  Inheritable() : low(::open("/dev/null", O_RDONLY)), high(::fcntl(low.get(), F_DUPFD, 200)) {}
  UniqueFd low, high;
};

// The shell's own open descriptors, as `ls` sees them: one a line.
constexpr const char* kListShellsFds = "ls /proc/$$/fd";

TEST(RunCaptureTest, TheProgramGetsOnlyZeroOneAndTwo) {
  Inheritable open;
  ASSERT_TRUE(open.low.valid() && open.high.valid());
  auto out = RunCapture({"sh", "-c", kListShellsFds}, milliseconds(5000));
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->out, "0\n1\n2\n");
}

TEST(SpawnTest, HandsOnItsStdioAndNothingElse) {
  Inheritable open;
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  auto pid = Spawn({"sh", "-c", std::string(kListShellsFds) + "; echo in=$(cat)"},
                   {.in = open.low.get(), .out = write_end.get()});
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  write_end.Reset();
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(read_end.get(), buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  int status = 0;
  ::waitpid(*pid, &status, 0);
  EXPECT_EQ(text, "0\n1\n2\nin=\n");  // stdin is the /dev/null it was handed
  EXPECT_EQ(WaitStatusCode(status), 0);
}

TEST(SpawnTest, SetsTheGivenVariablesOverItsOwn) {
  ::setenv("CORRAL_SPAWN_KEPT", "kept", 1);
  ::setenv("CORRAL_SPAWN_SET", "old", 1);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  auto pid = Spawn({"sh", "-c", "env | grep ^CORRAL_SPAWN_ | sort"}, {.out = write_end.get()},
                   {"CORRAL_SPAWN_SET=new", "CORRAL_SPAWN_ADDED=a=b"});
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  write_end.Reset();
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(read_end.get(), buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::waitpid(*pid, nullptr, 0);
  ::unsetenv("CORRAL_SPAWN_KEPT");
  ::unsetenv("CORRAL_SPAWN_SET");
  EXPECT_EQ(text, "CORRAL_SPAWN_ADDED=a=b\nCORRAL_SPAWN_KEPT=kept\nCORRAL_SPAWN_SET=new\n");
}

// After fork, as the keepers and the reaper use it: what is kept stays open.
TEST(CloseInheritedDescriptorsTest, ClosesAllButTheKeptOnes) {
  Inheritable open;
  UniqueFd kept(::open("/dev/null", O_RDONLY));
  pid_t pid = ::fork();
  if (pid == 0) {
    CloseInheritedDescriptors({kept.get()});
    bool kept_open = ::fcntl(kept.get(), F_GETFD) >= 0;
    bool low_closed = ::fcntl(open.low.get(), F_GETFD) < 0;
    bool high_closed = ::fcntl(open.high.get(), F_GETFD) < 0;
    int highest = 2;
    for (int fd = 3; fd < 1024; ++fd) {
      if (::fcntl(fd, F_GETFD) >= 0) highest = fd;
    }
    ::_exit(kept_open && low_closed && high_closed && highest == kept.get() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(WaitStatusCode(status), 0);
}

}  // namespace
}  // namespace corral
