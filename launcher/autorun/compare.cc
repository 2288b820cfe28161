// The end-of-session comparison of the watched paths with the snapshot, and
// putting the host's versions back.
#include <algorithm>
#include <map>

#include "launcher/autorun/autorun.h"

namespace corral::launcher::autorun {
bool Same(const Node& a, const Node& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kFolder: return true;  // its contents are compared one by one
    case Kind::kLink: return a.link == b.link;
    case Kind::kFile: return a.content == b.content && a.mode == b.mode;  // +x makes a hook run
    case Kind::kOther: return false;  // a fifo, a device, unreadable: never the host's tool's
  }
  return false;
}

namespace {

std::size_t Depth(const std::string& path) { return std::count(path.begin(), path.end(), '/'); }

std::string Shown(const std::string& absolute, const std::string& project) {
  if (absolute.size() > project.size() && absolute.compare(0, project.size(), project) == 0 &&
      absolute[project.size()] == '/') {
    return absolute.substr(project.size() + 1);
  }
  return absolute;
}

// "corral: .mcp.json: ..." with the state it is left in.
std::string Failure(const Held& held, const std::string& what, const std::string& why,
                    const std::string& state) {
  return held.shown + ": " + what + ": " + why + "; " + state;
}

}  // namespace

Differences Compare(const std::vector<Node>& start, const std::vector<Node>& end,
                    const std::string& project) {
  std::map<std::string, std::pair<const Node*, const Node*>> paths;
  for (const Node& node : start) paths[node.Absolute()].first = &node;
  for (const Node& node : end) paths[node.Absolute()].second = &node;
  Differences out;
  for (const auto& [absolute, pair] : paths) {
    auto [before, after] = pair;
    if (before && after && Same(*before, *after)) continue;
    if (!before && after->kind == Kind::kFolder) {
      out.new_folders.push_back(*after);
      continue;
    }
    Held held;
    const Node& any = before ? *before : *after;
    held.base = any.base;
    held.path = any.path;
    held.shown = Shown(absolute, project);
    held.change = !before                      ? Change::kNew
                  : !after                     ? Change::kRemoved
                  : before->kind != after->kind ? Change::kKindChanged
                                                : Change::kChanged;
    if (before) held.start = *before;
    if (after) held.box = *after;
    out.held.push_back(std::move(held));
  }
  return out;
}

std::vector<std::string> Restore(const Differences& differences,
                                 const std::vector<std::string>& keep_folders) {
  std::vector<std::string> errors;
  // What the box made goes first, deepest first, so that a folder is empty
  // when its turn comes: its held versions, and the folders it made (those
  // only when empty, and never a mount point corral removes itself).
  struct Removal {
    const Held* held;    // null: a folder the box made
    const Node* folder;
    const std::string& path() const { return held ? held->path : folder->path; }
  };
  std::vector<Removal> removals;
  for (const Held& held : differences.held) {
    if (held.box) removals.push_back({&held, nullptr});
  }
  for (const Node& folder : differences.new_folders) {
    if (std::find(keep_folders.begin(), keep_folders.end(), folder.Absolute()) == keep_folders.end()) {
      removals.push_back({nullptr, &folder});
    }
  }
  std::stable_sort(removals.begin(), removals.end(), [](const Removal& a, const Removal& b) {
    return Depth(a.path()) > Depth(b.path());
  });
  std::map<std::string, bool> blocked;  // absolute → its box version could not go
  for (const Removal& removal : removals) {
    if (!removal.held) {
      (void)RemoveNode(removal.folder->base, removal.folder->path);  // one with contents stays
      continue;
    }
    const Held& held = *removal.held;
    if (auto ok = RemoveNode(held.base, held.path); !ok) {
      blocked[held.base + "/" + held.path] = true;
      errors.push_back(Failure(held, "the box's version could not be removed", ok.error().message,
                               "it is still in place (a copy is kept for review)"));
    }
  }
  // Then the host's versions, shallowest first (a folder before its files).
  std::vector<const Held*> puts;
  for (const Held& held : differences.held) {
    if (held.start && !blocked.count(held.base + "/" + held.path)) puts.push_back(&held);
  }
  std::stable_sort(puts.begin(), puts.end(), [](const Held* a, const Held* b) {
    return Depth(a->path) < Depth(b->path);
  });
  for (const Held* held : puts) {
    if (auto ok = PutNode(*held->start); !ok) {
      errors.push_back(Failure(*held, "the host's version could not be put back",
                               ok.error().message,
                               held->box ? "the box's version was removed, so the host has none"
                                         : "the host has none"));
    }
  }
  return errors;
}

}  // namespace corral::launcher::autorun
