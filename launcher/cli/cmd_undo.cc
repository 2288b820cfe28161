// corral undo SESSION: every file a session changed, put back as it was when
// it started, from the snapshot taken then (docs/sessions.md, "Undo").
#include <filesystem>
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/review/review.h"

namespace corral::cli {
namespace {

struct UndoOptions {
  std::string session;
  bool force = false;
};

// The session `typed` names among those with a snapshot: its id or a unique prefix.
Result<std::string> FindSnapshot(const std::string& typed) {
  std::string found;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(policy::StateDir() + "/snapshots", ec)) {
    std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json") continue;
    std::string id = name.substr(0, name.size() - 5);
    if (id == typed) return id;
    if (id.rfind(typed, 0) != 0) continue;
    if (!found.empty()) {
      return Error(typed + " names more than one session; give more of its id (corral report "
                           "names the last one)");
    }
    found = id;
  }
  if (found.empty()) {
    return Error("no snapshot of session " + typed + " (corral takes one when a session starts)");
  }
  return found;
}

int Undo(const UndoOptions& options) {
  auto session = FindSnapshot(options.session);
  if (!session) return Fail(session.error(), kExitRefused);
  auto done = launcher::review::Undo(policy::StateDir(), *session, options.force);
  if (!done) return Fail(done.error(), kExitRefused);
  for (const auto& line : *done) std::cout << line << "\n";
  return kExitOk;
}

}  // namespace

void AddUndoCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<UndoOptions>();
  CLI::App* sub = app.add_subcommand(
      "undo", "Put back every file a session changed, as it was when the session started");
  sub->add_option("SESSION", options->session, "The session (its id, or a unique prefix)")
      ->required();
  sub->add_flag("--force", options->force,
                "Also put back files changed after the session ended (those changes are lost)");
  sub->footer(
      "When a session starts, corral keeps a snapshot of the project's files (not\n"
      "the ignored ones) as git objects in its state folder, and another when it\n"
      "ends. undo puts back each file that differs between the two, and removes\n"
      "the files the session made. A file changed again after the session ended is\n"
      "refused (named) unless --force. Commits the session made stay; only files\n"
      "are put back. Works in any folder, git repository or not.\n"
      "Exit status: 0 done; 1 no such session, or refused; 2 bad flags.\n"
      "Examples:\n"
      "  corral undo 3f2a9c1b0d4e\n"
      "  corral undo 3f2a --force\n");
  sub->callback([options, &globals] { globals.exit_code = Undo(*options); });
}

}  // namespace corral::cli
