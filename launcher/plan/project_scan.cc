// One bounded walk of the project for secrets to mask and dependency folders.
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

#include "base/paths.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace fs = std::filesystem;
namespace {

constexpr int kDepDepth = 5;                  // node_modules/.venv this deep at most

bool IsDepDir(const std::string& name) { return name == "node_modules" || name == ".venv"; }

bool Matches(const std::vector<std::string>& globs, const std::string& name,
             const std::string& relative) {
  for (const std::string& glob : globs) {
    bool with_slash = glob.find('/') != std::string::npos;
    const std::string& subject = with_slash ? relative : name;
    if (::fnmatch(glob.c_str(), subject.c_str(), with_slash ? FNM_PATHNAME : 0) == 0) return true;
  }
  return false;
}

}  // namespace

ProjectScan ScanProject(const std::string& top, const std::vector<std::string>& deny_read,
                        std::size_t max_entries) {
  ProjectScan scan;
  std::error_code ec;
  fs::recursive_directory_iterator it(top, fs::directory_options::skip_permission_denied, ec);
  std::size_t seen = 0;
  std::string real_top = fs::canonical(top, ec).string();
  if (ec) return scan;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > max_entries) {
      scan.incomplete = "it holds more than " + std::to_string(max_entries) +
                        " files and folders (outside .git, node_modules and .venv)";
      break;
    }
    const fs::directory_entry& entry = *it;
    std::string name = entry.path().filename().string();
    std::string relative = entry.path().lexically_relative(top).string();
    bool is_dir = entry.is_directory(ec) && !entry.is_symlink(ec);
    if (is_dir && name == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (is_dir && IsDepDir(name)) {
      it.disable_recursion_pending();
      if (it.depth() < kDepDepth) scan.dep_dirs.push_back(entry.path().string());
      continue;
    }
    if (!Matches(deny_read, name, relative)) continue;
    if (entry.is_symlink(ec)) {
      // A masked name that links elsewhere in the project (.env ->
      // config/prod.env): reading through it reads the target, so the
      // target is masked. A target outside the project is not in the box.
      // Paths are compared resolved; the mount goes where the box sees it.
      fs::path target = fs::canonical(entry.path(), ec);
      if (ec || !IsWithin(target.string(), real_top)) {
        ec.clear();
        continue;
      }
      std::string in_box = top + target.string().substr(real_top == "/" ? 0 : real_top.size());
      if (fs::is_directory(target, ec)) scan.deny_dirs.push_back(in_box);
      else if (fs::is_regular_file(target, ec)) scan.deny_files.push_back(in_box);
      ec.clear();
    } else if (is_dir) {
      scan.deny_dirs.push_back(entry.path().string());
      it.disable_recursion_pending();
    } else {
      scan.deny_files.push_back(entry.path().string());
    }
  }
  if (ec && scan.incomplete.empty()) scan.incomplete = "reading it failed: " + ec.message();
  // A target reached by name and through a link is masked once: engines
  // refuse two mounts on one path.
  for (auto* list : {&scan.deny_files, &scan.deny_dirs}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return scan;
}

}  // namespace corral::launcher
