// What the copy-back does, decided from three views of each path: as it was
// copied in (the manifest), as the box left it (the volume's archive) and
// as this machine has it now. Pure, so every case is a unit test. The box's
// archive is hostile input: its names are checked here, and nothing is
// written through a symlink on either side.
#include <algorithm>
#include <set>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

// One side's version of a path, reduced to what a change is.
struct Version {
  bool present = false;
  TarEntry::Kind kind = TarEntry::kFile;
  unsigned mode = 0;
  std::string hash;
};

bool Same(const Version& a, const Version& b) {
  if (!a.present || !b.present) return a.present == b.present;
  if (a.kind != b.kind || a.hash != b.hash) return false;
  return a.kind == TarEntry::kSymlink || a.mode == b.mode;  // a link's own mode means nothing
}

Version FromManifest(const CopyManifest& manifest, const std::string& path) {
  auto it = manifest.entries.find(path);
  if (it == manifest.entries.end()) return {};
  return {true, it->second.kind, it->second.mode, it->second.hash};
}

Version FromBox(const std::map<std::string, TarEntry>& box, const std::string& path) {
  auto it = box.find(path);
  if (it == box.end()) return {};
  const TarEntry& entry = it->second;
  std::string hash = entry.kind == TarEntry::kFile      ? ContentHash(entry.content)
                     : entry.kind == TarEntry::kSymlink ? entry.content
                                                        : "";
  return {true, entry.kind, entry.mode & 07777, hash};
}

Version FromHost(const HostEntry& host) {
  if (host.state != HostEntry::kPresent) return {};
  return {true, host.kind, host.mode, host.hash};
}

// "a/b/c" → true when every component is a plain name.
bool SafeRelative(const std::string& path) {
  if (path.empty() || path[0] == '/') return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return path.find('\0') == std::string::npos;
}

// The path under the archive's `root` folder, or nullopt for a name
// outside it. "" is the root itself.
std::optional<std::string> UnderRoot(std::string name, const std::string& root) {
  if (name.rfind("./", 0) == 0) name = name.substr(2);
  while (!name.empty() && name.back() == '/') name.pop_back();
  if (name == root) return "";
  if (name.rfind(root + "/", 0) != 0) return std::nullopt;
  return name.substr(root.size() + 1);
}

// The folders above `path`, nearest last: "a/b/c" → "a", "a/b".
std::vector<std::string> Parents(const std::string& path) {
  std::vector<std::string> parents;
  for (std::size_t at = path.find('/'); at != std::string::npos; at = path.find('/', at + 1)) {
    parents.push_back(path.substr(0, at));
  }
  return parents;
}

}  // namespace

std::string BesidePath(const std::string& path, const std::string& session_id) {
  return path + ".corral-" + session_id;
}

std::map<std::string, TarEntry> BoxEntries(const std::vector<TarEntry>& archive,
                                           const std::string& root,
                                           std::vector<std::string>& refused) {
  std::map<std::string, TarEntry> box;
  for (const TarEntry& member : archive) {
    auto path = UnderRoot(member.path, root);
    if (path && path->empty()) continue;  // the volume's root: the project folder itself
    if (!path || !SafeRelative(*path)) {
      refused.push_back(member.path + ": a name outside the project");
      continue;
    }
    bool under_link = false;
    for (const std::string& parent : Parents(*path)) {
      auto it = box.find(parent);
      if (it != box.end() && it->second.kind != TarEntry::kFolder) under_link = true;
    }
    if (under_link) {
      refused.push_back(*path + ": below a symlink or a file of the box");
      continue;
    }
    TarEntry entry = member;
    entry.path = *path;
    if (entry.kind == TarEntry::kHardlink) {
      // The second name of a file: a copy of the one it names, if that is here.
      auto target = UnderRoot(member.content, root);
      auto it = target ? box.find(*target) : box.end();
      if (it == box.end() || it->second.kind != TarEntry::kFile) {
        refused.push_back(*path + ": a hard link to " + member.content);
        continue;
      }
      entry.kind = TarEntry::kFile;
      entry.content = it->second.content;
      entry.mode = it->second.mode;
    } else if (entry.kind == TarEntry::kOther) {
      refused.push_back(*path + ": not a file, folder or symlink");
      continue;
    }
    box[*path] = std::move(entry);
  }
  return box;
}

std::vector<std::string> PathsToCompare(const CopyManifest& manifest,
                                        const std::map<std::string, TarEntry>& box) {
  std::set<std::string> paths;
  for (const auto& [path, entry] : manifest.entries) paths.insert(path);
  for (const auto& [path, entry] : box) paths.insert(path);
  return {paths.begin(), paths.end()};
}

namespace {

// The actions in their buckets, then in the order that makes them work:
// files and links removed, folders removed deepest first, folders made
// shallowest first, files and links written, modes set deepest first (a
// folder made read-only last).
struct Buckets {
  std::vector<SyncAction> remove, remove_folder, make_folder, write, chmod;

