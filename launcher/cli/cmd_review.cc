// corral review: what a boxed session left for review. Each kind of thing
// to review is one row of kReviewModes: the auto-run files held aside at a
// session's end (docs/sessions.md, "Auto-run files held for review"), and a
// review session's branch (docs/sessions.md, "Review mode").
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "launcher/autorun/autorun.h"
#include "launcher/cli/cli.h"
#include "launcher/plan/plan.h"
#include "launcher/review/review.h"

namespace corral::cli {
namespace {

namespace autorun = launcher::autorun;

struct ReviewOptions {
  std::string session;
  std::vector<std::string> paths;
  bool apply = false, discard = false, force = false, no_pager = false, json = false;
};

// The held auto-run files: as JSON items, and as lines.
void ListHeldFiles(nlohmann::json& out, std::string& text) {
  auto reports = autorun::HeldSessions(policy::StateDir());
  for (const auto& report : reports) {
    nlohmann::json event = autorun::HeldEvent(report);
    event["project"] = report.project;
    out.push_back(std::move(event));
  }
  std::ostringstream lines;
  for (const auto& report : reports) {
    lines << "session " << report.session << " in " << report.project << "\n";
    for (const auto& held : report.held) {
      lines << "  " << held.shown << " (" << autorun::ChangeName(held.change) << ")\n";
    }
    for (const auto& error : report.errors) lines << "  not put back: " << error << "\n";
  }
  text += lines.str();
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

std::vector<std::string> HeldFileSessions() {
  std::vector<std::string> ids;
  for (const auto& report : autorun::HeldSessions(policy::StateDir())) ids.push_back(report.session);
  return ids;
}

int ActOnHeldFiles(const std::string& session, const ReviewOptions& options) {
  if (!options.apply && !options.discard) return ReviewShow(session, options);
  auto done = autorun::Decide(policy::StateDir(), session, options.paths,
                              options.apply ? autorun::Decision::kApply : autorun::Decision::kDiscard,
                              options.force);
  if (!done) return Fail(done.error(), kExitRefused);
  for (const auto& line : *done) std::cout << line << "\n";
  return kExitOk;
}

// The auto-run table (launcher/autorun/) as it reads for `project` now:
// core.hooksPath from its git config and the user's.
launcher::review::AutoRunTool AutoRunToolIn(const std::string& project) {
  const char* home = std::getenv("HOME");
  auto watches =
      autorun::Watches(launcher::AutorunRoots(project, home ? home : ""));
  return [project, watches](const std::string& path) {
    for (const auto& watch : watches) {
      if (watch.base == project && autorun::Matches(watch.pattern, path)) return watch.tool;
    }
    return std::string();
  };
}

// A review session's branch (launcher/review/).
void ListBranches(nlohmann::json& out, std::string& text) {
  for (const auto& copy : launcher::review::BranchesToReview(policy::StateDir())) {
    out.push_back({{"event", "review_branch"}, {"session", copy.session},
                   {"project", copy.project}, {"branch", copy.branch}, {"tip", copy.tip},
                   {"base", copy.base}, {"state", copy.state}});
    text += "session " + copy.session + " in " + copy.project + "\n  branch " + copy.branch +
            " (review mode: the agent's work" + (copy.state == "applied" ? ", applied" : "") +
            ")\n";
  }
}

std::vector<std::string> BranchSessions() {
  std::vector<std::string> ids;
  for (const auto& copy : launcher::review::BranchesToReview(policy::StateDir())) {
    ids.push_back(copy.session);
  }
  return ids;
}

int ActOnBranch(const std::string& session, const ReviewOptions& options) {
  namespace review = launcher::review;
  auto copy = review::ReadCopy(policy::StateDir(), session);
  if (!copy) return Fail(copy.error(), kExitRefused);
  if (!options.apply && !options.discard) {
    auto text = review::Describe(*copy, AutoRunToolIn(copy->project));
    if (!text) return Fail(text.error(), kExitRefused);
    Page(*text, options.no_pager);
    return kExitOk;
  }
  auto done = options.apply ? review::Apply(policy::StateDir(), *copy,
                                            {options.paths, AutoRunToolIn(copy->project)})
                            : review::Discard(*copy);
  if (!done) return Fail(done.error(), kExitRefused);
  for (const auto& line : *done) std::cout << line << "\n";
  return kExitOk;
}

// One row per kind of thing a session leaves for review.
struct ReviewMode {
  void (*list)(nlohmann::json& out, std::string& text);
  std::vector<std::string> (*sessions)();
  int (*act)(const std::string& session, const ReviewOptions& options);
};
const ReviewMode kReviewModes[] = {
    {ListHeldFiles, HeldFileSessions, ActOnHeldFiles},
    {ListBranches, BranchSessions, ActOnBranch},
};

int ReviewList(const ReviewOptions& options) {
  nlohmann::json out = nlohmann::json::array();
  std::string text;
  for (const auto& mode : kReviewModes) mode.list(out, text);
  if (options.json) {
    std::cout << out.dump(2) << "\n";
  } else if (text.empty()) {
    std::cout << "No session holds files or a branch for review.\n";
  } else {
    std::cout << text << "\nto see one: corral review SESSION\n";
  }
  return kExitOk;
}

int Review(const ReviewOptions& options) {
  if (options.session.empty()) return ReviewList(options);
  // The session `options.session` names: its id or a unique prefix of it.
  std::set<std::string> found;
  for (const auto& mode : kReviewModes) {
    for (const auto& id : mode.sessions()) {
      if (id == options.session) found = {id};
      if (id.rfind(options.session, 0) == 0 && !found.count(options.session)) found.insert(id);
    }
  }
  if (found.size() > 1) {
    return Fail(Error(options.session + " names more than one session; give more of its id "
                                        "(corral review lists them)"),
                kExitRefused);
  }
  if (found.empty()) {
    return Fail(Error("session " + options.session + " holds no files or branch for review "
                                                     "(corral review lists those that do)"),
                kExitRefused);
  }
  const std::string session = *found.begin();
  int code = kExitOk;
  for (const auto& mode : kReviewModes) {
    auto ids = mode.sessions();
    if (std::find(ids.begin(), ids.end(), session) == ids.end()) continue;
    code = std::max(code, mode.act(session, options));
  }
  return code;
}

}  // namespace

void AddReviewCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<ReviewOptions>();
  CLI::App* sub = app.add_subcommand(
      "review",
      "Review what a boxed session left: the auto-run files held at its end, or a review "
      "session's branch");
  sub->add_option("SESSION", options->session, "The session (its id, or a unique prefix)");
  sub->add_option("PATH", options->paths,
                  "Only these held files (as listed), or these files of a branch");
  auto* apply = sub->add_flag("--apply", options->apply,
                              "Put the box's version in place (refused when this machine's file "
                              "changed since the session ended, unless --force); a branch: its "
                              "changes into the working tree, refused when they conflict");
  auto* discard = sub->add_flag("--discard", options->discard,
                                "Drop the box's version; this machine's stays (a branch: deleted)");
  apply->excludes(discard);
  sub->add_flag("--force", options->force, "With --apply: replace a file changed since the hold");
  sub->add_flag("--no-pager", options->no_pager, "Print the changes, never through $PAGER");
  sub->add_flag("--json", options->json, "With no SESSION: the sessions holding files, as JSON");
  sub->footer(
      "A file that a tool on this machine runs without asking (git hooks, an agent's\n"
      "settings with hooks, .mcp.json, .vscode/tasks.json, ...; docs/sessions.md has the\n"
      "table) is read-only in the box; one the box creates, changes or removes anyway is\n"
      "put back as it was when the session ends, and the box's version is kept here.\n"
      "A review session (corral run --review) leaves branch corral/SESSION: the\n"
      "agent's commits plus one for what it left uncommitted. --apply writes its\n"
      "changes into the working tree (not staged), refused when a file it changes\n"
      "changed in your tree since the session started; a file a tool here runs\n"
      "without asking is held back unless you name it; --discard deletes it.\n"
      "Exit status: 0 done; 1 nothing held for that session, or --apply refused;\n"
      "2 bad flags.\n"
      "Examples:\n"
      "  corral review                                  (sessions holding files)\n"
      "  corral review 3f2a9c1b0d4e                     (the changes, through $PAGER)\n"
      "  corral review 3f2a --apply .claude/settings.json\n"
      "  corral review 3f2a --discard\n");
  sub->callback([options, &globals] { globals.exit_code = Review(*options); });
}

}  // namespace corral::cli
