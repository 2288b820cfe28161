// The reaper: a detached process that outlives a SIGKILLed corral just long
// enough to remove its box. Together with the shim's watchdog, the box is
// gone within seconds whichever way corral ends.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// A few tries: the engine may still be making what is to be removed.
// False when it never took the request.
bool SendUntilDone(const Endpoint& endpoint, const std::string& method, const std::string& path) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto response = HttpRequest(endpoint, method, path, "", 5000);
    if (response && (response->status < 300 || response->status == 404)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

[[noreturn]] void ReaperMain(int pipe_read, const Endpoint& endpoint, const std::string& name,
                             const std::string& session_dir, const std::vector<ApiCall>& then,
                             const std::vector<HostMountPoint>& made,
                             const std::string& hold_session) {
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
  CloseInheritedDescriptors({pipe_read});
  if (ParentDone(pipe_read)) ::_exit(0);
  // corral is gone without cleaning up: remove the box, then what the
  // session made. A container the engine was still making when corral died
  // answers its DELETE with 404 and appears afterwards, holding the
  // session's volumes: so, when anything could not go, a second round.
  auto round = [&] {
    bool all = SendUntilDone(endpoint, "DELETE", "/containers/" + name + "?force=true");
    for (const ApiCall& call : then) all = SendUntilDone(endpoint, call.method, call.path) && all;
    return all;
  };
  // The mount points corral made, only once the box is surely gone: one
  // removed under a box that still runs would be unmounted in it.
  if (round() || round()) {
    // The box is surely gone: what it wrote to the auto-run files is held,
    // before the mount points go (one is never removed by the hold).
    if (!hold_session.empty()) (void)HoldAutorunFiles(hold_session);
    RemoveIfEmpty(made);
  }
  std::error_code ec;
  std::filesystem::remove_all(session_dir, ec);
  ::_exit(0);
}

}  // namespace

Result<Reaper> Reaper::Start(const Endpoint& endpoint, const std::string& container_name,
                             const std::string& session_dir, const std::vector<ApiCall>& then,
                             const std::vector<HostMountPoint>& made,
                             const std::string& hold_session) {
  auto keeper = Keeper::Start(
      {SIGINT, SIGTERM, SIGHUP, SIGPIPE},
      [&](int done) {
        ReaperMain(done, endpoint, container_name, session_dir, then, made, hold_session);
      },
      "reaper", "reaper pipe");
  if (!keeper) return keeper.error();
  Reaper reaper;
  reaper.keeper_ = std::move(*keeper);
  return reaper;
}

void Reaper::Done() { keeper_.Done(); }

// Not done: the reaper reads EOF and removes the box.
Reaper::~Reaper() = default;

}  // namespace corral::launcher
