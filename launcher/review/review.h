// launcher/review/: review mode and undo (docs/sessions.md, "Review mode"
// and "Undo"). In review mode the box works on an overlay of the project:
// the project is the lower layer, read as it is; everything the box writes
// (its commits in .git included) lands in an upper folder of corral's own,
// and at the end becomes branch corral/SESSION in the user's repository.
// Undo puts back, from a content snapshot taken at the start (git objects in
// a repository of corral's own), every file a session changed. Private to
// launcher/.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"

namespace corral::launcher::review {

// Runs git (`args` after "git"), with `env` added ("NAME=value" each) and
// `input` as its stdin; its stdout, or an error naming the command and
// git's first line of stderr.
Result<std::string> Git(const std::vector<std::string>& args, const std::string& input = "",
                        const std::vector<std::string>& env = {});
// Splits NUL-terminated fields.
std::vector<std::string> Fields(const std::string& text);

// ---- the review copy -----------------------------------------------------

// Where a review session keeps its copy: StateDir()/reviews/SESSION.
std::string ReviewDir(const std::string& state_dir, const std::string& session);
// The engine's volume that mounts the overlay.
std::string VolumeName(const std::string& session);

// What a review session knows of the project (review.json in its folder).
struct Copy {
  std::string session, project, agent;
  std::string git_dir;   // the project's .git, absolute
  std::string base;      // HEAD's commit at the start
  std::string head_ref;  // HEAD's branch at the start: refs/heads/...
  std::string dir, upper, work;
  // Once brought back: the branch ("" when the box changed nothing), its tip.
  std::string branch, tip;
  std::string state = "running";  // running | branch | empty | applied | discarded
};
Result<Copy> ReadCopy(const std::string& state_dir, const std::string& session);
// On an engine elsewhere, which cannot mount the overlay, the box works on a
// copy in a volume there, and the network mode's copy-back writes its
// changes into the upper folder and the paths it removed into this file
// (NUL-separated), which BringBack reads beside the upper folder's whiteouts.
std::string RemovedListPath(const Copy& copy);
Result<void> WriteCopy(const Copy& copy);

// Checks that review mode can run on `project` (a git repository's top, on
// a branch, no rebase or merge in progress, not a linked worktree) and makes
// the copy's folders. An error says why not and what to do.
Result<Copy> Prepare(const std::string& state_dir, const std::string& session,
                     const std::string& project, const std::string& agent);
// The local volume driver's options that mount the overlay.
std::map<std::string, std::string> OverlayOptions(const Copy& copy);

// What the box changed among the project's files, read from an overlay's
// upper folder (whiteouts: removed; an opaque folder: its lower contents
// removed). Paths relative to the project, '/'-separated; `.git` skipped.
struct UpperChanges {
  std::vector<std::string> written;  // regular files and symbolic links
  std::vector<std::string> removed;  // removed, with anything under them
  std::vector<std::string> opaque;   // folders whose lower contents are gone
};
Result<UpperChanges> ReadUpper(const std::string& upper);

// A tree as git lists it: path -> "MODE OID".
using TreeEntries = std::map<std::string, std::string>;
// `tree` with `changes` applied: removed and opaque paths taken out (with
// everything below them), each written path set by `written` (path ->
// "MODE OID"), a file that replaces a folder (or the reverse) taking its place.
TreeEntries ApplyChanges(TreeEntries tree, const UpperChanges& changes,
                         const std::map<std::string, std::string>& written);

// The box's HEAD commit, from its .git in the upper folder (a loose ref,
// then packed-refs), else the start's; "" for a branch the box switched to
// that only the project's .git has. Pure: `read` gives a file under
// upper/.git ("" when none).
std::string BoxHead(const Copy& copy, const std::function<std::string(const std::string&)>& read);

// After the box is gone: builds branch corral/SESSION (a suffix when taken)
// in the project from the box's commits plus one for what it left
// uncommitted, authored as the agent; removes the upper folder. Idempotent:
// a copy already brought back returns as it is.
Result<Copy> BringBack(const std::string& state_dir, const std::string& session);
// Review sessions whose box may be gone and whose branch is not made yet.
std::vector<std::string> PendingCopies(const std::string& state_dir);
// Review sessions with a branch to review (applied or not: it stays until
// --discard).
std::vector<Copy> BranchesToReview(const std::string& state_dir);

// The tool on this machine that runs a project file without being asked
// ("Claude Code" for .claude/settings.json), "" for a file none runs: the
// caller's reading of launcher/autorun's table for this project.
using AutoRunTool = std::function<std::string(const std::string& path)>;

// corral review SESSION: the files, the stat and the diff of the branch; the
// auto-run files among them named first.
Result<std::string> Describe(const Copy& copy, const AutoRunTool& auto_run);
// --apply: the branch's changes into the working tree (the index is left
// alone); refused, naming them, when a file changed since the session
// started and is not already as the branch has it. An auto-run file is held
// back, and named, unless `paths` names it; with `paths`, only those files.
struct ApplyChoice {
  std::vector<std::string> paths;  // as the branch names them; empty: all
  AutoRunTool auto_run;
};
Result<std::vector<std::string>> Apply(const std::string& state_dir, Copy& copy,
                                       const ApplyChoice& choice);
// --discard: deletes the branch.
Result<std::vector<std::string>> Discard(Copy& copy);

// The end line: "the agent's work is on branch corral/ID: corral review ID".
std::string BranchLine(const Copy& copy);

// ---- snapshots and undo ----------------------------------------------------

// A tree of every file in `project` (not ignored ones), in a repository of
// corral's own (StateDir()/snapshots/SESSION.git, which borrows the
// project's objects); returns its id. `name`: "before" or "after",
// kept in snapshots/SESSION.json.
Result<std::string> SnapshotTree(const std::string& state_dir, const std::string& session,
                                 const std::string& project, const std::string& name);
// corral undo: each file that differs between the session's before and
// after trees is put back as it was before; refused, naming them, for files
// changed since the session ended, unless `force`. Lines for the user.
Result<std::vector<std::string>> Undo(const std::string& state_dir, const std::string& session,
                                      bool force);

}  // namespace corral::launcher::review
