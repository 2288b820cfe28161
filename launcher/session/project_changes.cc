// Which of the project's files a session changed, from git: the session
// record's end event and `corral report` list them.
#include <sys/stat.h>

#include <set>

#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

constexpr auto kGitTimeout = std::chrono::seconds(10);

Result<std::string> Git(const std::string& dir, std::vector<std::string> args) {
  std::vector<std::string> argv = {"git", "-C", dir};
  argv.insert(argv.end(), args.begin(), args.end());
  auto out = RunCapture(argv, kGitTimeout);
  if (!out) return out.error();
  if (out->exit_status != 0) return Error("git " + args.front() + " failed in " + dir);
  return std::move(out->out);
}

}  // namespace

std::optional<ProjectSnapshot> SnapshotProject(const std::string& dir) {
  auto status = Git(dir, {"status", "--porcelain=v1", "-z", "--untracked-files=all"});
  if (!status) return std::nullopt;
  ProjectSnapshot snapshot;
  if (auto head = Git(dir, {"rev-parse", "--verify", "-q", "HEAD"})) {
    snapshot.head = *head;
    while (!snapshot.head.empty() && snapshot.head.back() == '\n') snapshot.head.pop_back();
  }
  std::vector<std::string> fields = review::Fields(*status);
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const std::string& entry = fields[i];
    if (entry.size() < 4) continue;
    std::string path = entry.substr(3);
    // A rename or copy is followed by the path it came from.
    if (entry[0] == 'R' || entry[0] == 'C') ++i;
    // Status plus size and time: a file edited again while already dirty
    // shows up as changed too.
    struct stat st {};
    std::string key = entry.substr(0, 2);
    if (::lstat((dir + "/" + path).c_str(), &st) == 0) {
      key += " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
             std::to_string(st.st_mtim.tv_nsec);
    }
    snapshot.dirty[path] = key;
  }
  return snapshot;
}

std::vector<std::string> ChangedFiles(const std::string& dir, const ProjectSnapshot& before,
                                      const ProjectSnapshot& after) {
  std::set<std::string> changed;
  for (const auto& [path, key] : after.dirty) {
    auto was = before.dirty.find(path);
    if (was == before.dirty.end() || was->second != key) changed.insert(path);
  }
  for (const auto& [path, key] : before.dirty) {
    if (!after.dirty.count(path)) changed.insert(path);  // committed or put back
  }
  if (!before.head.empty() && !after.head.empty() && before.head != after.head) {
    if (auto diff = Git(dir, {"diff", "--name-only", "-z", before.head, after.head})) {
      for (auto& path : review::Fields(*diff)) changed.insert(std::move(path));
    }
  }
  return {changed.begin(), changed.end()};
}

}  // namespace corral::launcher
