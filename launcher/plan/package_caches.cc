// The box's package caches (docs/sessions.md, "Package caches"): npm's,
// pip's, cargo's and Go's downloads in named volumes on the engine, one per
// tool shared by the user's projects, or one per tool and project. Engine
// volumes only, never a host folder: nothing in them is run on this machine.
#include <algorithm>
#include <optional>

#include "base/paths.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

struct CacheRow {
  const char* tool;
  const char* variable;  // where the tool takes its cache's folder from
};

// Outside HOME, under a folder of the image's read-only root: the engine
// makes the mount points there, and the box cannot swap a folder on the way
// for a link (it could in HOME, its own volume) before the shim gives each
// volume to the agent's user. cargo has no variable for its downloads alone:
// CARGO_HOME moves its installed programs and its config.toml too.
constexpr CacheRow kCaches[] = {
    {"npm", "npm_config_cache"},
    {"pip", "PIP_CACHE_DIR"},
    {"cargo", "CARGO_HOME"},
    {"go", "GOMODCACHE"},
    {"go-build", "GOCACHE"},
};

bool OwnCaches(const policy::CachesPolicy& caches, const std::string& project) {
  if (!caches.shared) return true;
  return std::any_of(caches.own_projects.begin(), caches.own_projects.end(),
                     [&](const std::string& folder) { return IsWithin(project, NormalPath(folder)); });
}

}  // namespace

std::vector<std::string> CacheTools() {
  std::vector<std::string> tools;
  for (const CacheRow& row : kCaches) tools.push_back(row.tool);
  return tools;
}

std::string CacheVolumeName(const std::string& tool, std::uint32_t uid, const std::string& project) {
  std::string name = std::string(kCacheVolumePrefix) + tool + "-u" + std::to_string(uid);
  if (project.empty()) return name;
  return name + "-" + Slug(project.substr(project.rfind('/') + 1)) + "-" + ShortHash(project);
}

std::optional<CacheVolume> ParseCacheVolume(const std::string& name) {
  if (name.rfind(kCacheVolumePrefix, 0) != 0) return std::nullopt;
  std::string rest = name.substr(std::string(kCacheVolumePrefix).size());
  // Longest tool first: "go-build-u1000" is go-build's, not go's.
  std::vector<std::string> tools = CacheTools();
  std::sort(tools.begin(), tools.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& tool : tools) {
    if (rest.rfind(tool + "-u", 0) != 0) continue;
    std::string after = rest.substr(tool.size() + 2);
    std::size_t digits = after.find_first_not_of("0123456789");
    std::size_t length = digits == std::string::npos ? after.size() : digits;
    if (length == 0 || length > 9) return std::nullopt;  // no uid, or more than stoul's range
    CacheVolume volume{name, tool, static_cast<std::uint32_t>(std::stoul(after.substr(0, digits))),
                       ""};
    if (digits == std::string::npos) return volume;
    if (after[digits] != '-' || digits + 1 == after.size()) return std::nullopt;
    volume.project = after.substr(digits + 1);
    return volume;
  }
  return std::nullopt;
}

void AddCacheMounts(const policy::CachesPolicy& caches, const std::string& project,
                    std::uint32_t uid, std::vector<Mount>& mounts) {
  const bool own = OwnCaches(caches, project);
  for (const CacheRow& row : kCaches) {
    mounts.push_back({MountKind::kVolume, CacheVolumeName(row.tool, uid, own ? project : ""),
                      std::string(kCacheRootInBox) + "/" + row.tool, false, {},
                      std::string(row.tool) + "'s cache: " +
                          (own ? "this project's own" : "shared by your projects") +
                          " (caches.mode)"});
  }
}

std::vector<std::string> CacheEnvironment() {
  std::vector<std::string> env;
  for (const CacheRow& row : kCaches) {
    env.push_back(std::string(row.variable) + "=" + kCacheRootInBox + "/" + row.tool);
  }
  return env;
}

}  // namespace corral::launcher
