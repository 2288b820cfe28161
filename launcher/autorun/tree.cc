// Reading and writing the watched paths without following a symlink: every
// folder on the way is opened with O_NOFOLLOW from the watch's base, so a
// link the box planted is seen as a link, never gone through.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>

#include "launcher/autorun/autorun.h"

namespace corral::launcher::autorun {
namespace {

std::pair<std::string, std::string> SplitLeaf(const std::string& path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

// The folder base/dir, each component opened without following a symlink;
// missing ones made (0755) when `make`. Invalid on error, errno set (ELOOP:
// a symlink on the way; ENOTDIR: a file on the way).
UniqueFd OpenDir(const std::string& base, const std::string& dir, bool make) {
  UniqueFd fd(::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::size_t start = 0;
  while (fd.valid() && start < dir.size()) {
    std::size_t slash = dir.find('/', start);
    if (slash == std::string::npos) slash = dir.size();
    std::string part = dir.substr(start, slash - start);
    start = slash + 1;
    if (part.empty()) continue;
    struct stat st {};
    if (::fstatat(fd.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT || !make) return UniqueFd();
      if (::mkdirat(fd.get(), part.c_str(), 0755) != 0 && errno != EEXIST) return UniqueFd();
    } else if (S_ISLNK(st.st_mode)) {
      errno = ELOOP;
      return UniqueFd();
    } else if (!S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return UniqueFd();
    }
    fd = UniqueFd(::openat(fd.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  return fd;
}

// The names in folder base/dir, sorted.
Result<std::vector<std::string>> List(const std::string& base, const std::string& dir) {
  UniqueFd fd = OpenDir(base, dir, false);
  if (!fd.valid()) return Error::FromErrno("cannot open the folder " + base + "/" + dir);
  DIR* d = ::fdopendir(fd.get());
  if (!d) return Error::FromErrno("cannot list " + base + "/" + dir);
  (void)fd.Release();
  std::vector<std::string> names;
  while (dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::string Join(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }

struct Walker {
  std::size_t limit;
  bool strict;  // at the start: what cannot be read stops the session
  std::map<std::string, Node> found;  // by absolute path

  Result<std::optional<Node>> Read(const std::string& base, const std::string& path,
                                   Node::Role role) {
    auto node = ReadNode(base, path);
    if (!node) {
      if (strict) return node.error();
      // At the end: unreadable is a difference of its own (it is removed).
      Node other;
      other.base = base;
      other.path = path;
      other.kind = Kind::kOther;
      node = std::optional<Node>(other);
    }
    if (!*node) return std::optional<Node>();
    (*node)->role = role;
    std::string key = (*node)->Absolute();
    auto [it, added] = found.emplace(key, **node);
    if (!added && role != Node::kOnTheWay) it->second.role = role;
    if (found.size() > limit) {
      return Error("more than " + std::to_string(limit) + " files under " + base + "/" + path);
    }
    return node;
  }

  Result<void> Inside(const std::string& base, const std::string& dir) {
    auto names = List(base, dir);
    if (!names) {
      if (strict) return names.error();
      found[base + "/" + dir].kind = Kind::kOther;  // cannot be listed: compared as changed
      return Ok();
    }
    for (const std::string& name : *names) {
      auto node = Read(base, Join(dir, name), Node::kInside);
      if (!node) return node.error();
      if (*node && (*node)->kind == Kind::kFolder) {
        if (auto ok = Inside(base, Join(dir, name)); !ok) return ok;
      }
    }
    return Ok();
  }

  Result<void> Expand(const Watch& watch, const std::vector<std::string>& parts, std::size_t i,
                      const std::string& prefix) {
    if (i == parts.size()) {
      auto node = Read(watch.base, prefix, Node::kMatch);
      if (!node) return node.error();
      // A folder where a file belongs is looked through too: what it holds
      // is the box's.
      if (*node && (*node)->kind == Kind::kFolder) return Inside(watch.base, prefix);
      return Ok();
    }
    if (parts[i] == "*") {
      auto names = List(watch.base, prefix);
      if (!names) return Ok();  // no such folder (what is on the way is recorded)
      for (const std::string& name : *names) {
        std::string path = Join(prefix, name);
        auto node = ReadNode(watch.base, path);
        if (!node || !*node || (*node)->kind != Kind::kFolder) continue;
        if (auto ok = Expand(watch, parts, i + 1, path); !ok) return ok;
      }
      return Ok();
    }
    std::string path = Join(prefix, parts[i]);
    if (i + 1 == parts.size()) return Expand(watch, parts, i + 1, path);
    auto node = Read(watch.base, path, Node::kOnTheWay);
    if (!node) return node.error();
    if (!*node || (*node)->kind != Kind::kFolder) return Ok();  // a link is recorded, not gone through
    return Expand(watch, parts, i + 1, path);
  }
};

std::vector<std::string> Parts(const std::string& pattern) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < pattern.size()) {
    std::size_t slash = pattern.find('/', start);
    if (slash == std::string::npos) slash = pattern.size();
    if (slash > start) parts.push_back(pattern.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

}  // namespace

Result<std::optional<Node>> ReadNode(const std::string& base, const std::string& path) {
  auto [dir, leaf] = SplitLeaf(path);
  UniqueFd parent = OpenDir(base, dir, false);
  if (!parent.valid()) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return std::optional<Node>();
    return Error::FromErrno("cannot read " + base + "/" + path);
  }
  struct stat st {};
  if (::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::optional<Node>();
    return Error::FromErrno("cannot read " + base + "/" + path);
  }
  Node node;
  node.base = base;
  node.path = path;
  node.mode = st.st_mode & 07777;
  if (S_ISDIR(st.st_mode)) {
    node.kind = Kind::kFolder;
  } else if (S_ISLNK(st.st_mode)) {
    node.kind = Kind::kLink;
    std::string target(PATH_MAX, '\0');
    ssize_t n = ::readlinkat(parent.get(), leaf.c_str(), target.data(), target.size());
    if (n < 0) return Error::FromErrno("cannot read the link " + base + "/" + path);
    target.resize(static_cast<std::size_t>(n));
    node.link = target;
  } else if (S_ISREG(st.st_mode)) {
    UniqueFd file(::openat(parent.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (!file.valid()) return Error::FromErrno("cannot read " + base + "/" + path);
    auto content = ReadToEnd(file.get());
    if (!content) return content.error().Context("cannot read " + base + "/" + path);
    node.content = std::move(*content);
  } else {
    node.kind = Kind::kOther;
  }
  return std::optional<Node>(std::move(node));
}

Result<std::vector<Node>> ReadWatched(const std::vector<Watch>& watches, std::size_t limit) {
  Walker walker{limit, limit <= 20000, {}};
  for (const Watch& watch : watches) {
    if (auto ok = walker.Expand(watch, Parts(watch.pattern), 0, ""); !ok) return ok.error();
  }
  std::vector<Node> nodes;
  for (auto& [path, node] : walker.found) nodes.push_back(std::move(node));
  return nodes;
}

std::vector<std::string> ReadOnlyPaths(const std::vector<Node>& nodes, const std::string& project) {
  std::vector<std::string> paths;
  auto add = [&](const std::string& path) {
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
  };
  for (const Node& node : nodes) {
    if (node.kind == Kind::kLink && node.role != Node::kOnTheWay) {
      // What the host's tool would follow it to, when the box could write it.
      char resolved[PATH_MAX];
      if (::realpath(node.Absolute().c_str(), resolved) &&
          std::string(resolved).rfind(project + "/", 0) == 0) {
        add(resolved);
      }
      continue;
    }
    if (node.role == Node::kMatch && (node.kind == Kind::kFile || node.kind == Kind::kFolder)) {
      add(node.Absolute());
    }
  }
  return paths;
}

Result<void> RemoveNode(const std::string& base, const std::string& path) {
  auto [dir, leaf] = SplitLeaf(path);
  UniqueFd parent = OpenDir(base, dir, false);
  if (!parent.valid()) {
    if (errno == ENOENT) return Ok();
    return Error::FromErrno("cannot open the folder of " + base + "/" + path);
  }
  struct stat st {};
  if (::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? Ok() : Error::FromErrno("cannot look at " + base + "/" + path);
  }
  if (::unlinkat(parent.get(), leaf.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
    return Error::FromErrno("cannot remove " + base + "/" + path);
  }
  return Ok();
}

Result<void> PutNode(const Node& node) {
  auto [dir, leaf] = SplitLeaf(node.path);
  UniqueFd parent = OpenDir(node.base, dir, /*make=*/true);
  if (!parent.valid()) {
    return Error::FromErrno("cannot open the folder of " + node.Absolute() +
                            (errno == ELOOP ? " (a symlink is on the way)" : ""));
  }
  struct stat st {};
  bool exists = ::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (node.kind == Kind::kFolder) {
    if (exists && S_ISDIR(st.st_mode)) return Ok();
    if (exists && ::unlinkat(parent.get(), leaf.c_str(), 0) != 0) {
      return Error::FromErrno("cannot remove " + node.Absolute());
    }
    if (::mkdirat(parent.get(), leaf.c_str(), node.mode ? node.mode : 0755) != 0) {
      return Error::FromErrno("cannot make the folder " + node.Absolute());
    }
    return Ok();
  }
  if (exists && S_ISDIR(st.st_mode) && ::unlinkat(parent.get(), leaf.c_str(), AT_REMOVEDIR) != 0) {
    return Error::FromErrno("cannot remove the folder " + node.Absolute() + " in its place");
  }
  // Written beside and renamed over: the path is never half written.
  std::string temp = ".corral-autorun-" + std::to_string(::getpid()) + "-" + leaf;
  (void)::unlinkat(parent.get(), temp.c_str(), 0);
  if (node.kind == Kind::kLink) {
    if (::symlinkat(node.link.c_str(), parent.get(), temp.c_str()) != 0) {
      return Error::FromErrno("cannot make the link " + node.Absolute());
    }
  } else {
    UniqueFd file(::openat(parent.get(), temp.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!file.valid()) return Error::FromErrno("cannot write beside " + node.Absolute());
    bool ok = WriteAll(file.get(), node.content.data(), node.content.size()) &&
              ::fchmod(file.get(), node.mode ? node.mode : 0644) == 0;
    if (!ok) {
      int saved = errno;
      (void)::unlinkat(parent.get(), temp.c_str(), 0);
      return Error::FromErrno("cannot write " + node.Absolute(), saved);
    }
  }
  if (::renameat(parent.get(), temp.c_str(), parent.get(), leaf.c_str()) != 0) {
    int saved = errno;
    (void)::unlinkat(parent.get(), temp.c_str(), 0);
    return Error::FromErrno("cannot put " + node.Absolute() + " in place", saved);
  }
  return Ok();
}

}  // namespace corral::launcher::autorun
