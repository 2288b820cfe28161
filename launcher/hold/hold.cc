// The hold: an unattended run in a folder corral does not know waits, listed
// by `corral held` and the inbox, until `corral allow` names its folder (then
// it starts as it would have), the wait ends (exit 75), or a signal comes.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <random>

#include "base/paths.h"
#include "base/report.h"
#include "launcher/hold/hold.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// What changes when the file is replaced: checked every 250 ms, read only then.
struct FileStamp {
  ino_t ino = 0;
  std::int64_t mtime_ns = -1;
  bool operator==(const FileStamp&) const = default;
};
FileStamp Stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {st.st_ino, st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec};
}

// SIGINT, SIGTERM and SIGHUP blocked while waiting, so sigtimedwait is both
// the pause and the way a signal ends the wait; the old mask comes back.
class BlockedSignals {
 public:
  BlockedSignals() {
    sigemptyset(&set_);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set_, sig);
    ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~BlockedSignals() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  int Wait(milliseconds pause) {  // the signal, or 0 after `pause`
    timespec ts{static_cast<time_t>(pause.count() / 1000),
                static_cast<long>(pause.count() % 1000) * 1'000'000};
    int sig = ::sigtimedwait(&set_, nullptr, &ts);
    return sig > 0 ? sig : 0;
  }

 private:
  sigset_t set_{}, old_{};
};

// The record exists exactly while the run waits.
class HeldRecord {
 public:
  HeldRecord(std::string state_dir, std::string id)
      : path_(HeldRecordPath(state_dir, id)) {}
  ~HeldRecord() { ::unlink(path_.c_str()); }

 private:
  std::string path_;
};

std::string RandomId() {
  std::random_device rd;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
  return buf;
}

std::string AllowHint(const std::string& folder) { return "corral allow " + folder; }

Result<HoldResult> Wait(const std::string& state_dir, const std::string& folder,
                        const std::vector<std::string>& asked, int wait_minutes) {
  HoldResult result;
  result.held_since_ms = NowMs();
  result.folder = folder;
  HeldRun run{RandomId(), folder, asked, result.held_since_ms / 1000, static_cast<int>(::getpid()),
              ProcessStart(static_cast<int>(::getpid()))};
  BlockedSignals signals;  // before the record: a Ctrl-C from here on removes it
  HeldRecord record(state_dir, run.id);
  if (auto ok = WriteHeldRecord(state_dir, run); !ok) return ok.error();
  report::Line("corral: held: nobody is watching and corral does not know " + folder +
               "; waiting up to " + std::to_string(wait_minutes) + " minutes for `" +
               AllowHint(folder) + "` (corral held lists waiting runs)");
  const std::string known_path = KnownFoldersPath(state_dir);
  FileStamp seen;  // none: the first look reads it (it may have changed since the caller's)
  // Capped at a year, where the clock's nanoseconds would overflow long after.
  const auto deadline = steady_clock::now() + std::chrono::minutes(std::min(wait_minutes, 525'600));
  while (steady_clock::now() < deadline) {
    if (int sig = signals.Wait(milliseconds(250)); sig != 0) {
      report::Line("corral: stopped while held in " + folder + " (signal " + std::to_string(sig) +
                   ")");
      result.exit_code = 128 + sig;
      return result;
    }
    FileStamp now = Stamp(known_path);
    if (now == seen) continue;
    seen = now;
    auto known = ReadKnownFolders(state_dir);
    if (known && IsKnown(*known, folder)) {
      result.released_at_ms = NowMs();
      report::Line("corral: released: " + folder + " was allowed; starting");
      return result;
    }
  }
  report::Line("corral: not started: held in " + folder + " for " + std::to_string(wait_minutes) +
               " minutes and nobody allowed it; allow it with `" + AllowHint(folder) +
               "` and run again");
  result.exit_code = kExitHeld;
  return result;
}

// How long the check takes (CORRAL_LOG=debug): it is on every run's start path.
struct TimedCheck {
  steady_clock::time_point start = steady_clock::now();
  ~TimedCheck() {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(steady_clock::now() - start);
    log::debug("hold: the folder check (with any wait) took " + std::to_string(us.count()) + " us");
  }
};

}  // namespace

std::function<bool()> AskOnce(std::function<bool()> ask) {
  auto answer = std::make_shared<std::optional<bool>>();
  return [ask = std::move(ask), answer] {
    if (!answer->has_value()) *answer = ask && ask();
    return **answer;
  };
}

Result<HoldResult> HoldIfUnknown(const policy::Policy& policy, const PlanInput& input,
                                 const std::vector<std::string>& asked, const HoldOptions& options,
                                 const std::function<bool()>& watching) {
  TimedCheck timed;
  const std::string cwd = NormalPath(input.cwd);
  const GitLayout git = FindGit(cwd);
  const std::string folder = CanonicalFolder(git.top.empty() ? cwd : git.top);
  auto host = HostFoldersFor(policy, input);
  if (!host) return host.error();
  if (std::string why = NeverAProject(folder, *host); !why.empty()) return Error(why);
  if (!policy.hold.unknown_folders) return HoldResult{};

  const std::string state_dir = policy::StateDir();
  auto known = ReadKnownFolders(state_dir);
  if (!known) return known.error();
  if (IsKnown(*known, folder)) return HoldResult{};
  bool attended = !options.headless && input.tty && watching && watching();
  if (attended) {
    if (options.print_only) return HoldResult{};  // --print runs nothing, so it records nothing
    auto ok = UpdateKnownFolders(state_dir, [&](KnownFolders& k) {
      if (IsKnown(k, folder)) return false;
      k.attended.push_back(folder);
      return true;
    });
    if (!ok) return ok.error().Context("recording " + folder + " as a folder you work in");
    return HoldResult{};
  }
  if (options.print_only) {
    report::Output("held: this run would be held (unattended, and corral does not know " + folder +
                   "): it would wait up to " + std::to_string(policy.hold.wait_minutes) +
                   " minutes for `" + AllowHint(folder) + "`\n");
    return HoldResult{};
  }
  if (policy.hold.wait_minutes <= 0) {
    report::Line("corral: not started: nobody is watching and corral does not know " + folder +
                 " (hold.wait_minutes is 0); allow it with `" + AllowHint(folder) +
                 "` and run again");
    HoldResult refused;
    refused.exit_code = kExitHeld;
    return refused;
  }
  return Wait(state_dir, folder, asked, policy.hold.wait_minutes);
}

}  // namespace corral::launcher
