// The door (door.h). One connection asks for one command:
//   enter -> keeper: a 4-byte length, then the request (working directory,
//            TERM, the argument vector, each ending in NUL), standard input,
//            output and error passed with the length (SCM_RIGHTS);
//   keeper -> enter: 'r' once the command runs, or 'e' and why it cannot;
//   enter -> keeper: one byte per signal enter was sent, for the command;
//   keeper -> enter: the command's exit status, 4 bytes, when it ends.
// A connection that closes early ends the command with SIGHUP, as a closed
// terminal would.
#include "images/shim/door.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/child_descriptors.h"
#include "images/shim/relay.h"

namespace corral::shim {
namespace {

constexpr char kSocketName[] = "corral-door";  // abstract: the box's network namespace
constexpr std::uint32_t kMaxRequest = 1 << 20;
constexpr int kRequestSeconds = 5;  // a request that does not arrive whole is dropped

socklen_t Address(sockaddr_un& address) { return AbstractAddress(kSocketName, address); }

bool WriteAll(int fd, const void* data, std::size_t size) {  // SIGPIPE is ignored on both ends
  return corral::WriteAll(fd, static_cast<const char*>(data), size);
}

struct Request {
  std::string cwd, term;
  std::vector<std::string> argv;
  UniqueFd stdio[3];
};

// The length with the three descriptors, then the text.
bool ReceiveRequest(int connection, Request& request) {
  std::uint32_t length = 0;
  iovec data{&length, sizeof length};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = ::recvmsg(connection, &message, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 &&
         errno == EINTR) {
  }
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
      if (i < 3) request.stdio[i].Reset(fd);
      else ::close(fd);
    }
  }
  if (n != sizeof length || length > kMaxRequest || !request.stdio[2].valid()) return false;
  std::string text(length, '\0');
  if (!ReadExactly(connection, text.data(), text.size())) return false;
  std::vector<std::string> fields;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\0', at);
    if (end == std::string::npos) return false;
    fields.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (fields.size() < 2) return false;
  request.cwd = fields[0];
  request.term = fields[1];
  request.argv.assign(fields.begin() + 2, fields.end());
  return true;
}

[[noreturn]] void RunCommand(Request& request) {
  ::setsid();
  for (int fd = 0; fd < 3; ++fd) ::dup2(request.stdio[fd].get(), fd);
  // Its own terminal, when enter has let go of it (TIOCNOTTY).
  if (::isatty(STDIN_FILENO)) ::ioctl(STDIN_FILENO, TIOCSCTTY, 0);
  if (!request.cwd.empty() && ::chdir(request.cwd.c_str()) != 0) {
    std::fprintf(stderr, "corral exec: cannot go to %s (%s); running in %s\n", request.cwd.c_str(),
                 std::strerror(errno), get_current_dir_name());
  }
  if (!request.term.empty()) ::setenv("TERM", request.term.c_str(), 1);
  struct sigaction standard {};
  standard.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &standard, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  CloseInheritedDescriptors();
  // Found on the box's PATH, as the agent finds them: corral's shell front
  // comes first there.
  if (request.argv.empty()) {
    char bash[] = "bash";
    char* interactive[] = {bash, nullptr};
    ::execvp(bash, interactive);
    request.argv = {"sh"};
  }
  std::vector<char*> argv;
  for (std::string& arg : request.argv) argv.push_back(arg.data());
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::fprintf(stderr, "corral exec: cannot run %s: %s\n", argv[0], std::strerror(errno));
  ::_exit(errno == ENOENT ? 127 : 126);
}

int StatusCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// One connection, in a process of its own: the command, its signals, its status.
[[noreturn]] void Handle(int connection) {
  ::signal(SIGCHLD, SIG_DFL);
  timeval limit{kRequestSeconds, 0};
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  Request request;
  if (!ReceiveRequest(connection, request)) ::_exit(1);
  timeval none{0, 0};
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(connection);
    RunCommand(request);
  }
  if (pid < 0) {
    std::string why = std::string("e") + std::strerror(errno);
    WriteAll(connection, why.data(), why.size());
    ::_exit(1);
  }
  for (UniqueFd& fd : request.stdio) fd.Reset();
  WriteAll(connection, "r", 1);
  int done = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  bool open = true;
  for (;;) {
    pollfd fds[2] = {{open ? connection : -1, POLLIN, 0}, {done, POLLIN, 0}};
    if (::poll(fds, 2, done >= 0 ? -1 : 200) < 0 && errno != EINTR) break;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      std::int32_t code = StatusCode(status);
      WriteAll(connection, &code, sizeof code);
      ::_exit(0);
    }
    if (open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      unsigned char sig = 0;
      ssize_t n = ::recv(connection, &sig, 1, 0);
      if (n == 1 && sig > 0 && sig < NSIG) {
        if (::kill(-pid, sig) != 0) ::kill(pid, sig);
      } else if (n == 0 || (n < 0 && errno != EINTR)) {
        open = false;  // enter is gone: as a closed terminal, a hang-up
        if (::kill(-pid, SIGHUP) != 0) ::kill(pid, SIGHUP);
      }
    }
  }
  ::_exit(1);
}

