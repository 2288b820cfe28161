// Content snapshots and corral undo: a tree of the project's files, in a
// repository of corral's own that borrows the project's objects, at the
// start and at the end of a session; undo puts back what differs.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "launcher/review/review.h"

namespace corral::launcher::review {
namespace {

std::string Line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

std::string SnapshotRepo(const std::string& state_dir, const std::string& session) {
  return state_dir + "/snapshots/" + session + ".git";
}

std::string SnapshotFile(const std::string& state_dir, const std::string& session) {
  return state_dir + "/snapshots/" + session + ".json";
}

nlohmann::json ReadSnapshot(const std::string& state_dir, const std::string& session) {
  auto text = ReadWholeFile(SnapshotFile(state_dir, session));
  auto json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  return json.is_object() ? json : nlohmann::json::object();
}

Result<void> WriteSnapshot(const std::string& state_dir, const std::string& session,
                           const nlohmann::json& json) {
  return ReplaceFile(SnapshotFile(state_dir, session), json.dump(2) + "\n");
}

void CopyFile(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing, ec);
}

}  // namespace

Result<std::string> SnapshotTree(const std::string& state_dir, const std::string& session,
                                 const std::string& project, const std::string& name) {
  const std::string repo = SnapshotRepo(state_dir, session);
  const std::string git_dir = "--git-dir=" + repo;
  std::error_code ec;
  if (!std::filesystem::exists(repo + "/HEAD", ec)) {
    std::filesystem::create_directories(state_dir + "/snapshots", ec);
    ::chmod((state_dir + "/snapshots").c_str(), 0700);
    if (auto made = Git({"init", "-q", "--bare", "--template=", repo}); !made) return made.error();
  }
  std::string index = repo + "/" + name + ".index";
  ::unlink(index.c_str());
  nlohmann::json json = ReadSnapshot(state_dir, session);
  // Whether the project is in a git repository, asked at the first snapshot
  // and kept: the end's is then one git process less on the way out.
  if (!json.contains("git")) {
    json["git"] = nullptr;
    if (auto top = Git({"-C", project, "rev-parse", "--show-toplevel", "--absolute-git-dir"})) {
      std::string text = *top;
      json["git"] = {{"toplevel", text.substr(0, text.find('\n'))},
                     {"dir", Line(text.substr(text.find('\n') + 1))}};
    }
  }
  // In a git project: its objects are borrowed, and its index lends the
  // files' stat data, so only files changed since they were staged are read.
  if (const auto& git = json["git"]; git.is_object()) {
    std::string toplevel = git.value("toplevel", ""), dot_git = git.value("dir", "");
    std::filesystem::create_directories(repo + "/objects/info", ec);
    std::ofstream(repo + "/objects/info/alternates", std::ios::trunc) << dot_git << "/objects\n";
    std::filesystem::create_directories(repo + "/info", ec);
    CopyFile(dot_git + "/info/exclude", repo + "/info/exclude");
    if (std::filesystem::equivalent(toplevel, project, ec)) CopyFile(dot_git + "/index", index);
  }
  std::vector<std::string> env = {"GIT_INDEX_FILE=" + index};
  if (auto added = Git({git_dir, "--work-tree=" + project, "-c", "core.fsmonitor=false", "add",
                        "-A", "--ignore-errors"},
                       "", env);
      !added) {
    return added.error().Context("snapshot of " + project);
  }
  auto tree = Git({git_dir, "write-tree"}, "", env);
  ::unlink(index.c_str());
  if (!tree) return tree.error();
  json["project"] = project;
  json[name] = Line(*tree);
  if (auto ok = WriteSnapshot(state_dir, session, json); !ok) return ok.error();
  return Line(*tree);
}

