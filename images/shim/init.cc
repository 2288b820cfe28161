// PID 1 of the box: run the agent in its own process group (the terminal's
// foreground group), reap every child, forward signals, bridge 127.0.0.1:3128
// to the proxy's socket, and end the box when the watchdog socket in the
// session folder closes, i.e. when corral is gone.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "base/base.h"
#include "images/shim/exec_check.h"
#include "images/shim/exec_supervisor.h"
#include "images/shim/relay.h"
#include "images/shim/watchdog.h"
#include "images/shim/shim.h"

namespace corral::shim {
namespace {

constexpr int kGraceMs = 2000;  // SIGTERM, then SIGKILL this much later
constexpr int kBridgePort = 3128;

long NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

[[noreturn]] void ExecChild(char** argv, const sigset_t& original, ExecCheckStart& exec_check) {
  sigprocmask(SIG_SETMASK, &original, nullptr);
  setpgid(0, 0);
  if (isatty(STDIN_FILENO)) {
    signal(SIGTTOU, SIG_IGN);
    tcsetpgrp(STDIN_FILENO, getpid());
    signal(SIGTTOU, SIG_DFL);
  }
  if (!exec_check.InChild()) _exit(125);
  // The watchdog, the bridge's listener, the signal descriptor: PID 1's alone.
  CloseInheritedDescriptors();
  execvp(argv[0], argv);
  std::fprintf(stderr, "corral-shim: cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(errno == ENOENT ? 127 : 126);
}

int StatusCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// The engine sizes the terminal just after start; an agent that reads the
// size first would see 0x0. Wait for that SIGWINCH, briefly.
void AwaitTerminalSize(int signals) {
  winsize size{};
  if (!isatty(STDIN_FILENO) || ioctl(STDIN_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_row != 0) {
    return;
  }
  long until = NowMs() + 1000;
  for (long left; (left = until - NowMs()) > 0;) {
    pollfd fd{signals, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(left)) <= 0) return;
    signalfd_siginfo info{};
    if (read(signals, &info, sizeof info) == sizeof info && info.ssi_signo == SIGWINCH) return;
  }
}

void Forward(pid_t child, int sig) {
  if (kill(-child, sig) != 0) kill(child, sig);
}

// `--exec-check MODE` (or `--exec-check=MODE`) before `--`: corral passes
// the session's exec_check setting; on, its default, without it.
std::optional<ExecCheckMode> ReadOptions(int& argc, char**& argv) {
  ExecCheckMode mode = ExecCheckMode::kOn;
  while (argc > 0 && std::strncmp(argv[0], "--exec-check", 12) == 0 &&
         (argv[0][12] == '\0' || argv[0][12] == '=')) {
    const char* value = argv[0][12] == '=' ? argv[0] + 13 : argc > 1 ? argv[1] : "";
    auto parsed = ParseExecCheckMode(value);
    if (!parsed) {
      std::fprintf(stderr, "corral-shim init: --exec-check takes on, require or off, not '%s'\n",
                   value);
      return std::nullopt;
    }
    mode = *parsed;
    int used = argv[0][12] == '=' ? 1 : 2;
    argc -= used;
    argv += used;
  }
  if (argc > 0 && std::strcmp(argv[0], "--") == 0) {
    --argc;
    ++argv;
  }
  if (argc == 0) {
    std::fprintf(stderr, "corral-shim init: give the command to run: init -- COMMAND [ARGS...]\n");
    return std::nullopt;
  }
  return mode;
}

}  // namespace

int Init(int argc, char** argv) {
  auto mode = ReadOptions(argc, argv);
  if (!mode) return 2;
  sigset_t all, original;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &original);

  // The proxy bridge: bound before the agent starts, so its first request
  // finds it; served once the agent runs (no threads exist at fork).
  int bridge = -1;
  std::string proxy_socket = ProxySocketPath();
  const char* wait = std::getenv("CORRAL_WATCHDOG_WAIT_MS");
  long wait_ms = wait != nullptr ? std::strtol(wait, nullptr, 10) : 0;
  int watchdog = AwaitWatchdog(std::getenv("CORRAL_WATCHDOG"), wait_ms,
                               std::getenv("CORRAL_PROXY_SOCKET") != nullptr ? proxy_socket : "");
  if (watchdog < 0 && (errno != ENOENT || wait_ms > 0)) {
    std::fprintf(stderr, "corral-shim: the session's corral is not there (%s%s); not starting\n",
                 std::strerror(errno), wait_ms > 0 ? ", waited for the relay" : "");
    return 125;
  }
  if (std::getenv("CORRAL_PROXY_SOCKET") != nullptr && access(proxy_socket.c_str(), F_OK) == 0) {
    bridge = ListenLoopback(kBridgePort);
    if (bridge < 0) {
      std::fprintf(stderr, "corral-shim: cannot listen on 127.0.0.1:%d for the proxy (%s); "
                   "not starting\n", kBridgePort, std::strerror(errno));
      return 125;
    }
  }
  auto exec_check = ExecCheckStart::Prepare(*mode);
  if (!exec_check) return 125;
  int signals = signalfd(-1, &all, SFD_CLOEXEC);
  AwaitTerminalSize(signals);
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "corral-shim: cannot start %s: %s\n", argv[0], std::strerror(errno));
    return 125;
  }
  if (child == 0) ExecChild(argv, original, *exec_check);
  UniqueFd listener;
  if (int refused = exec_check->InParent(child, listener); refused != 0) {
    waitpid(child, nullptr, 0);
    return refused;
  }
  if (listener.valid()) StartExecSupervisor(std::move(listener));
  if (bridge >= 0) StartBridge(bridge, proxy_socket);

  long kill_at = -1;  // when ending: the moment SIGKILL follows SIGTERM
  for (;;) {
    pollfd fds[2] = {{signals, POLLIN, 0}, {watchdog, POLLIN, 0}};
    int timeout = kill_at < 0 ? -1 : static_cast<int>(std::max(0L, kill_at - NowMs()));
    int ready = poll(fds, watchdog >= 0 ? 2 : 1, timeout);
    if (ready < 0 && errno != EINTR) return 125;
    if (kill_at >= 0 && NowMs() >= kill_at) {
      kill(-1, SIGKILL);
      return 137;
    }
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      if (read(signals, &info, sizeof info) == sizeof info) {
        if (info.ssi_signo == SIGCHLD) {
          int status = 0;
          for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;) {
            if (pid == child) return StatusCode(status);
          }
        } else {
          Forward(child, static_cast<int>(info.ssi_signo));
        }
      }
    }
    if (watchdog >= 0 && fds[1].revents) {
      char byte;
      if (read(watchdog, &byte, 1) <= 0) {  // closed: corral is gone
        std::fprintf(stderr, "corral-shim: corral is gone; ending the box\n");
        close(watchdog);
        watchdog = -1;
        Forward(child, SIGTERM);
        kill_at = NowMs() + kGraceMs;
      }
    }
  }
}

}  // namespace corral::shim
