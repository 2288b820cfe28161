// corral cache ls / rm: the package caches' volumes (launcher/plan/
// package_caches.cc) of this user on one engine.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "launcher/engine/engine.h"
#include "launcher/launcher.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

Result<Engine> ConnectForCaches(const policy::Policy& policy, const std::string& flag) {
  auto choice = ChooseEndpoints(flag, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  auto engine = Engine::Connect(*choice);
  if (!engine) return engine.error().Context("the caches are volumes on an engine");
  return engine;
}

// This user's cache volumes on the engine, by name.
Result<std::vector<CacheVolume>> OwnCacheVolumes(Engine& engine) {
  auto listed = engine.ListVolumesNamed(kCacheVolumePrefix);
  if (!listed) return listed.error();
  std::vector<CacheVolume> caches;
  for (const auto& volume : *listed) {
    auto cache = ParseCacheVolume(volume.value("Name", ""));
    if (cache && cache->uid == ::getuid()) caches.push_back(*cache);
  }
  std::sort(caches.begin(), caches.end(),
            [](const CacheVolume& a, const CacheVolume& b) { return a.name < b.name; });
  return caches;
}

}  // namespace

Result<std::string> ListCaches(const policy::Policy& policy, const std::string& flag) {
  auto engine = ConnectForCaches(policy, flag);
  if (!engine) return engine.error();
  auto caches = OwnCacheVolumes(*engine);
  if (!caches) return caches.error();
  std::ostringstream out;
  if (caches->empty()) {
    out << "no package caches on " << engine->name()
        << " yet: a session makes them when it starts\n";
    return out.str();
  }
  out << "VOLUME                                        CACHE     FOR\n";
  for (const CacheVolume& cache : *caches) {
    char line[512];
    std::string owner = cache.project.empty() ? "your projects (shared)" : "project " + cache.project;
    std::snprintf(line, sizeof line, "%-45s %-9s %s\n", cache.name.c_str(), cache.tool.c_str(),
                  owner.c_str());
    out << line;
  }
  return out.str();
}

Result<void> CheckCacheNames(const std::vector<std::string>& given) {
  std::vector<std::string> tools = CacheTools();
  for (const std::string& name : given) {
    bool tool = std::find(tools.begin(), tools.end(), name) != tools.end();
    if (!tool && !ParseCacheVolume(name)) {
      std::string known;
      for (const std::string& t : tools) known += (known.empty() ? "" : ", ") + t;
      return Error("'" + name + "' is neither a cache (" + known +
                   ") nor a cache volume's name (`corral cache ls` lists them)");
    }
  }
  return Ok();
}

Result<CachesRemoved> RemoveCaches(const policy::Policy& policy, const std::string& flag,
                                   const std::vector<std::string>& given) {
  if (auto ok = CheckCacheNames(given); !ok) return ok.error();
  auto engine = ConnectForCaches(policy, flag);
  if (!engine) return engine.error();
  auto caches = OwnCacheVolumes(*engine);
  if (!caches) return caches.error();
  CachesRemoved removed;
  bool any = false;
  for (const CacheVolume& cache : *caches) {
    bool wanted = given.empty() || std::any_of(given.begin(), given.end(), [&](const auto& name) {
                    return name == cache.tool || name == cache.name;
                  });
    if (!wanted) continue;
    any = true;
    auto outcome = engine->RemoveUnusedVolume(cache.name);
    if (!outcome) return outcome.error();
    if (*outcome == VolumeRemoval::kInUse) {
      removed.problems += "corral: " + cache.name + " is in use by a session's box: it stays (stop "
                       "the session first: `corral ps` lists them)\n";
    } else {
      removed.lines += (*outcome == VolumeRemoval::kRemoved ? "removed " : "gone already: ") +
                       cache.name + "\n";
    }
  }
  // A name that matched nothing: a tool without caches is nothing to do; a
  // volume that is not there is a mistake.
  std::vector<std::string> tools = CacheTools();
  for (const std::string& name : given) {
    bool hit = std::any_of(caches->begin(), caches->end(), [&](const CacheVolume& c) {
      return c.tool == name || c.name == name;
    });
    if (hit) continue;
    if (std::find(tools.begin(), tools.end(), name) != tools.end()) {
      removed.lines += "no " + name + " cache of yours on " + engine->name() + "\n";
    } else {
      removed.problems += "corral: no cache volume " + name + " of yours on " + engine->name() + "\n";
    }
  }
  if (given.empty() && !any) {
    removed.lines += "no package caches on " + engine->name() + "\n";
  }
  return removed;
}

}  // namespace corral::launcher
