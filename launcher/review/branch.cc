// The end of a review session: the box's commits plus one for what it left
// uncommitted become branch corral/SESSION in the project's repository.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "launcher/review/review.h"

namespace corral::launcher::review {
namespace {

std::string Line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string ReadIfThere(const std::string& path) {
  auto text = ReadWholeFile(path);
  return text ? *text : "";
}

// ls-tree -r -z: "MODE TYPE OID\tPATH".
TreeEntries ParseTree(const std::string& listing) {
  TreeEntries entries;
  for (const std::string& field : Fields(listing)) {
    std::size_t tab = field.find('\t');
    std::size_t space = field.find(' ');
    std::size_t second = field.find(' ', space + 1);
    if (tab == std::string::npos || space == std::string::npos || second == std::string::npos) {
      continue;
    }
    entries[field.substr(tab + 1)] = field.substr(0, space) + " " + field.substr(second + 1, tab - second - 1);
  }
  return entries;
}

// The corral/SESSION name, with -2, -3, ... when the project has it.
std::string FreeBranchName(const Copy& copy) {
  std::string name = "corral/" + copy.session;
  for (int n = 2; Git({"-C", copy.project, "rev-parse", "--verify", "-q", "refs/heads/" + name});
       ++n) {
    name = "corral/" + copy.session + "-" + std::to_string(n);
  }
  return name;
}

void RemoveCopyFolders(const Copy& copy) {
  std::error_code ec;
  for (const std::string& path : {copy.upper, copy.work, copy.dir + "/git", RemovedListPath(copy)}) {
    std::filesystem::remove_all(path, ec);  // the overlay's work/work is root's: may stay
  }
}

}  // namespace

Result<Copy> BringBack(const std::string& state_dir, const std::string& session) {
  auto read = ReadCopy(state_dir, session);
  if (!read) return read.error();
  Copy copy = std::move(*read);
  if (copy.state != "running") return copy;
  const std::string repo = copy.dir + "/git";
  const std::string git_dir = "--git-dir=" + repo;
  // A repository of corral's own that borrows the project's objects and the
  // box's: nothing the box wrote (its config, its hooks) is read here.
  if (auto made = Git({"init", "-q", "--bare", "--template=", repo}); !made) return made.error();
  std::string alternates = copy.git_dir + "/objects\n";
  struct stat st {};
  if (::stat((copy.upper + "/.git/objects").c_str(), &st) == 0) {
    alternates += copy.upper + "/.git/objects\n";
  }
  if (FILE* f = std::fopen((repo + "/objects/info/alternates").c_str(), "w")) {
    std::fputs(alternates.c_str(), f);
    std::fclose(f);
  }
  std::string exclude = ReadIfThere(copy.git_dir + "/info/exclude");
  ::mkdir((repo + "/info").c_str(), 0755);  // made without git's template
  if (FILE* f = std::fopen((repo + "/info/exclude").c_str(), "w")) {
    std::fputs(exclude.c_str(), f);
    std::fclose(f);
  }
  std::string head = BoxHead(copy, [&](const std::string& path) {
    return ReadIfThere(copy.upper + "/.git/" + path);
  });
  if (head.empty()) {
    auto switched = Git({"-C", copy.project, "rev-parse", "--verify", "-q", "HEAD"});
    head = switched ? Line(*switched) : copy.base;
  }
  auto commit = Git({git_dir, "rev-parse", "--verify", "-q", head + "^{commit}"});
  if (!commit) {
    return Error("the box's HEAD (" + head + ") is not a commit its copy holds; the copy is kept "
                 "in " + copy.dir);
  }
  head = Line(*commit);
  auto listing = Git({git_dir, "ls-tree", "-r", "-z", "--full-tree", head});
  if (!listing) return listing.error();
  TreeEntries tree = ParseTree(*listing);
  auto changes = ReadUpper(copy.upper);
  if (!changes) return changes.error();
  // An engine elsewhere: what the box removed, listed by the copy-back
  // (.git's files come back as commits, as ReadUpper skips them).
  if (auto list = ReadWholeFile(RemovedListPath(copy))) {
    for (auto& path : Fields(*list)) {
      if (path != ".git" && path.rfind(".git/", 0) != 0) changes->removed.push_back(std::move(path));
    }
  } else if (!IsMissing(list.error())) {
    return list.error();
  }
  // New files that the project's ignore rules name (build output, caches)
  // stay out, as git add would leave them.
  std::string untracked;
  for (const auto& path : changes->written) {
    if (!tree.count(path)) untracked += path + '\0';
  }
  std::set<std::string> ignored;
  if (!untracked.empty()) {
    auto said = Git({git_dir, "--work-tree=" + copy.project, "check-ignore", "-z", "--stdin",
                     "--no-index"},
                    untracked);
    if (said) {
      for (auto& path : Fields(*said)) ignored.insert(std::move(path));
    } else if (said.error().message.find("failed:") != std::string::npos) {
      return said.error();  // exit 1 alone means "none ignored"
    }
  }
  std::vector<std::string> files, links;
  for (const auto& path : changes->written) {
    if (ignored.count(path)) continue;
    struct stat file {};
    if (::lstat((copy.upper + "/" + path).c_str(), &file) != 0) continue;
    (S_ISLNK(file.st_mode) ? links : files).push_back(path);
  }
  std::map<std::string, std::string> written;
  std::string paths;
  for (const auto& path : files) paths += copy.upper + "/" + path + "\n";
  if (!files.empty()) {
    auto oids = Git({git_dir, "hash-object", "-w", "--no-filters", "--stdin-paths"}, paths);
    if (!oids) return oids.error();
    std::size_t at = 0;
    for (const auto& path : files) {
      std::size_t end = oids->find('\n', at);
      if (end == std::string::npos) return Error("git hash-object said too little");
      struct stat file {};
      ::lstat((copy.upper + "/" + path).c_str(), &file);
      written[path] = std::string((file.st_mode & 0111) ? "100755 " : "100644 ") +
                      oids->substr(at, end - at);
      at = end + 1;
    }
  }
  for (const auto& path : links) {
    std::error_code ec;
    std::string target = std::filesystem::read_symlink(copy.upper + "/" + path, ec).string();
    auto oid = Git({git_dir, "hash-object", "-w", "--stdin"}, target);
    if (!oid) return oid.error();
    written[path] = "120000 " + Line(*oid);
  }
  TreeEntries left = ApplyChanges(tree, *changes, written);
  std::string tip = head;
  if (left != tree) {
    std::string entries;
    for (const auto& [path, entry] : left) {
      std::size_t space = entry.find(' ');
      entries += entry.substr(0, space) + " " + entry.substr(space + 1) + "\t" + path + '\0';
    }
    std::string index = "GIT_INDEX_FILE=" + repo + "/leftover.index";
    ::unlink((repo + "/leftover.index").c_str());
    if (auto ok = Git({git_dir, "update-index", "-z", "--index-info"}, entries, {index}); !ok) {
      return ok.error();
    }
    auto made = Git({git_dir, "write-tree"}, "", {index});
    if (!made) return made.error();
    std::string agent = copy.agent.empty() ? "agent" : copy.agent;
    std::string message = "Left uncommitted by " + agent + " in corral session " + copy.session +
                          "\n\nWhat the agent changed and did not commit when the session ended, "
                          "brought back by corral's review mode.\n";
    auto leftover = Git({git_dir, "commit-tree", Line(*made), "-p", head}, message,
                        {"GIT_AUTHOR_NAME=" + agent,
                         "GIT_AUTHOR_EMAIL=" + agent + "@corral.invalid",
                         "GIT_COMMITTER_NAME=corral", "GIT_COMMITTER_EMAIL=corral@corral.invalid"});
    if (!leftover) return leftover.error();
    tip = Line(*leftover);
  }
  if (tip == copy.base) {
    copy.state = "empty";
  } else {
    copy.branch = FreeBranchName(copy);
    if (auto ok = Git({git_dir, "update-ref", "refs/heads/tip", tip}); !ok) return ok.error();
    // The project fetches it: only objects it lacks arrive, each checked.
    if (auto ok = Git({"-C", copy.project, "-c", "gc.auto=0", "-c", "maintenance.auto=false",
                       "-c", "fetch.fsckObjects=true", "fetch", "-q", "--no-tags",
                       "--no-write-fetch-head", "--no-recurse-submodules", repo,
                       "refs/heads/tip:refs/heads/" + copy.branch});
        !ok) {
      return Error(ok.error().message + "; the box's copy is kept in " + copy.dir);
    }
    copy.tip = tip;
    copy.state = "branch";
  }
  if (auto ok = WriteCopy(copy); !ok) return ok.error();
  RemoveCopyFolders(copy);
  return copy;
}

std::vector<std::string> PendingCopies(const std::string& state_dir) {
  std::vector<std::string> pending;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir + "/reviews", ec)) {
    std::string session = entry.path().filename().string();
    auto copy = ReadCopy(state_dir, session);
    if (copy && copy->state == "running") pending.push_back(session);
  }
  return pending;
}

std::vector<Copy> BranchesToReview(const std::string& state_dir) {
  std::vector<Copy> copies;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(state_dir + "/reviews", ec)) {
    auto copy = ReadCopy(state_dir, entry.path().filename().string());
    if (copy && (copy->state == "branch" || copy->state == "applied")) copies.push_back(std::move(*copy));
  }
  return copies;
}

std::string BranchLine(const Copy& copy) {
  if (copy.state == "empty") return "review mode: the agent changed nothing, so there is no branch";
  if (copy.branch.empty()) return "";
  return "the agent's work is on branch " + copy.branch + " (your working tree and branch are "
         "untouched): corral review " + copy.session + " shows it, --apply brings it, --discard "
         "drops it";
}

}  // namespace corral::launcher::review
