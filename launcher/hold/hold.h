// launcher/hold/: where a run may start (docs/sessions.md, "Held runs").
// Folders that are never a project; the folders corral knows (allowed by
// name, or where an attended session started), kept in corral's state folder
// and never read from a project; and the hold: an unattended run in a folder
// corral does not know waits until it is allowed. Private to launcher/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/base.h"
#include "launcher/session_plan.h"
#include "policy/config/config.h"

namespace corral::launcher {

// ------------------------------------------------------------ never a project

// The folders a project may not be, nor hold, each with whose it is.
struct HostFolders {
  std::string home;        // $HOME: it and every folder above it
  std::string config_dir;  // corral's
  std::string state_dir;   // corral's
  struct Named {
    std::string path;
    std::string whose;  // "claude's settings"
  };
  std::vector<Named> agent_settings;  // from the agents' recipes
};
// This host's: $HOME, corral's folders, and every recipe's settings folders
// (its `folder_variable` when set to a full path).
Result<HostFolders> HostFoldersFor(const policy::Policy& policy, const PlanInput& input);

// "" when `folder` may be a project; else one line naming it and why. Paths
// are compared as written and with links resolved (a link to $HOME is $HOME).
std::string NeverAProject(const std::string& folder, const HostFolders& host);

// realpath(3) when the path exists, else the lexically normal path.
std::string CanonicalFolder(const std::string& path);

// ------------------------------------------------------------ known folders

struct KnownFolders {
  std::vector<std::string> allowed;   // `corral allow DIR`: DIR and all inside it
  std::vector<std::string> attended;  // an attended session started in exactly this folder
};
bool IsKnown(const KnownFolders& known, const std::string& folder);

// <state_dir>/known-folders.json; none yet is empty.
std::string KnownFoldersPath(const std::string& state_dir);
Result<KnownFolders> ReadKnownFolders(const std::string& state_dir);
// Reads, lets `change` edit, and writes back (atomically, under a lock) when it
// returns true.
Result<void> UpdateKnownFolders(const std::string& state_dir,
                                const std::function<bool(KnownFolders&)>& change);

// ------------------------------------------------------------ held runs

// <state_dir>/held/<id>.json while a run waits.
struct HeldRun {
  std::string id;
  std::string folder;
  std::vector<std::string> command;  // the words after `corral run`
  std::int64_t since = 0;            // seconds since the epoch
  int pid = 0;
  std::string pid_start;  // /proc/PID/stat's start time: a reused pid is not this run
};
std::string HeldRecordPath(const std::string& state_dir, const std::string& id);
Result<void> WriteHeldRecord(const std::string& state_dir, const HeldRun& run);
// /proc/PID/stat's start time, "" when there is no such process.
std::string ProcessStart(int pid);
// The waiting runs, oldest first; records of runs no longer alive are removed.
Result<std::vector<HeldRun>> ListHeld(const std::string& state_dir);
// "corral run claude in ~/scratch, since 03:12".
std::string DescribeHeld(const HeldRun& run, const std::string& home, std::int64_t now);
// "~/scratch" for a folder under `home`.
std::string Tilde(const std::string& path, const std::string& home);

// The hold's answer. `exit_code` set: the run ends here (75 when nobody
// allowed the folder in time, 128+N after signal N). The times are for the
// session record: zero when the run was not held.
struct HoldResult {
  std::optional<int> exit_code;
  std::int64_t held_since_ms = 0;   // since the epoch
  std::int64_t released_at_ms = 0;  // 0 when it was not released
  std::string folder;               // the folder it was held in, when held
};
inline constexpr int kExitHeld = 75;  // EX_TEMPFAIL: allow the folder and run again

// At the start of every run: refuses a folder that is never a project (an
// error); an attended run records its folder as known; an unattended one in a
// folder corral does not know waits for `corral allow` (or, with --print,
// says it would). `asked` is the command as the user gave it; `watching` is
// asked only when the folder is unknown.
struct HoldOptions {
  bool headless = false;    // corral run --headless: never attended
  bool print_only = false;  // corral run --print: says, waits for nothing, records nothing
};
Result<HoldResult> HoldIfUnknown(const policy::Policy& policy, const PlanInput& input,
                                 const std::vector<std::string>& asked, const HoldOptions& options,
                                 const std::function<bool()>& watching);

// `ask` called at most once, the first time the answer is needed.
std::function<bool()> AskOnce(std::function<bool()> ask);

}  // namespace corral::launcher
