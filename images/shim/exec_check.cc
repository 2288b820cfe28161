// The hand-over across the fork, on a socket pair: PID 1 says whether to
// install ('i') or not ('n'); the child answers with the listener (or the
// error); PID 1 says go ('g') or stop ('x').
#include "images/shim/exec_check.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "images/shim/exec_filter.h"

namespace corral::shim {
namespace {

char ReadByte(int fd) {
  char byte = 0;
  while (::read(fd, &byte, 1) < 0 && errno == EINTR) {
  }
  return byte;
}

void WriteByte(int fd, char byte) { ::send(fd, &byte, 1, MSG_NOSIGNAL); }

// The child's answer: its errno (0 on success) and, on success, the listener.
void SendListener(int channel, int listener, int error) {
  msghdr message{};
  iovec data{&error, sizeof error};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (listener >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &listener, sizeof(int));
  }
  while (::sendmsg(channel, &message, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

UniqueFd ReceiveListener(int channel, int& error) {
  msghdr message{};
  error = 0;
  iovec data{&error, sizeof error};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = ::recvmsg(channel, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (n != sizeof error) {
    error = ESRCH;  // the child ended before it answered
    return UniqueFd();
  }
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  if (error != 0 || !header || header->cmsg_type != SCM_RIGHTS) return UniqueFd();
  int listener;
  std::memcpy(&listener, CMSG_DATA(header), sizeof(int));
  return UniqueFd(listener);
}

}  // namespace

std::optional<ExecCheckMode> ParseExecCheckMode(std::string_view text) {
  if (text == "on") return ExecCheckMode::kOn;
  if (text == "require") return ExecCheckMode::kRequire;
  if (text == "off") return ExecCheckMode::kOff;
  return std::nullopt;
}

std::optional<ExecCheckStart> ExecCheckStart::Prepare(ExecCheckMode mode) {
  ExecCheckStart start;
  start.mode_ = mode;
  if (mode == ExecCheckMode::kOff) return start;
  start.unavailable_ = ExecFilterUnavailable(0);
  int ends[2];
  if (start.unavailable_.empty()) {
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) == 0) {
      start.parent_end_.Reset(ends[0]);
      start.child_end_.Reset(ends[1]);
    } else {
      start.unavailable_ = std::string("cannot create a socket pair: ") + std::strerror(errno);
    }
  }
  if (!start.unavailable_.empty() && mode == ExecCheckMode::kRequire) {
    std::fprintf(stderr,
                 "corral-shim: exec_check is require, and the exec check cannot run in this box: "
                 "%s. Not starting; exec_check: on starts without it.\n",
                 start.unavailable_.c_str());
    return std::nullopt;
  }
  return start;
}

bool ExecCheckStart::InChild() {
  if (!child_end_.valid()) return true;  // off, or known not to work: nothing to wait for
  parent_end_.Reset();
  char install = ReadByte(child_end_.get());
  if (install == 'i') {
    int listener = InstallExecFilter();
    SendListener(child_end_.get(), listener, listener < 0 ? errno : 0);
    if (listener >= 0) ::close(listener);  // PID 1 holds it now
  }
  return install != 'x' && ReadByte(child_end_.get()) == 'g';
}

int ExecCheckStart::InParent(pid_t child, UniqueFd& listener) {
  std::string why = unavailable_;
  if (parent_end_.valid()) {
    child_end_.Reset();
    // The supervisor reads the agent's processes through /proc (ptrace
    // access): known before the filter is in place, or execs would hang.
    UniqueFd memory(::open(("/proc/" + std::to_string(child) + "/mem").c_str(), O_RDONLY));
    if (!memory.valid()) {
      why = std::string("PID 1 cannot read the agent's processes (") + std::strerror(errno) +
            "; kernel.yama.ptrace_scope above 1 forbids it)";
    }
    WriteByte(parent_end_.get(), why.empty() ? 'i' : 'n');
    if (why.empty()) {
      int error = 0;
      listener = ReceiveListener(parent_end_.get(), error);
      if (listener.valid()) {
        WriteByte(parent_end_.get(), 'g');
        return 0;
      }
      why = ExecFilterUnavailable(error);
    }
  }
  if (mode_ == ExecCheckMode::kOff) return 0;
  if (mode_ == ExecCheckMode::kRequire) {
    std::fprintf(stderr,
                 "corral-shim: exec_check is require, and the exec check cannot run in this box: "
                 "%s. Not starting; exec_check: on starts without it.\n",
                 why.c_str());
    if (parent_end_.valid()) WriteByte(parent_end_.get(), 'x');
    return 125;
  }
  std::fprintf(stderr,
               "corral-shim: the exec check is off in this box: %s. Listed commands given to a "
               "shell are still refused; programs started another way are not checked "
               "(exec_check: require stops the session instead).\n",
               why.c_str());
  if (parent_end_.valid()) WriteByte(parent_end_.get(), 'g');
  return 0;
}

}  // namespace corral::shim
