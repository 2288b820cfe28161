// corral review SESSION for a review session's branch: show it, bring it
// into the working tree, or drop it.
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "launcher/review/review.h"

namespace corral::launcher::review {
namespace {

Result<void> BranchThere(const Copy& copy) {
  if (copy.state == "discarded") return Error("session " + copy.session + "'s branch was discarded");
  if (copy.branch.empty()) return Error("session " + copy.session + " left no branch");
  if (!Git({"-C", copy.project, "rev-parse", "--verify", "-q", "refs/heads/" + copy.branch})) {
    return Error("branch " + copy.branch + " is gone from " + copy.project);
  }
  return Ok();
}

// Blob ids of `paths` in `tree` ("" for none).
Result<std::map<std::string, std::string>> BlobsIn(const std::vector<std::string>& git,
                                                   const std::string& tree,
                                                   const std::vector<std::string>& paths) {
  std::vector<std::string> args = git;
  for (const char* arg : {"--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree"}) {
    args.push_back(arg);
  }
  args.push_back(tree);
  args.push_back("--");
  args.insert(args.end(), paths.begin(), paths.end());
  auto listing = Git(args);
  if (!listing) return listing.error();
  std::map<std::string, std::string> blobs;
  for (const auto& field : Fields(*listing)) {
    std::size_t tab = field.find('\t');
    if (tab == std::string::npos || tab < 40) continue;
    blobs[field.substr(tab + 1)] = field.substr(0, tab);  // "MODE TYPE OID"
  }
  return blobs;
}

// The branch's changed files, as git names them.
Result<std::vector<std::string>> ChangedFiles(const Copy& copy) {
  auto listed = Git({"-C", copy.project, "diff", "--name-only", "--no-renames", "-z", copy.base,
                     copy.branch});
  if (!listed) return listed.error();
  return Fields(*listed);
}

// "a (tool), b (tool)" for the auto-run files among `files`.
std::string AutoRunNames(const std::vector<std::string>& files, const AutoRunTool& auto_run) {
  std::string names;
  for (const auto& path : files) {
    std::string tool = auto_run ? auto_run(path) : "";
    if (!tool.empty()) names += (names.empty() ? "" : ", ") + path + " (" + tool + ")";
  }
  return names;
}

}  // namespace

Result<std::string> Describe(const Copy& copy, const AutoRunTool& auto_run) {
  if (auto ok = BranchThere(copy); !ok) return ok.error();
  std::string range = copy.base + ".." + copy.branch;
  std::string text = "session " + copy.session + " (" + copy.agent + ") in " + copy.project +
                     ": branch " + copy.branch + "\n" + (copy.state == "applied" ? "(applied)\n" : "") +
                     "To bring it into your working tree: corral review " + copy.session +
                     " --apply; to drop it: --discard\n";
  auto files = ChangedFiles(copy);
  if (!files) return files.error();
  if (std::string names = AutoRunNames(*files, auto_run); !names.empty()) {
    text += "It changes files a tool on this machine runs without asking: " + names +
            ". --apply holds them back unless you name them (corral review " + copy.session +
            " --apply PATH)\n";
  }
  text += "\n";
  auto log = Git({"-C", copy.project, "log", "--no-color", "--format=%h %an: %s", range});
  auto stat = Git({"-C", copy.project, "diff", "--no-color", "--stat", copy.base, copy.branch});
  auto diff = Git({"-C", copy.project, "diff", "--no-color", "--no-ext-diff", copy.base, copy.branch});
  if (!log || !stat || !diff) return Error("cannot read branch " + copy.branch);
  return text + *log + "\n" + *stat + "\n" + *diff;
}

Result<std::vector<std::string>> Apply(const std::string& state_dir, Copy& copy,
                                       const ApplyChoice& choice) {
  if (auto ok = BranchThere(copy); !ok) return ok.error();
  auto changed = ChangedFiles(copy);
  if (!changed) return changed.error();
  if (changed->empty()) return std::vector<std::string>{"branch " + copy.branch + " changes nothing"};
  for (const auto& path : choice.paths) {
    if (std::find(changed->begin(), changed->end(), path) == changed->end()) {
      return Error("branch " + copy.branch + " does not change " + path +
                   "; nothing was changed (corral review " + copy.session + " lists its files)");
    }
  }
  // The files to write: those named, else all but the auto-run ones.
  std::vector<std::string> files, held_back;
  for (const auto& path : *changed) {
    bool named = std::find(choice.paths.begin(), choice.paths.end(), path) != choice.paths.end();
    if (!choice.paths.empty() && !named) continue;
    bool auto_run = choice.auto_run && !choice.auto_run(path).empty();
    (auto_run && !named ? held_back : files).push_back(path);
  }
  std::vector<std::string> lines;
  if (!held_back.empty()) {
    lines.push_back("held back: " + AutoRunNames(held_back, choice.auto_run) +
                    ": a tool on this machine runs " + (held_back.size() == 1 ? "it" : "them") +
                    " without asking; read it (corral review " + copy.session +
                    "), then bring it by name: corral review " + copy.session + " --apply " +
                    held_back.front());
  }
  if (files.empty()) return lines;
  // The files as the box found them: the start snapshot when there is one
  // (the user's uncommitted changes in it), else the branch's base.
  std::vector<std::string> start_git = {"-C", copy.project};
  std::string start = copy.base;
  auto snapshot = ReadWholeFile(state_dir + "/snapshots/" + copy.session + ".json");
  if (snapshot) {
    auto json = nlohmann::json::parse(*snapshot, nullptr, false);
    if (json.is_object() && json.value("before", "") != "") {
      start_git = {"--git-dir=" + state_dir + "/snapshots/" + copy.session + ".git"};
      start = json.value("before", "");
    }
  }
  auto was = BlobsIn(start_git, start, files);
  auto theirs = BlobsIn({"-C", copy.project}, copy.branch, files);
  if (!was || !theirs) return Error("cannot read branch " + copy.branch);
  // The working tree now, hashed as git add would.
  std::vector<std::string> present;
  std::string paths;
  for (const auto& path : files) {
    std::error_code ec;
    auto status = std::filesystem::symlink_status(std::filesystem::path(copy.project) / path, ec);
    if (std::filesystem::is_regular_file(status)) {
      present.push_back(path);
      paths += path + "\n";
    }
  }
  std::map<std::string, std::string> now;
  if (!present.empty()) {
    auto oids = Git({"-C", copy.project, "hash-object", "--stdin-paths"}, paths);
    if (!oids) return oids.error();
    std::size_t at = 0;
    for (const auto& path : present) {
      std::size_t end = oids->find('\n', at);
      if (end == std::string::npos) break;
      now[path] = oids->substr(at, end - at);
      at = end + 1;
    }
  }
  auto oid_of = [](const std::map<std::string, std::string>& blobs, const std::string& path) {
    auto it = blobs.find(path);
    return it == blobs.end() ? std::string() : it->second.substr(it->second.rfind(' ') + 1);
  };
  std::vector<std::string> conflicts, restore, remove;
  for (const auto& path : files) {
    std::string current = now.count(path) ? now[path] : "";
    std::string target = oid_of(*theirs, path);
    if (current != oid_of(*was, path) && current != target) conflicts.push_back(path);
    (target.empty() ? remove : restore).push_back(path);
  }
  if (!conflicts.empty()) {
    std::string names;
    for (std::size_t i = 0; i < conflicts.size(); ++i) names += (i ? ", " : "") + conflicts[i];
    return Error("not applied: " + names + (conflicts.size() == 1 ? " has" : " have") +
                 " changed in your working tree since session " + copy.session +
                 " started, and the branch changes " + (conflicts.size() == 1 ? "it" : "them") +
                 " too; nothing was changed. Merge it yourself: git merge " + copy.branch);
  }
  for (const auto& path : remove) {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(copy.project) / path, ec);
  }
  if (!restore.empty()) {
    std::string spec;
    for (const auto& path : restore) spec += path + '\0';
    // A throwaway index: the user's staged changes stay as they are.
    std::string index = copy.dir + "/apply.index";
    ::unlink(index.c_str());
    auto ok = Git({"-C", copy.project, "--literal-pathspecs", "checkout", copy.branch,
                   "--pathspec-from-file=-", "--pathspec-file-nul"},
                  spec, {"GIT_INDEX_FILE=" + index});
    ::unlink(index.c_str());
    if (!ok) return ok.error().Context("apply " + copy.branch);
  }
  copy.state = "applied";
  if (auto ok = WriteCopy(copy); !ok) return ok.error();
  lines.insert(lines.begin(),
               "applied branch " + copy.branch + " to " + copy.project + " (" +
                   std::to_string(files.size()) + (files.size() == 1 ? " file" : " files") +
                   ", not staged); the branch stays until corral review " + copy.session +
                   " --discard");
  return lines;
}

Result<std::vector<std::string>> Discard(Copy& copy) {
  if (copy.state == "discarded") return std::vector<std::string>{"already discarded"};
  if (!copy.branch.empty() &&
      Git({"-C", copy.project, "rev-parse", "--verify", "-q", "refs/heads/" + copy.branch})) {
    if (auto ok = Git({"-C", copy.project, "branch", "-q", "-D", copy.branch}); !ok) return ok.error();
  }
  copy.state = "discarded";
  if (auto ok = WriteCopy(copy); !ok) return ok.error();
  return std::vector<std::string>{"dropped branch " + copy.branch + " (it was at " +
                                  copy.tip.substr(0, 12) + ")"};
}

}  // namespace corral::launcher::review
