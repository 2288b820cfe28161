// Reading an overlay's upper folder: what the box wrote, removed, or
// replaced whole; and the tree that makes with the box's HEAD.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include <functional>

#include "launcher/review/review.h"

namespace corral::launcher::review {
namespace {

bool Opaque(const std::string& path) {
  char value[4] = {};
  for (const char* name : {"user.overlay.opaque", "trusted.overlay.opaque"}) {
    ssize_t n = ::lgetxattr(path.c_str(), name, value, sizeof value);
    if (n > 0 && value[0] == 'y') return true;
  }
  return false;
}

Result<void> Walk(const std::string& upper, const std::string& relative, UpperChanges& changes) {
  std::string folder = relative.empty() ? upper : upper + "/" + relative;
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return Error::FromErrno("cannot read " + folder);
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  for (const std::string& name : names) {
    if (relative.empty() && name == ".git") continue;  // its commits come as commits
    std::string path = relative.empty() ? name : relative + "/" + name;
    struct stat st {};
    if (::lstat((upper + "/" + path).c_str(), &st) != 0) continue;
    if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
      changes.removed.push_back(path);
    } else if (S_ISDIR(st.st_mode)) {
      if (Opaque(upper + "/" + path)) changes.opaque.push_back(path);
      if (auto ok = Walk(upper, path, changes); !ok) return ok;
    } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
      changes.written.push_back(path);
    }
    // Sockets, fifos and devices are not in a git tree.
  }
  return Ok();
}

// Removes `path` and everything below it.
void RemoveBelow(TreeEntries& tree, const std::string& path) {
  tree.erase(path);
  std::string prefix = path + "/";
  for (auto it = tree.lower_bound(prefix); it != tree.end() && it->first.rfind(prefix, 0) == 0;) {
    it = tree.erase(it);
  }
}

}  // namespace

Result<UpperChanges> ReadUpper(const std::string& upper) {
  UpperChanges changes;
  if (auto ok = Walk(upper, "", changes); !ok) return ok.error();
  return changes;
}

TreeEntries ApplyChanges(TreeEntries tree, const UpperChanges& changes,
                         const std::map<std::string, std::string>& written) {
  for (const auto& path : changes.removed) RemoveBelow(tree, path);
  for (const auto& path : changes.opaque) RemoveBelow(tree, path);
  for (const auto& [path, entry] : written) {
    RemoveBelow(tree, path);  // a file where a folder was
    // A folder where a file was: the file goes.
    for (std::size_t slash = path.find('/'); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
      tree.erase(path.substr(0, slash));
    }
    tree[path] = entry;
  }
  return tree;
}

std::string BoxHead(const Copy& copy, const std::function<std::string(const std::string&)>& read) {
  auto line = [](std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  };
  std::string head = line(read("HEAD"));
  std::string ref = copy.head_ref;
  if (head.rfind("ref: ", 0) == 0) {
    ref = head.substr(5);
  } else if (head.size() >= 40) {
    return head;  // the box left HEAD detached
  }
  if (std::string loose = line(read(ref)); loose.size() >= 40) return loose;
  std::string packed = read("packed-refs");
  for (std::size_t start = 0; start < packed.size();) {
    std::size_t end = packed.find('\n', start);
    if (end == std::string::npos) end = packed.size();
    std::string entry = packed.substr(start, end - start);
    std::size_t space = entry.find(' ');
    if (space != std::string::npos && entry[0] != '#' && entry[0] != '^' &&
        entry.substr(space + 1) == ref) {
      return entry.substr(0, space);
    }
    start = end + 1;
  }
  // Another branch the box switched to, never written: the project has it.
  return ref == copy.head_ref ? copy.base : "";
}

}  // namespace corral::launcher::review