[[noreturn]] void KeepDoor(int door) {
  ::setsid();  // no terminal: the agent's ^C is not the keeper's
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3 && null >= 0; ++fd) ::dup2(null, fd);
  CloseInheritedDescriptors({door});
  ::signal(SIGCHLD, SIG_IGN);  // each connection's process is reaped by the kernel
  ::signal(SIGPIPE, SIG_IGN);
  for (;;) {
    int connection = ::accept4(door, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) continue;
      ::_exit(1);
    }
    pid_t handler = ::fork();
    if (handler == 0) {
      ::close(door);
      Handle(connection);
    }
    ::close(connection);
  }
}

}  // namespace

UniqueFd OpenDoor() {
  UniqueFd door(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address;
  socklen_t size = Address(address);
  if (!door.valid() || ::bind(door.get(), reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::listen(door.get(), 16) != 0) {
    int error = errno;
    door.Reset();
    errno = error;
  }
  return door;
}

void StartDoorKeeper(const UniqueFd& door) {
  if (!door.valid()) return;
  pid_t middle = ::fork();
  if (middle == 0) {
    if (::fork() == 0) KeepDoor(door.get());
    ::_exit(0);
  }
  if (middle > 0) ::waitpid(middle, nullptr, 0);
}

namespace {

int g_connection = -1;

void ForwardSignal(int sig) {
  unsigned char byte = static_cast<unsigned char>(sig);
  int saved = errno;
  (void)!::send(g_connection, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  errno = saved;
}

std::vector<std::string> CommandOf(int argc, char** argv) {
  if (argc > 0 && std::strcmp(argv[0], "--") == 0) {
    --argc;
    ++argv;
  }
  if (argc == 0) return {};  // the keeper's shell: bash, else sh
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i ? " " : "") + std::string(argv[i]);
  return {"sh", "-c", text};
}

bool SendRequest(int connection, const std::vector<std::string>& argv) {
  char cwd[PATH_MAX];
  const char* term = std::getenv("TERM");
  std::string text = std::string(::getcwd(cwd, sizeof cwd) ? cwd : "") + '\0' +
                     (term ? term : "") + '\0';
  for (const std::string& arg : argv) text += arg + '\0';
  auto length = static_cast<std::uint32_t>(text.size());
  iovec data{&length, sizeof length};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(3 * sizeof(int));
  int stdio[3] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  std::memcpy(CMSG_DATA(header), stdio, sizeof stdio);
  ssize_t n;
  while ((n = ::sendmsg(connection, &message, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  return n == sizeof length && WriteAll(connection, text.data(), text.size());
}

}  // namespace

int Enter(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);  // a keeper gone is a line below, not a silent death
  UniqueFd connection(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address;
  socklen_t size = Address(address);
  if (!connection.valid() ||
      ::connect(connection.get(), reinterpret_cast<sockaddr*>(&address), size) != 0) {
    std::fprintf(stderr, "corral-shim enter: this box has no door (%s): it was started by a "
                 "corral without `corral exec`, or its agent could not open one at start\n",
                 std::strerror(errno));
    return 125;
  }
  // The terminal the engine gave this process goes to the command: it is
  // the session leader that holds it, and lets it go (its own SIGHUP from
  // that is ignored).
  if (::isatty(STDIN_FILENO) && ::getsid(0) == ::getpid()) {
    ::signal(SIGHUP, SIG_IGN);
    ::ioctl(STDIN_FILENO, TIOCNOTTY);
  }
  if (!SendRequest(connection.get(), CommandOf(argc, argv))) {
    std::fprintf(stderr, "corral-shim enter: the door closed before the command was given "
                 "(%s)\n", std::strerror(errno));
    return 125;
  }
  char answer[256] = {};
  ssize_t n = ::recv(connection.get(), answer, sizeof answer - 1, 0);
  if (n < 1 || answer[0] != 'r') {
    std::fprintf(stderr, "corral-shim enter: the box could not start the command%s%s\n",
                 n > 1 ? ": " : "", n > 1 ? answer + 1 : "");
    return 125;
  }
  g_connection = connection.get();
  struct sigaction forward {};
  forward.sa_handler = ForwardSignal;
  sigemptyset(&forward.sa_mask);
  forward.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) {
    ::sigaction(sig, &forward, nullptr);
  }
  std::int32_t code = 0;
  if (!ReadExactly(connection.get(), &code, sizeof code)) {
    std::fprintf(stderr, "corral-shim enter: the box ended before the command did\n");
    return 125;
  }
  return code;
}

}  // namespace corral::shim
