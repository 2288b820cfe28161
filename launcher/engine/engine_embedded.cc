#include "base/report.h"
#include "launcher/engine/engine.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace corral::launcher {
namespace {

constexpr int kAnswerWithinSeconds = 30;  // a first start creates its storage
constexpr int kReaperGraceSeconds = 60;   // corral died: the reaper's time
constexpr int kStopGraceMs = 5000;        // SIGTERM, then SIGKILL

using Clock = std::chrono::steady_clock;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// SIGTERM, then SIGKILL when it is still there after the grace time.
void StopService(pid_t service) {
  ::kill(service, SIGTERM);
  auto until = Clock::now() + std::chrono::milliseconds(kStopGraceMs);
  while (Clock::now() < until) {
    if (::waitpid(service, nullptr, WNOHANG) == service) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(service, SIGKILL);
  ::waitpid(service, nullptr, 0);
}

[[noreturn]] void ExecService(const std::string& podman, const std::string& socket, int log) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the keeper gone: so is the service
  int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ::dup2(null, STDIN_FILENO);
  ::dup2(log, STDOUT_FILENO);
  ::dup2(log, STDERR_FILENO);
  CloseInheritedDescriptors();
  ::execl(podman.c_str(), "podman", "system", "service", "--time=0",
          ("unix://" + socket).c_str(), static_cast<char*>(nullptr));
  std::fprintf(stderr, "cannot run %s: %s\n", podman.c_str(), std::strerror(errno));
  ::_exit(127);
}

// The keeper (base/keeper.h) runs the service until corral says it is done or dies.
[[noreturn]] void KeeperMain(int done, const std::string& podman, const std::string& dir,
                             const std::string& session_dir) {
  int log = ::open((dir + "/podman.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  CloseInheritedDescriptors({done, log});
  pid_t service = ::fork();
  if (service == 0) ExecService(podman, dir + "/podman.sock", log);
  if (service < 0) ::_exit(1);
  for (;;) {
    pollfd p{done, POLLIN, 0};
    int ready = ::poll(&p, 1, 1000);
    if (::waitpid(service, nullptr, WNOHANG) == service) ::_exit(1);  // it ended by itself
    if (ready <= 0) continue;
    if (!ParentDone(done)) {
      // corral died: let the reaper remove the box through the service first.
      auto until = Clock::now() + std::chrono::seconds(kReaperGraceSeconds);
      while (Exists(session_dir) && Clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
      StopService(service);
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      ::_exit(0);
    }
    StopService(service);
    ::_exit(0);
  }
}

std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

Result<std::shared_ptr<EmbeddedPodman>> EmbeddedPodman::Start(const std::string& podman,
                                                              const std::string& dir,
                                                              const std::string& session_dir,
                                                              const std::string& tried) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || ::chmod(dir.c_str(), 0700) != 0) {
    return Error("cannot create " + dir + " for the session's podman service: " + ec.message());
  }
  std::string socket = dir + "/podman.sock";
  auto endpoint = ParseEndpoint("unix://" + socket, "embedded podman");
  if (!endpoint) return endpoint.error();
  auto keeper = Keeper::Start(
      {SIGINT, SIGHUP, SIGPIPE}, [&](int done) { KeeperMain(done, podman, dir, session_dir); },
      "cannot start podman system service");
  if (!keeper) return keeper.error();
  std::shared_ptr<EmbeddedPodman> service(new EmbeddedPodman());
  service->endpoint_ = *endpoint;
  service->dir_ = dir;
  service->keeper_ = std::move(*keeper);
  report::Line("corral: no container engine answered (" + tried +
               "); running podman system service for this session on " + endpoint->url +
               " until it ends");
  auto until = Clock::now() + std::chrono::seconds(kAnswerWithinSeconds);
  for (;;) {
    if (Exists(socket)) {
      auto ping = HttpRequest(*endpoint, "GET", "/_ping", "", 2000);
      if (ping && ping->status == 200) return service;
    }
    if (service->keeper_.Ended()) {
      return Error("podman system service stopped at once: " + LastLine(dir + "/podman.log") +
                   " (check podman's setup: podman info)");
    }
    if (Clock::now() > until) {
      return Error("podman system service did not answer on " + endpoint->url + " within " +
                   std::to_string(kAnswerWithinSeconds) + " s: " + LastLine(dir + "/podman.log"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

EmbeddedPodman::~EmbeddedPodman() {
  keeper_.Done();
  keeper_.Wait();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

}  // namespace corral::launcher
