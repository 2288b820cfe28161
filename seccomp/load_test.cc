// The compiled filter, installed in a forked child: each refused system call
// answers EPERM (ENOSYS for clone3 and io_uring_*), and ordinary work still
// runs in the same child. Every probe passes arguments the kernel itself
// would reject (a bad pointer, fd or flag mix), so a filter that failed to
// refuse shows up as a different errno and never changes the machine, even
// as root.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "seccomp/child_test_util.h"

extern char** environ;

namespace corral::seccomp {
namespace {

using testing::Reporter;
using testing::RunUnderFilter;

struct Probe {
  const char* name;
  long nr;
  long args[6];
  int expected;  // errno under the box's filter
};

constexpr long kBadPointer = 1;
// CLONE_SIGHAND without CLONE_VM: the kernel's own EINVAL, never a new process.
constexpr long kInvalidClone = CLONE_SIGHAND | SIGCHLD;
// CLONE_VFORK is no flag of unshare's: EINVAL.
constexpr long kInvalidUnshare = CLONE_VFORK;

std::vector<Probe> RefusedProbes() {
  return {
      {"io_uring_setup", SYS_io_uring_setup, {0, 0}, ENOSYS},
      {"io_uring_enter", SYS_io_uring_enter, {-1}, ENOSYS},
      {"io_uring_register", SYS_io_uring_register, {-1}, ENOSYS},
      {"clone3", SYS_clone3, {0, 0}, ENOSYS},
      {"clone NEWUSER", SYS_clone, {kInvalidClone | CLONE_NEWUSER}, EPERM},
      {"clone NEWNS", SYS_clone, {kInvalidClone | CLONE_NEWNS}, EPERM},
      {"clone NEWNET", SYS_clone, {kInvalidClone | CLONE_NEWNET}, EPERM},
      {"clone NEWPID", SYS_clone, {kInvalidClone | CLONE_NEWPID}, EPERM},
      {"clone NEWCGROUP", SYS_clone, {kInvalidClone | CLONE_NEWCGROUP}, EPERM},
      {"unshare NEWUSER", SYS_unshare, {kInvalidUnshare | CLONE_NEWUSER}, EPERM},
      {"unshare NEWNS", SYS_unshare, {kInvalidUnshare | CLONE_NEWNS}, EPERM},
      {"unshare NEWUTS", SYS_unshare, {kInvalidUnshare | CLONE_NEWUTS}, EPERM},
      {"unshare NEWIPC", SYS_unshare, {kInvalidUnshare | CLONE_NEWIPC}, EPERM},
      {"unshare NEWTIME", SYS_unshare, {kInvalidUnshare | CLONE_NEWTIME}, EPERM},
      {"setns", SYS_setns, {-1, 0}, EPERM},
      {"userfaultfd", SYS_userfaultfd, {-1}, EPERM},
      {"keyctl", SYS_keyctl, {-1}, EPERM},
      {"add_key", SYS_add_key, {0, 0, 0, 0, 0}, EPERM},
      {"request_key", SYS_request_key, {0, 0, 0, 0}, EPERM},
      {"bpf", SYS_bpf, {-1, 0, 0}, EPERM},
      {"perf_event_open", SYS_perf_event_open, {0, 0, -1, -1, 0}, EPERM},
      {"ptrace", SYS_ptrace, {-1, 0, 0, 0}, EPERM},
      {"process_vm_readv", SYS_process_vm_readv, {0, 0, 0, 0, 0, 1}, EPERM},
      {"mount", SYS_mount, {0, 0, 0, 0, 0}, EPERM},
      {"umount2", SYS_umount2, {0, 0}, EPERM},
      {"pivot_root", SYS_pivot_root, {0, 0}, EPERM},
      {"move_mount", SYS_move_mount, {-1, 0, -1, 0, 0}, EPERM},
      {"open_tree", SYS_open_tree, {-1, 0, 0}, EPERM},
      {"fsopen", SYS_fsopen, {0, 0}, EPERM},
      {"fsconfig", SYS_fsconfig, {-1, 0, 0, 0, 0}, EPERM},
      {"fsmount", SYS_fsmount, {-1, 0, 0}, EPERM},
      {"fspick", SYS_fspick, {-1, 0, 0}, EPERM},
      {"mount_setattr", SYS_mount_setattr, {-1, 0, 0, 0, 0}, EPERM},
      {"kexec_load", SYS_kexec_load, {0, 0, 0, -1}, EPERM},
      {"kexec_file_load", SYS_kexec_file_load, {-1, -1, 0, 0, 0}, EPERM},
      {"init_module", SYS_init_module, {0, 0, 0}, EPERM},
      {"finit_module", SYS_finit_module, {-1, 0, 0}, EPERM},
      {"delete_module", SYS_delete_module, {0, 0}, EPERM},
      {"open_by_handle_at", SYS_open_by_handle_at, {-1, 0, 0}, EPERM},
      {"name_to_handle_at", SYS_name_to_handle_at, {-1, 0, 0, 0, 0}, EPERM},
      {"reboot", SYS_reboot, {0, 0, 0, 0}, EPERM},
      {"swapon", SYS_swapon, {0, 0}, EPERM},
      {"swapoff", SYS_swapoff, {0}, EPERM},
      {"acct", SYS_acct, {kBadPointer}, EPERM},
      {"quotactl", SYS_quotactl, {-1, 0, 0, 0}, EPERM},
      {"syslog", SYS_syslog, {-1, 0, 0}, EPERM},
      {"settimeofday", SYS_settimeofday, {kBadPointer, 0}, EPERM},
      {"clock_settime", SYS_clock_settime, {CLOCK_REALTIME, 0}, EPERM},
      {"adjtimex", SYS_adjtimex, {0}, EPERM},
#ifdef SYS_iopl
      {"iopl", SYS_iopl, {-1}, EPERM},
      {"ioperm", SYS_ioperm, {0, 0, 0}, EPERM},
#endif
      // Unusual personalities fall through to the default action.
      {"personality ADDR_NO_RANDOMIZE", SYS_personality, {0x0040000}, ENOSYS},
  };
}

void RunProbes(const std::vector<Probe>& probes, Reporter& reporter) {
  for (const auto& p : probes) {
    errno = 0;
    long rc = ::syscall(p.nr, p.args[0], p.args[1], p.args[2], p.args[3], p.args[4], p.args[5]);
    reporter.Report(p.name, rc == -1 ? std::strerror(errno) : "succeeded");
  }
}

// /bin/sh -c with a pipeline; posix_spawn tries clone3 first, so this also
// shows libc falling back to clone.
std::string RunShell() {
  int out[2];
  if (::pipe(out) != 0) return "pipe failed";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  const char* argv[] = {"/bin/sh", "-c", "echo hello from sh | tr a-z A-Z", nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, "/bin/sh", &actions, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (rc != 0) return std::string("posix_spawn: ") + std::strerror(rc);
  std::string text;
  char buffer[256];
  ssize_t n;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0) text.append(buffer, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "sh status " + std::to_string(status);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string FileIo() {
  char path[] = "/tmp/corral-seccomp-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0) return std::string("mkstemp: ") + std::strerror(errno);
  std::string renamed = std::string(path) + ".moved";
  bool ok = ::write(fd, "data", 4) == 4 && ::fsync(fd) == 0 && ::lseek(fd, 0, SEEK_SET) == 0;
  char back[4] = {};
  ok = ok && ::read(fd, back, 4) == 4 && std::memcmp(back, "data", 4) == 0;
  ::close(fd);
  struct stat st;
  ok = ok && ::rename(path, renamed.c_str()) == 0 && ::stat(renamed.c_str(), &st) == 0 &&
       st.st_size == 4 && ::unlink(renamed.c_str()) == 0;
  return ok ? "ok" : std::string("failed: ") + std::strerror(errno);
}

std::string Threads() {
  std::atomic<int> sum{0};
  std::vector<std::thread> threads;
  for (int i = 1; i <= 4; ++i) threads.emplace_back([&sum, i] { sum += i; });
  for (auto& t : threads) t.join();
  return sum == 10 ? "ok" : "sum " + std::to_string(sum);
}

std::string LoopbackTcp() {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return std::string("listen: ") + std::strerror(errno);
  }
  int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::connect(client, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
    return std::string("connect: ") + std::strerror(errno);
  }
  int server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  char back[4] = {};
  bool ok = server >= 0 && ::send(client, "ping", 4, 0) == 4 && ::recv(server, back, 4, 0) == 4 &&
            std::memcmp(back, "ping", 4) == 0;
  int pair[2];
  ok = ok && ::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0;
  for (int fd : {listener, client, server, pair[0], pair[1]}) ::close(fd);
  return ok ? "ok" : std::string("failed: ") + std::strerror(errno);
}

void Workload(Reporter& reporter) {
  reporter.Report("sh", RunShell());
  reporter.Report("file", FileIo());
  reporter.Report("threads", Threads());
  reporter.Report("tcp", LoopbackTcp());
  reporter.Report("getpid", ::syscall(SYS_getpid) > 0 ? "ok" : std::strerror(errno));
  reporter.Report("personality query",
                  ::syscall(SYS_personality, 0xffffffffL) != -1 ? "ok" : std::strerror(errno));
  reporter.Report("unshare FILES", ::unshare(CLONE_FILES) == 0 ? "ok" : std::strerror(errno));
}

Profile Box(policy::SeccompPolicy user = {}) {
  auto profile = BuildProfile(user);
  EXPECT_TRUE(profile.ok()) << profile.error().message;
  return profile.ok() ? *profile : Profile{};
}

TEST(LoadedFilter, RefusesEachListedCallAndOrdinaryWorkStillRuns) {
  auto probes = RefusedProbes();
  auto result = RunUnderFilter(Box(), [&](Reporter& reporter) {
    RunProbes(probes, reporter);
    Workload(reporter);
  });
  ASSERT_TRUE(WIFEXITED(result.wait_status)) << "child status " << result.wait_status;
  ASSERT_EQ(result.reports["loaded"], "yes");
  for (const auto& p : probes) {
    EXPECT_EQ(result.reports[p.name], std::strerror(p.expected)) << p.name;
  }
  EXPECT_EQ(result.reports["sh"], "HELLO FROM SH");
  EXPECT_EQ(result.reports["file"], "ok");
  EXPECT_EQ(result.reports["threads"], "ok");
  EXPECT_EQ(result.reports["tcp"], "ok");
  EXPECT_EQ(result.reports["getpid"], "ok");
  EXPECT_EQ(result.reports["personality query"], "ok");
  EXPECT_EQ(result.reports["unshare FILES"], "ok");
}

// The control: without the filter the same probes fail otherwise (as root,
// where the kernel's permission checks pass), so the errnos above are the
// filter's doing.
TEST(LoadedFilter, WithoutTheFilterTheProbesFailDifferently) {
  if (::geteuid() != 0) GTEST_SKIP() << "as non-root the kernel itself answers EPERM";
  Profile allow_all;
  allow_all.default_action = Action::kAllow;
  auto probes = RefusedProbes();
  auto result = RunUnderFilter(allow_all, [&](Reporter& reporter) { RunProbes(probes, reporter); });
  ASSERT_EQ(result.reports["loaded"], "yes");
  ASSERT_TRUE(WIFEXITED(result.wait_status)) << "child status " << result.wait_status;
  for (const auto& p : probes) {
    EXPECT_FALSE(result.reports[p.name].empty()) << p.name;
    EXPECT_NE(result.reports[p.name], std::strerror(p.expected)) << p.name;
  }
}

// vsock reaches the VM host past the network namespace: refused, also with
// junk in the upper half of the family (the kernel reads an int). Other
// families, netlink but audit among them, are the kernel's to answer.
TEST(LoadedFilter, SocketRefusesVsockAndAuditOnly) {
  auto result = RunUnderFilter(Box(), [](Reporter& reporter) {
    auto try_socket = [&](const char* name, long family, long type, long protocol) {
      errno = 0;
      long fd = ::syscall(SYS_socket, family, type | SOCK_CLOEXEC, protocol);
      reporter.Report(name, fd >= 0 ? "ok" : std::strerror(errno));
      if (fd >= 0) ::close(static_cast<int>(fd));
    };
    try_socket("vsock", 40, SOCK_STREAM, 0);
    try_socket("vsock, upper bits set", 40 | (1L << 32), SOCK_STREAM, 0);
    try_socket("audit", AF_NETLINK, SOCK_RAW, 9);
    try_socket("unix", AF_UNIX, SOCK_STREAM, 0);
    try_socket("inet", AF_INET, SOCK_STREAM, 0);
    try_socket("inet6 udp", AF_INET6, SOCK_DGRAM, 0);
    try_socket("netlink route", AF_NETLINK, SOCK_RAW, 0);
  });
  ASSERT_EQ(result.reports["loaded"], "yes");
  ASSERT_TRUE(WIFEXITED(result.wait_status)) << "child status " << result.wait_status;
  EXPECT_EQ(result.reports["vsock"], std::strerror(EAFNOSUPPORT));
  EXPECT_EQ(result.reports["vsock, upper bits set"], std::strerror(EAFNOSUPPORT));
  EXPECT_EQ(result.reports["audit"], std::strerror(EINVAL));
  EXPECT_EQ(result.reports["unix"], "ok");
  EXPECT_EQ(result.reports["inet"], "ok");
  EXPECT_EQ(result.reports["netlink route"], "ok");
  // IPv6 may be off on the host; the filter must not be the one refusing.
  EXPECT_NE(result.reports["inet6 udp"], std::strerror(ENOSYS));
}

TEST(LoadedFilter, AllowPtraceAndUserDeny) {
  policy::SeccompPolicy user;
  user.allow_ptrace = true;
  user.deny = {"getcwd"};
  auto result = RunUnderFilter(Box(user), [](Reporter& reporter) {
    errno = 0;
    ::syscall(SYS_ptrace, -1L, 0L, 0L, 0L);  // invalid request: the kernel's own error
    reporter.Report("ptrace", std::strerror(errno));
    char buffer[256];
    reporter.Report("getcwd", ::getcwd(buffer, sizeof buffer) ? "ok" : std::strerror(errno));
  });
  ASSERT_EQ(result.reports["loaded"], "yes");
  EXPECT_NE(result.reports["ptrace"], std::strerror(EPERM));
  EXPECT_EQ(result.reports["getcwd"], std::strerror(EPERM));
}

}  // namespace
}  // namespace corral::seccomp
