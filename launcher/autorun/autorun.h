// launcher/autorun/: the project's files that a tool on the host runs, or
// uses to pick a program to run, without the user asking (one table,
// autorun_table.cc). A boxed session snapshots them at its start (each one
// read-only in the box), compares them when the box is gone, and holds every
// difference aside for `corral review`: the host keeps its previous version.
// Private to launcher/; depends on base/ and policy/ (the inbox) only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"

namespace corral::launcher::autorun {

// ---------------------------------------------------------------- the table

// Where a row's pattern starts.
enum class Root {
  kProject,   // the project's top folder
  kRepo,      // the repository git uses: .git, or a worktree's main .git
  kGitDir,    // a worktree's own gitdir (.git/worktrees/NAME); none otherwise
  kWorktree,  // the project's top, only when it is a worktree (.git is a file)
  kHooksPath, // the folder core.hooksPath names, when inside the project
};

// One row: `pattern` is relative to its root; `*` matches one path
// component; a trailing `/` means a folder and everything in it. A row that
// is not held says why in `reason` (the docs list it too).
struct Row {
  Root root;
  std::string_view pattern;
  std::string_view tool;
  std::string_view reason;
  bool held = true;
};
const std::vector<Row>& Table();

// Whether `path` (relative, no leading '/') is `pattern` or, for a folder
// pattern, inside it.
bool Matches(std::string_view pattern, std::string_view path);

// The core.hooksPath values set in a git config text (read as text, never
// by running git), last one last.
std::vector<std::string> HooksPaths(std::string_view git_config_text);

// The folders the table's roots stand for in one project; "" when absent.
struct Roots {
  std::string project;
  std::string repo;         // .git (a folder), or a worktree's common dir
  std::string git_dir;      // a worktree's own gitdir, else ""
  bool worktree = false;
  std::vector<std::string> git_configs;  // config texts that may set core.hooksPath
};

// One pattern made absolute: `base` (a folder) plus `pattern` under it.
struct Watch {
  std::string base;
  std::string pattern;
  std::string tool;
};
// Each held row of the table for these roots (core.hooksPath resolved, one
// outside the project left out: the box cannot write there).
std::vector<Watch> Watches(const Roots& roots);

// ------------------------------------------------------ snapshot and compare

enum class Kind { kFile, kFolder, kLink, kOther };
std::string_view KindName(Kind kind);

// One path as found, never following a symlink.
struct Node {
  std::string base;  // the Watch's base
  std::string path;  // relative to base
  Kind kind = Kind::kFile;
  unsigned mode = 0;         // permission bits
  std::string link;          // a link's target
  std::string content;       // a file's bytes (only while comparing)
  enum Role { kOnTheWay, kMatch, kInside } role = kMatch;
  std::string Absolute() const { return base + "/" + path; }
};

// Every path the watches cover as it is now: the folders on the way to each
// pattern, each match, and everything inside a matching folder, none through
// a symlink. A path that cannot be read is an error naming it (at the
// start, the session does not start). At most `limit` paths.
Result<std::vector<Node>> ReadWatched(const std::vector<Watch>& watches,
                                      std::size_t limit = 20000);

// The paths to make read-only in the box: each watched path that exists now
// and is not a symlink (a folder once, not its contents), and the target of a
// symlink when that lies inside `project` (what the host would follow).
std::vector<std::string> ReadOnlyPaths(const std::vector<Node>& nodes, const std::string& project);

// Whether two readings of a path are the same (a file: bytes and mode).
bool Same(const Node& a, const Node& b);

// ReadOnlyPaths of what the table watches in `roots` now; an error naming
// a path that cannot be read (the session must not start).
Result<std::vector<std::string>> ReadOnlyAtStart(const Roots& roots);

// How one held path differs from the session's start.
enum class Change { kNew, kChanged, kRemoved, kKindChanged };
std::string_view ChangeName(Change change);

struct Held {
  std::string base, path;    // where it is
  std::string shown;         // relative to the project, or absolute outside it
  Change change = Change::kChanged;
  std::optional<Node> start;  // the host's version (content in the state folder)
  std::optional<Node> box;    // the box's version
};

// The differences between two readings, in path order. Folders that only
// the end has are not differences (they run nothing): they are listed apart,
// to be removed when empty.
struct Differences {
  std::vector<Held> held;
  std::vector<Node> new_folders;
};
Differences Compare(const std::vector<Node>& start, const std::vector<Node>& end,
                    const std::string& project);

// Puts every held path back as it was at the start (removing what the box
// made there, its new folders only when empty and not in `keep_folders`),
// never following a symlink the box planted. One line per path that could
// not be put back, saying which file is in which state.
std::vector<std::string> Restore(const Differences& differences,
                                 const std::vector<std::string>& keep_folders);

// Writes `node` (file, link or folder) at base/path, replacing what is there
// (a file or a link; a folder only when empty), parents made as folders,
// never through a symlink.
Result<void> PutNode(const Node& node);
// Removes base/path when it is a file, a link, or an empty folder.
Result<void> RemoveNode(const std::string& base, const std::string& path);
// The node at base/path now (absent: nullopt), without following a symlink.
Result<std::optional<Node>> ReadNode(const std::string& base, const std::string& path);

// ----------------------------------------------------------- the session

// STATE_DIR/sessions/ID.autorun: snapshot.json, start/ (the host's
// versions), box/ (the box's versions), held.json once compared.
std::string SessionFolder(const std::string& state_dir, const std::string& session_id);

// At the start of a boxed session, before the box: reads every watched path
// and keeps it in the session's folder. Fails (the session must not start)
// when one cannot be read. `keep_folders`: mount points corral makes and
// removes itself, never removed here. Returns the paths to mount read-only.
struct Started {
  std::vector<std::string> read_only;
};
Result<Started> TakeSnapshot(const std::string& state_dir, const std::string& session_id,
                             const Roots& roots, const std::vector<std::string>& keep_folders);

// What the end step found and did.
struct Report {
  std::string session, project;
  std::vector<Held> held;
  std::vector<std::string> errors;  // restore failures: which file, which state
  bool compared = false;            // false: no snapshot (unboxed, or done before)
};

// Once the box is gone: compares every watched path with the snapshot, keeps
// the box's version of each difference, restores the host's, and writes
// held.json. Run once per session (a lock; again it returns what it found
// the first time). No snapshot: an empty report.
Result<Report> EndSession(const std::string& state_dir, const std::string& session_id);

// held.json of a session (compared, not yet reviewed away), or nullopt.
Result<std::optional<Report>> ReadReport(const std::string& state_dir,
                                         const std::string& session_id);
// Sessions with a snapshot not yet compared (killed, kept copy-back).
std::vector<std::string> PendingSessions(const std::string& state_dir);
// Sessions with held files, oldest first.
std::vector<Report> HeldSessions(const std::string& state_dir);

// The record's event for a report (docs/events.md, "autorun_held").
nlohmann::json HeldEvent(const Report& report);
// "held for review: .claude/settings.json (new), .mcp.json (changed): corral
// review ID", or "" when nothing is held.
std::string HeldLine(const Report& report);
// One inbox item per held path (kind "held").
void AddToInbox(const std::string& state_dir, const Report& report, const std::string& agent);
// The end step for a session whose corral is gone (the reaper, corral stop):
// EndSession, then the event appended to the session record and the inbox.
Result<Report> EndSessionAndRecord(const std::string& state_dir, const std::string& session_id);

// ------------------------------------------------------------ corral review

// A unified diff of one held path, host's version against the box's.
std::string Diff(const std::string& state_dir, const Report& report, const Held& held);

// Applies (puts the box's version in place) or discards the held paths
// named (all when `paths` is empty). Apply refuses a path whose host file
// changed since the hold unless `force`. Returns one line per path done.
enum class Decision { kApply, kDiscard };
Result<std::vector<std::string>> Decide(const std::string& state_dir, const std::string& session,
                                        const std::vector<std::string>& paths, Decision decision,
                                        bool force);

}  // namespace corral::launcher::autorun
