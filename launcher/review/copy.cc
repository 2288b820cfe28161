// The review copy: the checks before a review session, its folders, and
// what it knows of the project (review.json).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "launcher/review/review.h"

namespace corral::launcher::review {
namespace {

std::string Line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

std::string ReviewDir(const std::string& state_dir, const std::string& session) {
  return state_dir + "/reviews/" + session;
}

std::string VolumeName(const std::string& session) { return "corral-" + session + "-review"; }

std::string RemovedListPath(const Copy& copy) { return copy.dir + "/removed"; }

Result<Copy> ReadCopy(const std::string& state_dir, const std::string& session) {
  std::string path = ReviewDir(state_dir, session) + "/review.json";
  auto text = ReadWholeFile(path);
  if (!text) return Error("session " + session + " was not a review session (no " + path + ")");
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object()) return Error(path + " is not JSON: remove it");
  Copy copy;
  copy.session = json.value("session", session);
  copy.project = json.value("project", "");
  copy.agent = json.value("agent", "");
  copy.git_dir = json.value("git_dir", "");
  copy.base = json.value("base", "");
  copy.head_ref = json.value("head_ref", "");
  copy.branch = json.value("branch", "");
  copy.tip = json.value("tip", "");
  copy.state = json.value("state", "running");
  copy.dir = ReviewDir(state_dir, session);
  copy.upper = copy.dir + "/upper";
  copy.work = copy.dir + "/work";
  return copy;
}

Result<void> WriteCopy(const Copy& copy) {
  nlohmann::json json = {{"session", copy.session}, {"project", copy.project},
                         {"agent", copy.agent},     {"git_dir", copy.git_dir},
                         {"base", copy.base},       {"head_ref", copy.head_ref},
                         {"branch", copy.branch},   {"tip", copy.tip},
                         {"state", copy.state}};
  return ReplaceFile(copy.dir + "/review.json", json.dump(2) + "\n");
}

Result<Copy> Prepare(const std::string& state_dir, const std::string& session,
                     const std::string& project, const std::string& agent) {
  auto top = Git({"-C", project, "rev-parse", "--show-toplevel", "--absolute-git-dir",
                  "--git-common-dir"});
  if (!top) {
    return Error("review mode needs a git repository, and " + project +
                 " is not one: run git init there first, or run without --review (corral undo "
                 "SESSION puts back what a session changed in any folder)");
  }
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < top->size();) {
    std::size_t end = top->find('\n', start);
    if (end == std::string::npos) end = top->size();
    lines.push_back(top->substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() < 3) return Error("git rev-parse said too little in " + project);
  std::error_code ec;
  std::string real = std::filesystem::canonical(project, ec).string();
  if (std::filesystem::canonical(lines[0], ec).string() != real) {
    return Error("review mode runs at a repository's top folder, and " + project +
                 " is inside " + lines[0] + ": run corral there");
  }
  Copy copy;
  copy.session = session;
  copy.project = real;
  copy.agent = agent;
  copy.git_dir = lines[1];
  std::string common = lines[2].rfind('/', 0) == 0 ? lines[2] : project + "/" + lines[2];
  if (std::filesystem::canonical(common, ec).string() !=
          std::filesystem::canonical(copy.git_dir, ec).string() ||
      copy.git_dir != real + "/.git") {
    return Error("review mode does not run in a linked git worktree or a repository whose .git "
                 "is elsewhere yet (" + project + "): run it in the main checkout");
  }
  for (const char* busy : {"rebase-merge", "rebase-apply"}) {
    if (Exists(copy.git_dir + "/" + busy)) {
      return Error("a rebase is in progress in " + project +
                   ": finish it (git rebase --continue) or abort it (git rebase --abort) before "
                   "a review session, whose branch starts from HEAD");
    }
  }
  if (Exists(copy.git_dir + "/MERGE_HEAD")) {
    return Error("a merge is in progress in " + project +
                 ": commit it or abort it (git merge --abort) before a review session");
  }
  auto ref = Git({"-C", project, "symbolic-ref", "-q", "HEAD"});
  if (!ref) {
    return Error("HEAD is detached in " + project +
                 ": review mode starts its branch from the current branch; switch to one first "
                 "(git switch BRANCH)");
  }
  copy.head_ref = Line(*ref);
  auto base = Git({"-C", project, "rev-parse", "--verify", "-q", "HEAD"});
  if (!base) {
    return Error(project + " has no commit yet: review mode starts its branch from one (make "
                           "a first commit)");
  }
  copy.base = Line(*base);
  for (const std::string& path : {real, state_dir}) {
    if (path.find_first_of(",:") != std::string::npos) {
      return Error("review mode cannot mount an overlay of " + path +
                   ": its path holds ',' or ':'");
    }
  }
  copy.dir = ReviewDir(state_dir, session);
  copy.upper = copy.dir + "/upper";
  copy.work = copy.dir + "/work";
  std::filesystem::create_directories(copy.upper, ec);
  if (!ec) std::filesystem::create_directories(copy.work, ec);
  if (ec) return Error("cannot make " + copy.dir + ": " + ec.message());
  ::chmod((state_dir + "/reviews").c_str(), 0700);
  ::chmod(copy.dir.c_str(), 0755);  // the engine's root reaches upper through it
  struct stat st {};
  if (::stat(project.c_str(), &st) == 0) ::chmod(copy.upper.c_str(), st.st_mode & 07777);
  if (auto ok = WriteCopy(copy); !ok) return ok.error();
  return copy;
}

std::map<std::string, std::string> OverlayOptions(const Copy& copy) {
  // userxattr: the overlay marks opaque folders with user.overlay.opaque,
  // which corral reads as the user (trusted.* needs root).
  return {{"type", "overlay"},
          {"device", "overlay"},
          {"o", "lowerdir=" + copy.project + ",upperdir=" + copy.upper + ",workdir=" + copy.work +
                    ",userxattr"}};
}

}  // namespace corral::launcher::review