  void Add(SyncAction action) {
    switch (action.kind) {
      case SyncAction::kRemove: remove.push_back(std::move(action)); break;
      case SyncAction::kRemoveFolder: remove_folder.push_back(std::move(action)); break;
      case SyncAction::kMakeFolder: make_folder.push_back(std::move(action)); break;
      case SyncAction::kWriteFile:
      case SyncAction::kWriteSymlink: write.push_back(std::move(action)); break;
      case SyncAction::kChmod: chmod.push_back(std::move(action)); break;
    }
  }
  std::vector<SyncAction> InOrder() {
    std::vector<SyncAction> all;
    for (auto* bucket : {&remove, &remove_folder}) {
      all.insert(all.end(), bucket->rbegin(), bucket->rend());
    }
    all.insert(all.end(), make_folder.begin(), make_folder.end());
    all.insert(all.end(), write.begin(), write.end());
    all.insert(all.end(), chmod.rbegin(), chmod.rend());
    return all;
  }
};

SyncAction Removal(const std::string& path, const Version& here) {
  return {here.kind == TarEntry::kFolder ? SyncAction::kRemoveFolder : SyncAction::kRemove, path,
          "", 0};
}

// The box's version written at `path` over this machine's `here`.
void Bring(const std::string& path, const TarEntry* entry, const Version& box, const Version& here,
           Buckets& buckets) {
  if (!box.present) {
    buckets.Add(Removal(path, here));
    return;
  }
  bool same_kind = here.present && here.kind == box.kind;
  if (here.present && !same_kind) buckets.Add(Removal(path, here));
  if (same_kind && box.kind != TarEntry::kSymlink && here.hash == box.hash) {
    buckets.Add({SyncAction::kChmod, path, "", box.mode});  // only the mode changed
    return;
  }
  switch (box.kind) {
    case TarEntry::kFolder: buckets.Add({SyncAction::kMakeFolder, path, "", box.mode}); break;
    case TarEntry::kSymlink: buckets.Add({SyncAction::kWriteSymlink, path, entry->content, 0}); break;
    default: buckets.Add({SyncAction::kWriteFile, path, entry->content, box.mode}); break;
  }
}

}  // namespace

SyncPlan PlanCopyBack(const CopyManifest& manifest, const std::map<std::string, TarEntry>& box,
                      const std::map<std::string, HostEntry>& host) {
  SyncPlan plan;
  Buckets buckets;
  for (const std::string& path : PathsToCompare(manifest, box)) {
    Version copied = FromManifest(manifest, path);
    Version boxed = FromBox(box, path);
    if (Same(copied, boxed)) continue;  // the box left it as it was
    auto found = host.find(path);
    HostEntry state = found != host.end() ? found->second : HostEntry::Of(HostEntry::kBlocked);
    const TarEntry* entry = boxed.present ? &box.at(path) : nullptr;
    if (state.state == HostEntry::kBlocked) {
      if (boxed.present) {
        plan.blocked.push_back(path + ": a symlink on this machine is on its way");
      } else {
        plan.conflicts.push_back(path + ": deleted in the box; left as it is here (a symlink on "
                                 "this machine is on its way)");
      }
      continue;
    }
    Version here = FromHost(state);
    if (Same(copied, here)) {
      Bring(path, entry, boxed, here, buckets);
    } else if (Same(boxed, here)) {
      // Both sides made the same change (or a copy-back stopped half way did).
    } else if (!boxed.present) {
      plan.conflicts.push_back(path + ": deleted in the box and changed here: kept here");
    } else if (boxed.kind == TarEntry::kFolder) {
      plan.conflicts.push_back(path + ": a folder in the box, changed here: kept here");
      if (!here.present) buckets.Add({SyncAction::kMakeFolder, path, "", boxed.mode});
    } else {
      std::string beside = BesidePath(path, manifest.session_id);
      plan.conflicts.push_back(path + ": changed here and in the box: kept here; the box's is " +
                               beside);
      bool link = boxed.kind == TarEntry::kSymlink;
      buckets.Add({link ? SyncAction::kWriteSymlink : SyncAction::kWriteFile, beside,
                   entry->content, boxed.mode});
    }
  }
  plan.actions = buckets.InOrder();
  return plan;
}

UpperPlan PlanIntoUpper(const CopyManifest& manifest, const std::map<std::string, TarEntry>& box) {
  UpperPlan plan;
  Buckets buckets;
  for (const std::string& path : PathsToCompare(manifest, box)) {
    Version copied = FromManifest(manifest, path);
    Version boxed = FromBox(box, path);
    if (Same(copied, boxed)) continue;
    if (!boxed.present) {
      plan.removed.push_back(path);
      continue;
    }
    // Written as the box has it over nothing (the upper folder holds only
    // what changed; a file where a folder was, or the reverse, too: the
    // reader takes the old one out below it). Folders writable by their
    // owner, so that what goes below them can be written.
    if (boxed.kind == TarEntry::kFolder) boxed.mode |= 0700;
    Bring(path, &box.at(path), boxed, Version{}, buckets);
  }
  plan.writes = buckets.InOrder();
  return plan;
}

}  // namespace corral::launcher::network_mode
