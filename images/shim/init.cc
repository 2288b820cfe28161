// PID 1 of the box: run the agent in its own process group (the terminal's
// foreground group), reap every child, forward signals, bridge 127.0.0.1:3128
// to the proxy's socket, and end the box when the watchdog socket in the
// session folder closes, i.e. when corral is gone.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
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
#include <vector>

#include "base/base.h"
#include "images/shim/door.h"
#include "images/shim/exec_check.h"
#include "images/shim/exec_decision.h"
#include "images/shim/exec_gate.h"
#include "images/shim/exec_supervisor.h"
#include "images/shim/privileges.h"
#include "images/shim/relay.h"
#include "images/shim/watchdog.h"
#include "images/shim/shim.h"
#include "policy/matcher/matcher.h"

namespace corral::shim {
namespace {

constexpr int kGraceMs = 2000;  // SIGTERM, then SIGKILL this much later
constexpr int kBridgePort = 3128;

long NowMs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct Options {
  ExecCheckMode mode = ExecCheckMode::kOn;
  std::optional<AgentUser> user;  // given: the box starts as root to set the gate up
  std::vector<std::string> own;   // volumes the agent's user is given when root's (new ones)
};

// The agent's first process: the gate's covers (while it may mount), then
// no capability for good, then the exec check's filter.
[[noreturn]] void ExecChild(char** argv, const sigset_t& original, const Options& options,
                            const ExecGate& gate, bool privileged, ExecCheckStart& exec_check) {
  sigprocmask(SIG_SETMASK, &original, nullptr);
  setpgid(0, 0);
  if (isatty(STDIN_FILENO)) {
    signal(SIGTTOU, SIG_IGN);
    tcsetpgrp(STDIN_FILENO, getpid());
    signal(SIGTTOU, SIG_DFL);
  }
  if (privileged && !gate.empty()) {
    std::string why = RaiseKeptCapabilities();
    if (why.empty()) why = gate.Cover();
    if (!why.empty()) {
      if (options.mode == ExecCheckMode::kRequire) {
        std::fprintf(stderr, "corral-shim: exec_check is require, and the exec gate cannot be set "
                     "up: %s. Not starting; exec_check: on starts without the gate.\n", why.c_str());
        _exit(125);
      }
      std::fprintf(stderr, "corral-shim: the exec gate is off in this box: %s. Listed programs "
                   "are still checked at each exec (exec_check: require stops the session "
                   "instead).\n", why.c_str());
    }
  }
  if (privileged) {
    if (std::string why = DropAllCapabilities(); !why.empty()) {
      std::fprintf(stderr, "corral-shim: cannot drop the box's capabilities (%s); not starting\n",
                   why.c_str());
      _exit(125);
    }
  }
  if (!exec_check.InChild()) _exit(125);
  // corral exec's way in, with all of the above in place (door.h).
  UniqueFd door = OpenDoor();
  if (!door.valid()) {
    std::fprintf(stderr, "corral-shim: corral exec cannot enter this box: its door cannot be "
                 "opened (%s)\n", std::strerror(errno));
  }
  StartDoorKeeper(door);
  door.Reset();
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

// The value of option `name` at argv[0] (`--name VALUE` or `--name=VALUE`),
// moving past it; nullptr when argv[0] is not that option.
const char* OptionValue(const char* name, int& argc, char**& argv) {
  std::size_t length = std::strlen(name);
  if (argc == 0 || std::strncmp(argv[0], name, length) != 0 ||
      (argv[0][length] != '\0' && argv[0][length] != '=')) {
    return nullptr;
  }
  const char* value = argv[0][length] == '=' ? argv[0] + length + 1 : argc > 1 ? argv[1] : "";
  int used = argv[0][length] == '=' ? 1 : 2;
  argc -= std::min(used, argc);
  argv += used;
  return value;
}

// `--exec-check MODE` and `--user UID:GID` before `--`: corral passes the
// session's exec_check setting (on, its default, without it) and, when the
// box starts as root to set the exec gate up, the agent's user.
std::optional<Options> ReadOptions(int& argc, char**& argv) {
  Options options;
  for (;;) {
    if (const char* value = OptionValue("--exec-check", argc, argv)) {
      auto parsed = ParseExecCheckMode(value);
      if (!parsed) {
        std::fprintf(stderr, "corral-shim init: --exec-check takes on, require or off, not '%s'\n",
                     value);
        return std::nullopt;
      }
      options.mode = *parsed;
    } else if (const char* own = OptionValue("--own", argc, argv)) {
      options.own.push_back(own);
    } else if (const char* user = OptionValue("--user", argc, argv)) {
      options.user = ParseAgentUser(user);
      if (!options.user) {
        std::fprintf(stderr, "corral-shim init: --user takes UID:GID (numbers), not '%s'\n", user);
        return std::nullopt;
      }
    } else {
      break;
    }
  }
  if (argc > 0 && std::strcmp(argv[0], "--") == 0) {
    --argc;
    ++argv;
  }
  if (argc == 0) {
    std::fprintf(stderr, "corral-shim init: give the command to run: init -- COMMAND [ARGS...]\n");
    return std::nullopt;
  }
  return options;
}

// The listed programs: the first words of the session's list.
std::vector<std::string> ListedPrograms() {
  const char* file = std::getenv("CORRAL_DENY_LIST_FILE");
  auto entries = policy::ReadDenyListFile(file && *file ? file : "/run/corral/deny-list");
  std::vector<std::string> programs;
  for (const std::string& entry : entries ? *entries : policy::DefaultDenyList()) {
    programs.push_back(entry.substr(0, entry.find(' ')));
  }
  return programs;
}

// Started as root to set the gate up: becomes the agent's user at once,
// keeping only the capabilities the gate's mounts need. False: not starting.
bool LeaveRoot(const Options& options, bool& privileged) {
  privileged = false;
  if (!options.user) return true;
  if (::geteuid() != 0 || !HoldsCapabilities()) {
    if (::geteuid() == options.user->uid) return true;  // started as the agent: no gate
    std::fprintf(stderr, "corral-shim: started as user %u, neither root nor the agent's user "
                 "%u; not starting\n", ::geteuid(), options.user->uid);
    return false;
  }
  // A new volume is root's when the box starts as root (Podman makes it the
  // process's): the agent's, as it would be had the box started as it.
  for (const std::string& dir : options.own) {
    UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (fd.valid() && ::fstat(fd.get(), &st) == 0 && st.st_uid == 0 && st.st_gid == 0 &&
        ::fchown(fd.get(), options.user->uid, options.user->gid) != 0) {
      std::fprintf(stderr, "corral-shim: cannot give %s to the agent's user (%s)\n", dir.c_str(),
                   std::strerror(errno));
    }
  }
  if (std::string why = BecomeAgentUser(*options.user); !why.empty()) {
    std::fprintf(stderr, "corral-shim: cannot become the agent's user %u:%u (%s); not starting\n",
                 options.user->uid, options.user->gid, why.c_str());
    return false;
  }
  if (::access("/", X_OK) != 0) {
    std::fprintf(stderr, "corral-shim: the agent's user %u cannot reach the image's files "
                 "(/: %s): check that the image's root folder is mode 0755 "
                 "(docs/rootless.md, Images)\n", options.user->uid, std::strerror(errno));
    return false;
  }
  privileged = true;
  return true;
}

}  // namespace

int Init(int argc, char** argv) {
  auto options = ReadOptions(argc, argv);
  if (!options) return 2;
  bool privileged = false;
  if (!LeaveRoot(*options, privileged)) return 125;
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
  auto exec_check = ExecCheckStart::Prepare(options->mode);
  if (!exec_check) return 125;
  ExecGate gate;
  if (privileged && options->mode != ExecCheckMode::kOff && exec_check->may_run()) {
    const char* path = std::getenv("PATH");
    gate = ExecGate::Find(ListedPrograms(), path ? path : "/usr/local/bin:/usr/bin:/bin",
                          InterpreterNames());
  }
  int signals = signalfd(-1, &all, SFD_CLOEXEC);
  AwaitTerminalSize(signals);
  pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "corral-shim: cannot start %s: %s\n", argv[0], std::strerror(errno));
    return 125;
  }
  if (child == 0) ExecChild(argv, original, *options, gate, privileged, *exec_check);
  UniqueFd listener;
  // Reading a process that holds capabilities takes them in effect (the
  // agent's first process holds the kept ones until it drops them).
  if (privileged) RaiseKeptCapabilities();
  if (int refused = exec_check->InParent(child, listener); refused != 0) {
    waitpid(child, nullptr, 0);
    return refused;
  }
  // PID 1 holds the exec check's listener and the real files of gated
  // programs: no other process reads its descriptors or memory.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (privileged) {
    if (std::string why = DropAllCapabilities(); !why.empty()) {
      std::fprintf(stderr, "corral-shim: cannot drop the box's capabilities (%s); ending\n",
                   why.c_str());
      kill(child, SIGKILL);
      return 125;
    }
  }
  auto approved = std::make_shared<ApprovedExecs>();
  GateDecision decide = listener.valid() ? MakeGateDecision() : GateDecision();
  if (listener.valid()) StartExecSupervisor(std::move(listener), approved);
  gate.Serve(child, std::move(decide), approved);  // covered: gates need their files, checked or not
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
