// The gate's exchange with PID 1 on a stream connection: the gate says
// hello with its arguments (a length, then each NUL-ended); PID 1 checks
// what it is (its file, its path, its mount namespace) and reads its
// working directory while it can still read it, decides on the arguments,
// and says verified ('v'), refused ('r') or not a gate ('n'); the gate
// makes itself unreadable to the agent's processes and says done ('d');
// PID 1 checks that it is and sends the real file with 'f'. No process but
// the gate ever holds it, and the gate only execs it.
#include "images/shim/exec_gate.h"
#include "images/shim/relay.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>

extern char** environ;

namespace corral::shim {
namespace {

constexpr char kSocketName[] = "corral-gate";  // abstract: the box's network namespace
constexpr int kAnswerSeconds = 2;     // a gate that says nothing is dropped
constexpr int kGateWaitSeconds = 10;  // a gate waits this long for PID 1's answer
constexpr std::uint32_t kMaxArgBytes = 1 << 20;  // arguments past this are not sent

std::string_view BaseName(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string ReadLink(const std::string& path) {
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

socklen_t Address(sockaddr_un& address) { return AbstractAddress(kSocketName, address); }

bool Send(int fd, char byte, int file = -1) {
  msghdr message{};
  iovec data{&byte, 1};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (file >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &file, sizeof(int));
  }
  ssize_t n;
  while ((n = ::sendmsg(fd, &message, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  return n == 1;
}

// One byte, and the descriptor that came with it (or -1).
char Receive(int fd, int* file = nullptr) {
  char byte = 0;
  msghdr message{};
  iovec data{&byte, 1};
  message.msg_iov = &data;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (n != 1) return 0;
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  if (header && header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
    int received;
    std::memcpy(&received, CMSG_DATA(header), sizeof(int));
    if (file) {
      *file = received;
    } else {
      ::close(received);
    }
  }
  return byte;
}

bool IsCompiledProgram(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  char magic[4] = {};
  return fd.valid() && ::pread(fd.get(), magic, sizeof magic, 0) == 4 &&
         std::memcmp(magic, "\x7f" "ELF", 4) == 0;
}

// The hello: 'h', the length, then each argument NUL-ended.
std::optional<std::vector<std::string>> ReadHello(int fd) {
  char hello = 0;
  std::uint32_t length = 0;
  if (!ReadExactly(fd, &hello, 1) || hello != 'h' || !ReadExactly(fd, &length, sizeof length) ||
      length > kMaxArgBytes) {
    return std::nullopt;
  }
  std::string text(length, '\0');
  if (!ReadExactly(fd, text.data(), length)) return std::nullopt;
  std::vector<std::string> argv;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    argv.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return argv;
}

bool SendHello(int fd, int argc, char** argv) {
  std::string text(1, 'h');
  text.append(sizeof(std::uint32_t), '\0');
  for (int i = 0; i < argc && text.size() - 5 + std::strlen(argv[i]) + 1 <= kMaxArgBytes; ++i) {
    text.append(argv[i]);
    text.push_back('\0');
  }
  auto length = static_cast<std::uint32_t>(text.size() - 5);
  std::memcpy(text.data() + 1, &length, sizeof length);
  return WriteAll(fd, text.data(), text.size());
}

void Answer(int connection, const std::vector<GatedProgram>& programs, const struct stat& gate,
            ino_t agent_mount_ns, const GateDecision& decide, ApprovedExecs* approved) {
  timeval timeout{kAnswerSeconds, 0};
  ::setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ucred peer{};
  socklen_t size = sizeof peer;
  auto argv = ReadHello(connection);
  if (!argv || ::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) return;
  std::string proc = "/proc/" + std::to_string(peer.pid);
  struct stat exe {}, mount_ns {};
  std::string exe_path = ReadLink(proc + "/exe");
  const GatedProgram* program = nullptr;
  if (::stat((proc + "/exe").c_str(), &exe) == 0 &&
      ::stat((proc + "/ns/mnt").c_str(), &mount_ns) == 0) {
    program = GateFor(programs, exe_path, exe, gate, mount_ns.st_ino, agent_mount_ns);
  }
  if (!program) {
    Send(connection, 'n');
    return;
  }
  std::string cwd = ReadLink(proc + "/cwd");
  if (decide && decide(program->name, program->path, *argv, cwd)) {
    Send(connection, 'r');
    return;
  }
  if (!Send(connection, 'v') || Receive(connection) != 'd') return;
  // Unreadable now to every process without CAP_SYS_PTRACE, PID 1 included.
  struct stat after {};
  if (::stat((proc + "/exe").c_str(), &after) == 0 || (errno != EACCES && errno != EPERM)) {
    Send(connection, 'n');
    return;
  }
  if (approved) approved->Add(peer.pid);
  Send(connection, 'f', program->file.get());
}

}  // namespace

std::string ExecGate::SocketName() { return kSocketName; }

ExecGate ExecGate::Find(const std::vector<std::string>& listed, std::string_view search_path,
                        const std::vector<std::string>& skip) {
  ExecGate gate;
  struct stat self {};
  if (::stat("/proc/self/exe", &self) != 0) return gate;
  std::vector<std::string> names = listed;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names) {
    if (name.empty() || name.find('/') != std::string::npos) continue;
    for (std::size_t start = 0; start <= search_path.size();) {
      std::size_t colon = search_path.find(':', start);
      if (colon == std::string_view::npos) colon = search_path.size();
      std::string dir(search_path.substr(start, colon - start));
      start = colon + 1;
      if (dir.empty() || dir[0] != '/') continue;  // a relative folder moves with the cwd
      char resolved[PATH_MAX];
      if (!::realpath((dir + "/" + name).c_str(), resolved)) continue;
      std::string path = resolved;
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) continue;
      bool known = std::any_of(gate.programs_.begin(), gate.programs_.end(), [&](const auto& p) {
        return p.st.st_dev == st.st_dev && p.st.st_ino == st.st_ino;
      });
      if (known || (st.st_dev == self.st_dev && st.st_ino == self.st_ino) ||
          path.starts_with("/run/corral/") ||
          std::find(skip.begin(), skip.end(), BaseName(path)) != skip.end() ||
          !IsCompiledProgram(path)) {
        continue;
      }
      UniqueFd file(::open(path.c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW));
      struct stat held {};
      if (!file.valid() || ::fstat(file.get(), &held) != 0 || held.st_ino != st.st_ino) continue;
      gate.programs_.push_back({name, path, st, std::move(file)});
    }
  }
  if (gate.programs_.empty()) return gate;
  gate.listener_.Reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address;
  socklen_t length = Address(address);
  if (!gate.listener_.valid() ||
      ::bind(gate.listener_.get(), reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(gate.listener_.get(), 64) != 0) {
    gate.listener_.Reset();
  }
  return gate;
}

std::string ExecGate::Cover() const {
  if (programs_.empty()) return "";
  if (!listener_.valid()) return "PID 1 cannot listen for gates";
  if (::unshare(CLONE_NEWNS) != 0) {
    return std::string("a mount namespace of its own: ") + std::strerror(errno);
  }
  // Nothing mounted here reaches the box's other mounts or the host.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) {
    return std::string("keeping the gate's mounts to itself: ") + std::strerror(errno);
  }
  // By its path, as for the programs: /proc/self/exe leads to the box's
  // namespace's mount, which a mount here cannot take as its source.
  struct stat exe {}, gate {};
  std::string exe_path = ReadLink("/proc/self/exe");
  UniqueFd self(::open(exe_path.c_str(), O_PATH | O_CLOEXEC));
  if (!self.valid() || ::fstat(self.get(), &gate) != 0 || ::stat("/proc/self/exe", &exe) != 0 ||
      exe.st_dev != gate.st_dev || exe.st_ino != gate.st_ino) {
    return "opening the gate's file " + exe_path + ": " +
           (self.valid() ? "it is not this program" : std::strerror(errno));
  }
  std::string source = "/proc/self/fd/" + std::to_string(self.get());
  for (const GatedProgram& program : programs_) {
    // The held descriptor's mount is the box's namespace, not this one: the
    // path opened here, checked to be the very file found.
    UniqueFd here(::open(program.path.c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW));
    struct stat found {};
    if (!here.valid() || ::fstat(here.get(), &found) != 0 || found.st_dev != program.st.st_dev ||
        found.st_ino != program.st.st_ino) {
      return "covering " + program.path + ": it changed since it was found";
    }
    std::string target = "/proc/self/fd/" + std::to_string(here.get());
    if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0) {
      return "covering " + program.path + ": " + std::strerror(errno);
    }
    struct stat now {};
    if (::stat(program.path.c_str(), &now) != 0 || now.st_ino != gate.st_ino ||
        now.st_dev != gate.st_dev) {
      return "covering " + program.path + ": the gate is not there afterwards";
    }
  }
  return "";
}

void ExecGate::Serve(pid_t agent, GateDecision decide, std::shared_ptr<ApprovedExecs> approved) {
  if (programs_.empty() || !listener_.valid()) return;
  struct stat gate {}, mount_ns {};
  if (::stat("/proc/self/exe", &gate) != 0 ||
      ::stat(("/proc/" + std::to_string(agent) + "/ns/mnt").c_str(), &mount_ns) != 0) {
    return;
  }
  std::thread([programs = std::move(programs_), listener = std::move(listener_), gate,
               agent_ns = mount_ns.st_ino, decide = std::move(decide),
               approved = std::move(approved)] {
    for (;;) {
      UniqueFd connection(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!connection.valid()) {
        if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE) continue;
        return;
      }
      Answer(connection.get(), programs, gate, agent_ns, decide, approved.get());
    }
  }).detach();
}

const GatedProgram* GateFor(const std::vector<GatedProgram>& programs, const std::string& exe_path,
                            const struct stat& exe, const struct stat& gate, ino_t mount_ns,
                            ino_t agent_mount_ns) {
  if (exe.st_dev != gate.st_dev || exe.st_ino != gate.st_ino || mount_ns != agent_mount_ns) {
    return nullptr;
  }
  for (const GatedProgram& program : programs) {
    if (program.path == exe_path) return &program;
  }
  return nullptr;
}

bool IsGate(std::string_view exe_path) { return BaseName(exe_path) != "corral-shim"; }

int RunGate(int argc, char** argv) {
  std::string self = ReadLink("/proc/self/exe");
  const char* name = argc > 0 ? argv[0] : self.c_str();
  UniqueFd connection(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address;
  socklen_t length = Address(address);
  if (!connection.valid() ||
      ::connect(connection.get(), reinterpret_cast<sockaddr*>(&address), length) != 0) {
    std::fprintf(stderr,
                 "corral: %s is behind corral's exec gate, and the gate cannot reach the box's "
                 "PID 1 (%s)\n",
                 name, std::strerror(errno));
    return 126;
  }
  // PID 1 answers at once; a box whose PID 1 does not is not worth waiting on.
  timeval timeout{kGateWaitSeconds, 0};
  ::setsockopt(connection.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  int file = -1;
  char answer = 0;
  if (SendHello(connection.get(), argc, argv) && (answer = Receive(connection.get())) == 'v') {
    ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);  // before it holds the file
    if (Send(connection.get(), 'd')) answer = Receive(connection.get(), &file);
  }
  if (answer == 0) {
    std::fprintf(stderr, "corral: %s is behind corral's exec gate, and the box's PID 1 did not "
                 "answer it (%s)\n", name, std::strerror(errno));
    return 126;
  }
  if (answer == 'r') {
    std::fprintf(stderr, "corral: %s was refused: it is on the session's deny list and nobody is "
                 "watching (see `corral inbox`)\n", name);
    return 126;
  }
  if (answer != 'f' || file < 0) {
    std::fprintf(stderr,
                 "corral: %s (%s) is a copy of corral's exec gate, not a program: run the "
                 "program by its own name\n",
                 name, self.c_str());
    return 126;
  }
  connection.Reset();
  ::syscall(SYS_execveat, file, "", argv, environ, AT_EMPTY_PATH);
  int error = errno;
  if (error == EACCES) {
    std::fprintf(stderr, "corral: %s was refused by corral's exec check (see `corral inbox`)\n",
                 name);
  } else {
    std::fprintf(stderr, "corral: cannot run %s: %s\n", name, std::strerror(error));
  }
  return error == ENOENT ? 127 : 126;
}

}  // namespace corral::shim
