// corral review: what a boxed session changed among the project's auto-run
// files, held aside at its end (docs/sessions.md, "Auto-run files held for
// review"). Each kind of thing to review is one row of kReviewModes; a later
// mode (a git branch) adds a row.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "launcher/autorun/autorun.h"
#include "launcher/cli/cli.h"

namespace corral::cli {
namespace {

namespace autorun = launcher::autorun;

struct ReviewOptions {
  std::string session;
  std::vector<std::string> paths;
  bool apply = false, discard = false, force = false, no_pager = false, json = false;
};

int ReviewList(const ReviewOptions& options) {
  auto reports = autorun::HeldSessions(policy::StateDir());
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& report : reports) {
      nlohmann::json event = autorun::HeldEvent(report);
      event["project"] = report.project;
      out.push_back(std::move(event));
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (reports.empty()) {
    std::cout << "No session holds files for review.\n";
    return kExitOk;
  }
  for (const auto& report : reports) {
    std::cout << "session " << report.session << " in " << report.project << "\n";
    for (const auto& held : report.held) {
      std::cout << "  " << held.shown << " (" << autorun::ChangeName(held.change) << ")\n";
    }
    for (const auto& error : report.errors) std::cout << "  not put back: " << error << "\n";
  }
  std::cout << "\nto see one: corral review SESSION\n";
  return kExitOk;
}

// The held session `typed` names: its id or a unique prefix of it.
Result<std::string> FindHeldSession(const std::string& typed) {
  std::string found;
  for (const auto& report : autorun::HeldSessions(policy::StateDir())) {
    if (report.session.rfind(typed, 0) != 0) continue;
    if (report.session == typed) return typed;
    if (!found.empty()) {
      return Error(typed + " names more than one session; give more of its id (corral review lists them)");
    }
    found = report.session;
  }
  if (found.empty()) {
    return Error("session " + typed + " holds no files for review (corral review lists those that do)");
  }
  return found;
}

// Through the user's pager when stdout is a terminal, as git does.
void Page(const std::string& text, bool no_pager) {
  const char* pager = std::getenv("PAGER");
  if (no_pager || !::isatty(STDOUT_FILENO) || (pager && std::string(pager).empty())) {
    std::cout << text;
    return;
  }
  char path[] = "/tmp/corral-review-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0 || !WriteAll(fd, text.data(), text.size())) {
    if (fd >= 0) ::close(fd);
    std::cout << text;
    return;
  }
  ::close(fd);
  ::setenv("LESS", "FRX", 0);
  std::cout.flush();
  std::string command = std::string(pager ? pager : "less") + " \"$1\"";
  auto pid = Spawn({"sh", "-c", command, "sh", path}, {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO});
  int status = 0;
  if (!pid || ::waitpid(*pid, &status, 0) < 0 || WaitStatusCode(status) == 127) {
    std::cout << text;
  }
  ::unlink(path);
}

int ReviewShow(const std::string& session, const ReviewOptions& options) {
  auto report = autorun::ReadReport(policy::StateDir(), session);
  if (!report) return Fail(report.error(), kExitRefused);
  std::string text = "session " + session + " in " + (*report)->project +
                     ": the box's changes to files a tool on this machine runs without asking.\n"
                     "This machine kept its own versions. To take the box's: corral review " +
                     session + " --apply [PATH...]; to drop them: --discard [PATH...]\n\n";
  for (const auto& error : (*report)->errors) text += "not put back: " + error + "\n";
  for (const auto& held : (*report)->held) {
    bool named = options.paths.empty();
    for (const auto& path : options.paths) named = named || path == held.shown || path == held.path;
    if (named) text += autorun::Diff(policy::StateDir(), **report, held);
  }
  Page(text, options.no_pager);
  return kExitOk;
}

int ReviewHeldFiles(const ReviewOptions& options) {
  if (options.session.empty()) return ReviewList(options);
  auto session = FindHeldSession(options.session);
  if (!session) return Fail(session.error(), kExitRefused);
  if (!options.apply && !options.discard) return ReviewShow(*session, options);
  auto done = autorun::Decide(policy::StateDir(), *session, options.paths,
                              options.apply ? autorun::Decision::kApply : autorun::Decision::kDiscard,
                              options.force);
  if (!done) return Fail(done.error(), kExitRefused);
  for (const auto& line : *done) std::cout << line << "\n";
  return kExitOk;
}

}  // namespace

void AddReviewCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<ReviewOptions>();
  CLI::App* sub = app.add_subcommand(
      "review", "Review the auto-run files a boxed session changed (held at its end)");
  sub->add_option("SESSION", options->session, "The session (its id, or a unique prefix)");
  sub->add_option("PATH", options->paths, "Only these held files (as listed)");
  auto* apply = sub->add_flag("--apply", options->apply,
                              "Put the box's version in place (refused when this machine's file "
                              "changed since the session ended, unless --force)");
  auto* discard = sub->add_flag("--discard", options->discard,
                                "Drop the box's version; this machine's stays");
  apply->excludes(discard);
  sub->add_flag("--force", options->force, "With --apply: replace a file changed since the hold");
  sub->add_flag("--no-pager", options->no_pager, "Print the changes, never through $PAGER");
  sub->add_flag("--json", options->json, "With no SESSION: the sessions holding files, as JSON");
  sub->footer(
      "A file that a tool on this machine runs without asking (git hooks, an agent's\n"
      "settings with hooks, .mcp.json, .vscode/tasks.json, ...; docs/sessions.md has the\n"
      "table) is read-only in the box; one the box creates, changes or removes anyway is\n"
      "put back as it was when the session ends, and the box's version is kept here.\n"
      "Exit status: 0 done; 1 nothing held for that session, or --apply refused;\n"
      "2 bad flags.\n"
      "Examples:\n"
      "  corral review                                  (sessions holding files)\n"
      "  corral review 3f2a9c1b0d4e                     (the changes, through $PAGER)\n"
      "  corral review 3f2a --apply .claude/settings.json\n"
      "  corral review 3f2a --discard\n");
  sub->callback([options, &globals] { globals.exit_code = ReviewHeldFiles(*options); });
}

}  // namespace corral::cli