Result<std::vector<std::string>> Undo(const std::string& state_dir, const std::string& session,
                                      bool force) {
  nlohmann::json json = ReadSnapshot(state_dir, session);
  std::string before = json.value("before", ""), after = json.value("after", "");
  std::string project = json.value("project", "");
  if (before.empty()) {
    return Error("session " + session + " has no snapshot to undo from (a review session, or "
                 "one from before corral took them)");
  }
  if (ReadCopy(state_dir, session)) {
    return Error("session " + session + " ran in review mode: it never changed your files (its "
                 "work is a branch; corral review " + session + " --discard drops it)");
  }
  if (after.empty()) {
    return Error("session " + session + " has not ended (or corral was killed before it could "
                 "take its end snapshot): corral stop " + session + " first");
  }
  if (json.value("undone", false) && !force) {
    return Error("session " + session + " was undone already (--force does it again)");
  }
  const std::string repo = SnapshotRepo(state_dir, session);
  const std::string git_dir = "--git-dir=" + repo;
  auto diff = Git({git_dir, "diff-tree", "-r", "-z", "--no-renames", "--name-only", before, after});
  if (!diff) return diff.error();
  std::vector<std::string> changed = Fields(*diff);
  if (changed.empty()) return std::vector<std::string>{"session " + session + " changed no file"};
  auto now = SnapshotTree(state_dir, session, project, "now");
  if (!now) return now.error();
  std::string pathspecs;
  for (const auto& path : changed) pathspecs += path + '\0';
  auto entries = [&](const std::string& tree) -> Result<TreeEntries> {
    auto listing = Git({git_dir, "--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", tree});
    if (!listing) return listing.error();
    TreeEntries out;
    for (const auto& field : Fields(*listing)) {
      std::size_t tab = field.find('\t');
      if (tab != std::string::npos) out[field.substr(tab + 1)] = field.substr(0, tab);
    }
    return out;
  };
  auto was = entries(before);
  auto end = entries(after);
  auto current = entries(*now);
  if (!was || !end || !current) return Error("cannot read session " + session + "'s snapshots");
  auto at = [](const TreeEntries& tree, const std::string& path) {
    auto it = tree.find(path);
    return it == tree.end() ? std::string() : it->second;
  };
  std::vector<std::string> since;
  for (const auto& path : changed) {
    if (at(*end, path) != at(*current, path)) since.push_back(path);
  }
  if (!since.empty() && !force) {
    std::string names;
    for (std::size_t i = 0; i < since.size(); ++i) names += (i ? ", " : "") + since[i];
    return Error("not undone: " + names + (since.size() == 1 ? " was" : " were") +
                 " changed after session " + session + " ended; corral undo " + session +
                 " --force puts " + (since.size() == 1 ? "it" : "them") +
                 " back too, and those changes are lost");
  }
  std::string restore;
  std::vector<std::string> removed;
  for (const auto& path : changed) {
    if (at(*was, path).empty()) {
      removed.push_back(path);
    } else {
      restore += path + '\0';
    }
  }
  for (const auto& path : removed) {
    std::filesystem::path full = std::filesystem::path(project) / path;
    std::error_code ec;
    std::filesystem::remove(full, ec);
  }
  if (!restore.empty()) {
    std::string index = repo + "/undo.index";
    ::unlink(index.c_str());
    if (auto ok = Git({git_dir, "--work-tree=" + project, "--literal-pathspecs", "checkout", before,
                       "--pathspec-from-file=-", "--pathspec-file-nul"},
                      restore, {"GIT_INDEX_FILE=" + index});
        !ok) {
      return ok.error().Context("put back " + project);
    }
    ::unlink(index.c_str());
  }
  json["undone"] = true;
  (void)WriteSnapshot(state_dir, session, json);
  std::vector<std::string> lines;
  std::string names;
  for (std::size_t i = 0; i < changed.size(); ++i) names += (i ? ", " : "") + changed[i];
  lines.push_back("put back " + std::to_string(changed.size()) +
                  (changed.size() == 1 ? " file" : " files") + " as session " + session +
                  " found " + (changed.size() == 1 ? "it" : "them") + ": " + names);
  if (!removed.empty()) {
    lines.push_back("removed " + std::to_string(removed.size()) +
                    (removed.size() == 1 ? " file" : " files") + " the session made");
  }
  return lines;
}

}  // namespace corral::launcher::review
