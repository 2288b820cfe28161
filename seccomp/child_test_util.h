// Runs code under a seccomp filter in a forked child, so the test process
// itself never installs one. The child reports "key=value" lines through a
// pipe and leaves with _exit (no atexit handlers, no leak check, which would
// need ptrace).
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <string>

#include "seccomp/seccomp.h"

namespace corral::seccomp::testing {

class Reporter {
 public:
  explicit Reporter(int fd) : fd_(fd) {}
  void Report(const std::string& key, const std::string& value) {
    std::string line = key + "=" + value + "\n";
    ssize_t ignored = ::write(fd_, line.data(), line.size());
    (void)ignored;
  }

 private:
  int fd_;
};

struct ChildResult {
  std::map<std::string, std::string> reports;
  int wait_status = 0;
};

inline ChildResult RunUnderFilter(const Profile& profile,
                                  const std::function<void(Reporter&)>& body) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Reporter reporter(fds[1]);
    auto loaded = LoadIntoCurrentThread(profile);
    reporter.Report("loaded", loaded ? "yes" : loaded.error().message);
    if (loaded) body(reporter);
    ::_exit(0);
  }
  ::close(fds[1]);
  ChildResult result;
  std::string text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, n);
  ::close(fds[0]);
  ::waitpid(pid, &result.wait_status, 0);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end - start);
    auto eq = line.find('=');
    if (eq != std::string::npos) result.reports[line.substr(0, eq)] = line.substr(eq + 1);
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return result;
}

}  // namespace corral::seccomp::testing
