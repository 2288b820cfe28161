// An ssh:// engine through the user's own ssh (their keys, agent,
// ~/.ssh/config and known_hosts), presented to libcurl as a local unix socket.
//
// One ssh connection (a ControlMaster in the tunnel's folder) carries it all:
// - with a socket path (Podman's form), the master forwards the local socket
//   to it (-L local:remote, OpenSSH's direct-streamlocal channel, which a
//   stock sshd allows: nothing needs to be installed on the far side);
// - without one (Docker's form), the keeper accepts each connection on the
//   local socket and runs `ssh ... docker system dial-stdio` over the master
//   with the connection as its stdin and stdout, as the docker CLI does.
// A keeper process owns every ssh: it ends them when corral says so or dies
// (the pipe from corral reaches EOF, also after SIGKILL), and each ssh has
// PR_SET_PDEATHSIG towards the keeper, so nothing stays behind.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kConnectTimeoutSeconds = 5;  // ssh's ConnectTimeout
constexpr int kReaperGraceSeconds = 60;    // corral died: the reaper's time

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The arguments every ssh gets: never a prompt (BatchMode: no password,
// passphrase or host-key question; the user's StrictHostKeyChecking stands,
// and an unknown host key is refused), the master's socket, the target.
std::vector<std::string> SshArgs(const SshTarget& target, const std::string& control) {
  std::vector<std::string> args = {"ssh", "-T", "-o", "BatchMode=yes", "-o",
                                   "ConnectTimeout=" + std::to_string(kConnectTimeoutSeconds),
                                   "-S", control};
  if (!target.port.empty()) args.insert(args.end(), {"-p", target.port});
  if (!target.user.empty()) args.insert(args.end(), {"-l", target.user});
  if (!target.identity.empty()) args.insert(args.end(), {"-i", target.identity});
  return args;
}

[[noreturn]] void ExecSsh(std::vector<std::string> args, int in, int out, int err) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the keeper gone: so is this ssh
  ::dup2(in, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  CloseInheritedDescriptors();
  for (int sig : {SIGINT, SIGHUP, SIGPIPE, SIGTERM}) ::signal(sig, SIG_DFL);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  ::execvp("ssh", argv.data());
  std::fprintf(stderr, "cannot run ssh: %s\n", std::strerror(errno));
  ::_exit(127);
}

pid_t Spawn(const std::vector<std::string>& args, int in, int out, int err) {
  pid_t pid = ::fork();
  if (pid == 0) ExecSsh(args, in, out, err);
  return pid;
}

void StopAll(const std::set<pid_t>& pids) {
  for (pid_t pid : pids) ::kill(pid, SIGTERM);
  auto until = Clock::now() + std::chrono::seconds(2);
  std::set<pid_t> left = pids;
  while (!left.empty() && Clock::now() < until) {
    for (auto it = left.begin(); it != left.end();) {
      it = ::waitpid(*it, nullptr, WNOHANG) == *it ? left.erase(it) : std::next(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (pid_t pid : left) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
}

int Listen(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (fd < 0 || path.size() >= sizeof address.sun_path) return -1;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, 64) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One connection to the local socket: `docker system dial-stdio` on the far
// side, over the master, with the connection as ssh's stdin and stdout.
void Dial(int listener, const SshTarget& target, const std::string& control, int log,
          std::set<pid_t>& streams) {
  int connection = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (connection < 0) return;
  std::vector<std::string> dial = SshArgs(target, control);
  dial.insert(dial.end(),
              {"-o", "ControlMaster=no", "--", target.host, "docker", "system", "dial-stdio"});
  if (pid_t pid = Spawn(dial, connection, connection, log); pid > 0) streams.insert(pid);
  ::close(connection);
}

// The keeper (base/keeper.h) runs the master and, for dial-stdio, one ssh
// per connection.
[[noreturn]] void KeeperMain(int done, const SshTarget& target, const std::string& dir,
                             const std::string& session_dir) {
  int log = ::open((dir + "/ssh.log").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  CloseInheritedDescriptors({done, log, null});
  std::string control = dir + "/control", local = dir + "/engine.sock";
  int listener = target.socket.empty() ? Listen(local) : -1;
  if (target.socket.empty() && listener < 0) ::_exit(1);
  std::vector<std::string> master = SshArgs(target, control);
  master.insert(master.end(), {"-M", "-N", "-o", "ControlPersist=no", "-o",
                               "ExitOnForwardFailure=yes"});
  if (!target.socket.empty()) master.insert(master.end(), {"-L", local + ":" + target.socket});
  master.insert(master.end(), {"--", target.host});
  pid_t master_pid = Spawn(master, null, null, log);
  std::set<pid_t> streams;
  for (;;) {
    pollfd p[2] = {{done, POLLIN, 0}, {listener, POLLIN, 0}};
    int ready = ::poll(p, listener >= 0 ? 2 : 1, 500);
    for (pid_t pid; (pid = ::waitpid(-1, nullptr, WNOHANG)) > 0;) {
      if (pid == master_pid) master_pid = -1;
      streams.erase(pid);
    }
    if (master_pid < 0) {  // ssh gave up or lost the host: its log stays for corral to read
      StopAll(streams);
      ::_exit(1);
    }
    if (ready > 0 && p[0].revents != 0) {  // corral is done, or died
      if (!ParentDone(done) && !session_dir.empty()) {
        // corral died: the reaper removes the box through this tunnel first.
        auto until = Clock::now() + std::chrono::seconds(kReaperGraceSeconds);
        while (Exists(session_dir) && Clock::now() < until) {
          for (pid_t pid; (pid = ::waitpid(-1, nullptr, WNOHANG)) > 0;) streams.erase(pid);
          pollfd q{listener, POLLIN, 0};
          if (listener >= 0 && ::poll(&q, 1, 200) > 0) Dial(listener, target, control, log, streams);
          else std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
      }
      streams.insert(master_pid);
      StopAll(streams);
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      ::_exit(0);
    }
    if (ready > 0 && listener >= 0 && (p[1].revents & POLLIN)) {
      Dial(listener, target, control, log, streams);
    }
  }
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) last = line;
  }
  return last;
}

std::string TunnelBase() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  return RuntimeDirFor(::getuid(), runtime ? runtime : "");
}

}  // namespace

Result<std::shared_ptr<SshTunnel>> SshTunnel::Open(const Endpoint& endpoint,
                                                  const std::string& session_dir) {
  const SshTarget& target = *endpoint.ssh;
  std::string base = TunnelBase();
  std::error_code ec;
  std::filesystem::create_directories(base, ec);
  std::string pattern = base + "/ssh-XXXXXX";
  if (ec || !::mkdtemp(pattern.data())) {
    return Error::FromErrno("cannot make a folder for the ssh tunnel in " + base);
  }
  std::string dir = pattern;
  auto keeper = Keeper::Start(
      {SIGINT, SIGHUP, SIGPIPE}, [&](int done) { KeeperMain(done, target, dir, session_dir); },
      "cannot start ssh");
  if (!keeper) return keeper.error();
  std::shared_ptr<SshTunnel> tunnel(new SshTunnel());
  tunnel->dir_ = dir;
  tunnel->keeper_ = std::move(*keeper);
  tunnel->socket_ = dir + "/engine.sock";
  // Ready when the master has logged in (its control socket is there) and
  // the local socket listens; ssh's own last line when it gives up.
  auto until = Clock::now() + std::chrono::seconds(kConnectTimeoutSeconds * 2);
  for (;;) {
    if (Exists(dir + "/control") && Exists(tunnel->socket_)) return tunnel;
    if (tunnel->keeper_.Ended()) {
      std::string why = LastLine(dir + "/ssh.log");
      return Error("ssh: " + (why.empty() ? std::string("it ended without a word") : why), EHOSTUNREACH);
    }
    if (Clock::now() > until) {
      return Error("ssh did not log in within " + std::to_string(kConnectTimeoutSeconds * 2) +
                       " s" + (LastLine(dir + "/ssh.log").empty() ? "" : ": " + LastLine(dir + "/ssh.log")),
                   EHOSTUNREACH);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string SshTunnel::LastWords() const { return LastLine(dir_ + "/ssh.log"); }

SshTunnel::~SshTunnel() {
  if (keeper_.running()) keeper_.Done();
  keeper_.Wait();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace corral::launcher
