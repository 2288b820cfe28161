#include "base/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "base/unique_fd.h"

extern char** environ;

namespace corral {
namespace {

constexpr std::size_t kMaxOutput = 1 << 20;

}  // namespace

int WaitStatusCode(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

std::string FindInPath(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return name;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = end > start ? path.substr(start, end - start) : ".";
    std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return "";
}

std::string FindInPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  return FindInPath(name, path ? path : "/usr/local/bin:/usr/bin:/bin");
}

Result<pid_t> Spawn(const std::vector<std::string>& argv, ChildStdio stdio,
                    const std::vector<std::string>& env) {
  if (argv.empty()) return Error("Spawn: empty command");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int target = 0;
  for (int fd : {stdio.in, stdio.out, stdio.err}) {
    if (fd < 0) {
      posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0);
    } else {
      posix_spawn_file_actions_adddup2(&actions, fd, target);
    }
    ++target;
  }
  // The engine connections libcurl keeps, the pipes of other children: none
  // of them is this program's, close-on-exec or not.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // This process's variables, but those `env` sets, then `env`'s.
  std::vector<char*> variables;
  for (char** v = environ; !env.empty() && *v != nullptr; ++v) {
    std::string_view name(*v, std::string_view(*v).find('='));
    bool replaced = false;
    for (const auto& e : env) replaced = replaced || e.compare(0, e.find('='), name) == 0;
    if (!replaced) variables.push_back(*v);
  }
  for (const auto& e : env) variables.push_back(const_cast<char*>(e.c_str()));
  variables.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(),
                          env.empty() ? environ : variables.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Error::FromErrno("cannot run " + argv[0], rc);
  return pid;
}

Result<ProcessOutput> RunCapture(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout) {
  if (argv.empty()) return Error("RunCapture: empty command");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error::FromErrno("pipe");
  UniqueFd read_end(fds[0]), write_end(fds[1]);
  auto spawned = Spawn(argv, {.out = write_end.get()});
  if (!spawned) return spawned.error();
  pid_t pid = *spawned;
  write_end.Reset();

  ProcessOutput output;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  char buffer[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{read_end.get(), POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (output.out.size() < kMaxOutput) output.out.append(buffer, static_cast<std::size_t>(n));
  }
  // stdout may close before the child exits: keep to the deadline anyway.
  int status = 0;
  while (!timed_out && ::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      timed_out = true;
      break;
    }
    ::usleep(1000);
  }
  if (timed_out) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timed_out) {
    return Error(argv[0] + " did not finish within " + std::to_string(timeout.count()) + " ms");
  }
  output.exit_status = WaitStatusCode(status);
  return output;
}

}  // namespace corral
