// One notification: read, decide, answer. What is read from the process is
// read through descriptors checked with SECCOMP_IOCTL_NOTIF_ID_VALID after
// they were opened, so a pid reused by another process is never read as the
// caller. The process may still change its memory or its files after the
// check (docs/exec-check.md says so): this catches detours, not races.
#include "images/shim/exec_supervisor.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>
#include <thread>
#include <vector>

#include "images/shim/exec_decision.h"
#include "images/shim/exec_filter.h"
#include "images/shim/program_identity.h"
#include "images/shim/target_process.h"

namespace corral::shim {
namespace {

constexpr std::size_t kMaxArgBytes = 4 << 20;  // argument text read; past it, the rest is not seen
constexpr long kListCheckMs = 1000;            // how often the list file is looked at
constexpr long kRepeatMs = 5000;  // a refusal repeated within this is not reported again
constexpr int kMaxInterpreterDepth = 4;      // BINPRM_MAX_RECURSION: scripts running scripts
constexpr std::size_t kShebangBytes = 256;   // BINPRM_BUF_SIZE: what the kernel reads of a #! line
// linux/seccomp.h of Linux 6.6, newer than this build's headers.
constexpr unsigned long kNotifSetFlags = SECCOMP_IOW(4, __u64);
constexpr unsigned long kSyncWakeUp = 1;

long NowMs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

std::string Env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

std::string_view BaseName(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Where the dynamic loaders are (besides PATH).
constexpr const char* kLoaderDirs =
    "/lib64:/lib:/usr/lib64:/usr/lib:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
    "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu";

// The session's list, its matcher and the listed programs' identities,
// reloaded when the list file changes (the oracle rewrites it on a config edit).
class SessionList {
 public:
  explicit SessionList(const SupervisorSettings& settings)
      : settings_(settings),
        front_(ProgramIdentities::Record({"corral-shell"}, settings.front_dirs)),
        interpreters_(ProgramIdentities::Record(InterpreterNames(),
                                                settings.search_path + ":" + kLoaderDirs)) {
    Load();
  }

  void Refresh() {
    long now = NowMs();
    if (now - checked_at_ < kListCheckMs) return;
    checked_at_ = now;
    struct stat st {};
    bool exists = ::stat(settings_.deny_list_file.c_str(), &st) == 0;
    if (exists != exists_ ||
        (exists && (st.st_ino != seen_.st_ino || st.st_mtim.tv_sec != seen_.st_mtim.tv_sec ||
                    st.st_mtim.tv_nsec != seen_.st_mtim.tv_nsec))) {
      Load();
    }
  }

  const policy::Matcher& matcher() const { return *matcher_; }
  ProgramIdentities& listed() { return listed_; }
  ProgramIdentities& front() { return front_; }
  ProgramIdentities& interpreters() { return interpreters_; }

 private:
  void Load() {
    exists_ = ::stat(settings_.deny_list_file.c_str(), &seen_) == 0;
    auto file = policy::ReadDenyListFile(settings_.deny_list_file);
    std::vector<std::string> entries = file ? std::move(*file) : policy::DefaultDenyList();
    auto matcher = policy::Matcher::Create(entries);
    if (!matcher) matcher = policy::Matcher::Create(policy::DefaultDenyList());
    matcher_ = std::make_unique<policy::Matcher>(std::move(*matcher));
    std::vector<std::string> programs;
    for (const std::string& entry : entries) programs.push_back(entry.substr(0, entry.find(' ')));
    listed_ = ProgramIdentities::Record(programs, settings_.search_path);
  }

  const SupervisorSettings& settings_;
  std::unique_ptr<policy::Matcher> matcher_;
  ProgramIdentities listed_;
  ProgramIdentities front_;
  ProgramIdentities interpreters_;
  struct stat seen_ {};
  bool exists_ = false;
  long checked_at_ = 0;
};

class Supervisor {
 public:
  Supervisor(int listener, const SupervisorSettings& settings, std::unique_ptr<HostAnswers> host,
             std::shared_ptr<ApprovedExecs> approved)
      : listener_(listener), list_(settings), host_(std::move(host)),
        approved_(std::move(approved)) {}

  void Answer(const seccomp_notif& request) {
    seccomp_notif_resp response{};
    response.id = request.id;
    if (!host_->Watching() && Refuse(request)) {
      response.error = -EACCES;
    } else {
      response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    ::ioctl(listener_, SECCOMP_IOCTL_NOTIF_SEND, &response);  // ENOENT: the caller is gone
  }

 private:
  bool IdValid(std::uint64_t id) {
    return ::ioctl(listener_, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
  }

  bool Refuse(const seccomp_notif& request) {
    auto call = ReadExecCall(request.data);
    if (!call) return false;
    TargetProcess target(static_cast<pid_t>(request.pid));
    int open_error = errno;
    if (!IdValid(request.id)) return false;  // gone; the answer reaches nobody
    if (!target.valid()) {
      if (approved_ && approved_->Take(static_cast<pid_t>(request.pid))) return false;
      std::fprintf(stderr, "corral-shim: refused an exec of process %u: it cannot be read (%s)\n",
                   request.pid, std::strerror(open_error));
      return true;
    }
    // An unreadable path or argument vector fails the exec with EFAULT anyway.
    auto path = target.ReadString(call->path, PATH_MAX);
    if (!path) return false;
    // What a relative path starts from, opened only when one is followed
    // (most execs name an absolute path): the exec's directory and the
    // process's working directory (a script's, a #! interpreter's).
    bool gone = false;
    UniqueFd directory, cwd;
    auto opened = [&](UniqueFd& fd, int dirfd) {
      if (!fd.valid() && !gone) {
        fd = target.OpenDirectory(dirfd);
        gone = !IdValid(request.id);
      }
      return gone ? -1 : fd.get();
    };
    auto cwd_fd = [&] { return call->dirfd == AT_FDCWD ? opened(directory, AT_FDCWD) : opened(cwd, AT_FDCWD); };
    bool relative = path->empty() || (*path)[0] != '/';
    auto file = target.Resolve(relative ? opened(directory, call->dirfd) : -1, *path, call->flags);
    if (!file || gone) return false;  // nothing there to run: the exec fails by itself
    list_.Refresh();
    if (IsFront(*file)) return false;
    bool truncated = false;
    auto argv = target.ReadArgv(call->argv, call->pointer_size, kMaxArgBytes, truncated);
    if (!argv) return false;

    // The program, then each `#!` interpreter the kernel would start in turn
    // for it (a script naming a listed program runs it within this exec).
    std::string given = *path;
    std::string exec_name = ExecName(*call, *path);
    std::optional<ExecVerdict> verdict;
    for (int depth = 0; depth <= kMaxInterpreterDepth; ++depth) {
      ExecFacts facts;
      facts.program = {given, file->path, list_.listed().Identify(file->st, Opener(*file))};
      facts.argv = std::move(*argv);
      AddInterpreterInput(target, cwd_fd, *file, facts);
      ExecVerdict decided = DecideExec(list_.matcher(), facts);
      if (decided.refuse) {
        verdict = std::move(decided);
        break;
      }
      auto shebang = ShebangOf(*file);
      if (!shebang) break;
      argv = ShebangArgv(*shebang, exec_name, facts.argv);
      given = shebang->interpreter;
      exec_name = given;
      // The kernel opens it as the process would, from its working directory.
      file = target.Resolve(given[0] == '/' ? -1 : cwd_fd(), given, 0);
      if (!file || IsFront(*file)) break;
    }
    if (!verdict) return false;
    // Its files were opened by pid: valid still, they were the caller's.
    if (!IdValid(request.id)) return false;
    if (RefusedJustNow(request.pid, verdict->command)) return true;
    std::string cwd_path = target.WorkingDirectory();
    bool refused = host_->Refuses(*verdict, file->RealPath(), cwd_path);
    if (refused) recent_[next_recent_++ % recent_.size()] = {request.pid, verdict->command, NowMs()};
    return refused;
  }

  static std::function<UniqueFd()> Opener(const ResolvedFile& file) {
    return [&file] { return file.OpenForReading(); };
  }

  // corral's shell front checks its own text.
  bool IsFront(const ResolvedFile& file) { return !list_.front().Identify(file.st, Opener(file)).empty(); }

  // The `#!` line of a script the kernel would run through an interpreter,
  // read once per version of a file.
  std::optional<Shebang> ShebangOf(const ResolvedFile& file) {
    if (!S_ISREG(file.st.st_mode) || file.st.st_size < 3) return std::nullopt;
    if (const auto* known = shebangs_.Find(file.st)) return *known;
    UniqueFd readable = file.OpenForReading();
    char head[kShebangBytes];
    ssize_t n = readable.valid() ? ::pread(readable.get(), head, sizeof head, 0) : -1;
    if (n < 0) return std::nullopt;  // unreadable (execute-only): not remembered
    auto shebang = n > 2 ? ParseShebang(std::string_view(head, static_cast<std::size_t>(n))) : std::nullopt;
    shebangs_.Keep(file.st, shebang);
    return shebang;
  }

  // The script's name as the kernel gives it to its interpreter: as the
  // exec named it, or /dev/fd/N[/path] for a descriptor.
  static std::string ExecName(const ExecCall& call, const std::string& path) {
    if (path.starts_with("/") || call.dirfd == AT_FDCWD) return path;
    std::string fd = "/dev/fd/" + std::to_string(call.dirfd);
    return path.empty() ? fd : fd + "/" + path;
  }

  // What an interpreter is given to run: a file (found as the interpreter
  // will, from its working directory), the file on its standard input, a
  // module, or code. An interpreter is known by its name and by what its
  // file is (a copy of python under another name is python).
  void AddInterpreterInput(TargetProcess& target, const std::function<int()>& cwd, const ResolvedFile& program,
                           ExecFacts& facts) {
    std::optional<InterpreterInput> input;
    std::string as_interpreter = list_.interpreters().Identify(program.st, Opener(program));
    for (std::string_view name : {BaseName(facts.program.given), BaseName(facts.program.resolved),
                                  std::string_view(as_interpreter)}) {
      if (!name.empty() && (input = InterpreterInputOf(name, facts.argv))) break;
    }
    if (!input) return;
    facts.family = std::string(input->family);
    if (input->module) {
      facts.module = input->Value(facts.argv, *input->module);
      facts.module_index = *input->module;
    }
    if (input->code) {
      facts.code = input->Value(facts.argv, *input->code);
      for (const auto& [name, path] : list_.listed().Paths()) {
        if (facts.code->find(path) != std::string::npos) facts.named_in_code.push_back(name);
      }
    }
    std::string script = input->script ? facts.argv[*input->script] : "/proc/self/fd/0";
    if (!input->script && !input->standard_input) return;
    auto file = target.Resolve(script[0] == '/' ? -1 : cwd(), script, 0);
    if (!file || !S_ISREG(file->st.st_mode)) return;
    std::string listed_as = list_.listed().Identify(file->st, Opener(*file));
    if (!input->script && listed_as.empty()) return;  // an ordinary program on standard input
    facts.script = FileFacts{input->script ? script : "/dev/stdin", file->path, listed_as};
    facts.script_index = input->script ? *input->script : *input->standard_input;
  }

  // execvp tries each PATH folder after EACCES, and python's subprocess
  // does the same: one attempt is one refusal, told to the host once.
  bool RefusedJustNow(std::uint32_t pid, const std::string& command) {
    long now = NowMs();
    for (const Recent& recent : recent_) {
      if (recent.pid == pid && recent.command == command && now - recent.at < kRepeatMs) {
        return true;
      }
    }
    return false;
  }

  struct Recent {
    std::uint32_t pid = 0;
    std::string command;
    long at = 0;
  };

  int listener_;
  SessionList list_;
  std::unique_ptr<HostAnswers> host_;
  std::shared_ptr<ApprovedExecs> approved_;
  std::array<Recent, 16> recent_;
  std::size_t next_recent_ = 0;
  VersionMemo<std::optional<Shebang>> shebangs_;
};

}  // namespace

void SuperviseExecs(UniqueFd listener, const SupervisorSettings& settings,
                    std::unique_ptr<HostAnswers> host, std::shared_ptr<ApprovedExecs> approved) {
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return;
  // The kernel's structure may be larger than this header's: its size, zeroed.
  std::vector<unsigned char> buffer(
      std::max<std::size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  // Linux 6.6: the kernel switches straight between the caller and this
  // thread, on one CPU, instead of two ordinary wake-ups (older: EINVAL, and
  // the ordinary way).
  ::ioctl(listener.get(), kNotifSetFlags, kSyncWakeUp);
  Supervisor supervisor(listener.get(), settings, std::move(host), std::move(approved));
  for (;;) {
    pollfd ready{listener.get(), POLLIN, 0};
    if (::poll(&ready, 1, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (!(ready.revents & POLLIN)) return;  // POLLHUP: every filtered process has ended
    std::fill(buffer.begin(), buffer.end(), 0);
    auto* request = reinterpret_cast<seccomp_notif*>(buffer.data());
    if (::ioctl(listener.get(), SECCOMP_IOCTL_NOTIF_RECV, request) != 0) {
      if (errno == EINTR || errno == ENOENT) continue;  // the caller went away before we read it
      return;
    }
    supervisor.Answer(*request);
  }
}

}  // namespace corral::shim

namespace corral::shim {
namespace {

constexpr long kApprovalMs = 5000;  // a gate execs at once; an older approval is gone

SupervisorSettings BoxSettings() {
  SupervisorSettings settings;
  settings.deny_list_file = Env("CORRAL_DENY_LIST_FILE", "/run/corral/deny-list");
  settings.search_path = Env("PATH", "/usr/local/bin:/usr/bin:/bin");
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string exe = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : "/run/corral/bin/x";
  settings.front_dirs = exe.substr(0, exe.rfind('/')) + ":/usr/lib/corral";
  return settings;
}

std::unique_ptr<HostAnswers> BoxOracle() {
  return OracleAnswers(Env("CORRAL_ORACLE_SOCKET", "/run/corral/oracle.sock"));
}

// The gate's own list and oracle (settings first: the list keeps a reference).
struct GateDecider {
  SupervisorSettings settings = BoxSettings();
  SessionList list{settings};
  std::unique_ptr<HostAnswers> host = BoxOracle();
};

}  // namespace

void ApprovedExecs::Add(pid_t pid) {
  std::lock_guard lock(mutex_);
  approved_.emplace_back(pid, NowMs());
}

bool ApprovedExecs::Take(pid_t pid) {
  std::lock_guard lock(mutex_);
  long now = NowMs();
  std::erase_if(approved_, [&](const auto& a) { return now - a.second > kApprovalMs; });
  auto found = std::find_if(approved_.begin(), approved_.end(),
                            [&](const auto& a) { return a.first == pid; });
  if (found == approved_.end()) return false;
  approved_.erase(found);
  return true;
}

GateDecision MakeGateDecision() {
  auto decider = std::make_shared<GateDecider>();
  return [decider](const std::string& name, const std::string& path,
                   const std::vector<std::string>& argv, const std::string& cwd) {
    decider->list.Refresh();
    if (decider->host->Watching()) return false;
    ExecFacts facts;
    facts.program = {argv.empty() ? path : argv[0], path, name};
    facts.argv = argv.empty() ? std::vector<std::string>{path} : argv;
    ExecVerdict verdict = DecideExec(decider->list.matcher(), facts);
    return verdict.refuse && decider->host->Refuses(verdict, path, cwd);
  };
}

void StartExecSupervisor(UniqueFd listener, std::shared_ptr<ApprovedExecs> approved) {
  std::thread(SuperviseExecs, std::move(listener), BoxSettings(), BoxOracle(), std::move(approved))
      .detach();
}

}  // namespace corral::shim
