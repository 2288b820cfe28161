// Folders that are never a project: a box (or an unboxed agent) there would
// be handed the user's keys or corral's own rules.
#include <limits.h>
#include <stdlib.h>

#include "base/paths.h"
#include "launcher/agents/agents.h"
#include "launcher/hold/hold.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

// The path as written and as resolved: a link to a folder is that folder.
std::vector<std::string> Forms(const std::string& path) {
  std::vector<std::string> forms{NormalPath(path)};
  if (std::string real = CanonicalFolder(path); real != forms.front()) forms.push_back(real);
  return forms;
}

bool AnyWithin(const std::vector<std::string>& paths, const std::vector<std::string>& dirs) {
  for (const auto& path : paths) {
    for (const auto& dir : dirs) {
      if (IsWithin(path, dir)) return true;
    }
  }
  return false;
}

}  // namespace

std::string CanonicalFolder(const std::string& path) {
  char buf[PATH_MAX];
  if (!path.empty() && ::realpath(path.c_str(), buf) != nullptr) return buf;
  return NormalPath(path);
}

Result<HostFolders> HostFoldersFor(const policy::Policy& policy, const PlanInput& input) {
  HostFolders host{input.home, input.config_dir, input.state_dir, {}};
  auto recipes = Recipes(policy.agents);
  if (!recipes) return recipes.error();
  for (const Recipe& recipe : *recipes) {
    std::string whose = recipe.name + "'s settings";
    const char* named = !recipe.folder_variable.empty() && input.getenv
                            ? input.getenv(recipe.folder_variable.c_str())
                            : nullptr;
    if (named && *named == '/') host.agent_settings.push_back({named, whose});
    for (const std::string& entry : recipe.folders) {
      // A file (~/.claude.json) cannot be a project; only folders ("~/.claude/").
      if (entry.empty() || entry.back() != '/') continue;
      std::string path = entry.rfind("~/", 0) == 0 ? input.home + entry.substr(1) : entry;
      if (!input.home.empty() || path[0] == '/') host.agent_settings.push_back({path, whose});
    }
  }
  return host;
}

std::string NeverAProject(const std::string& folder, const HostFolders& host) {
  const auto project = Forms(folder);
  const std::string shown = project.front();
  if (AnyWithin({"/"}, project)) {
    return "/ is the whole machine, never a project: a box there would hand the agent your keys "
           "and corral's own rules. cd into a project folder first";
  }
  if (!host.home.empty() && AnyWithin(Forms(host.home), project)) {
    bool is_home = AnyWithin(project, Forms(host.home));
    return shown + (is_home ? " is your home folder" : " holds your home folder") +
           ", never a project: a box there would hand the agent your keys (~/.ssh, the agents' "
           "logins) and corral's own rules. cd into a project folder first";
  }
  auto refuse = [&](const std::string& dir, const std::string& what, const std::string& why) {
    if (dir.empty()) return std::string();
    auto dirs = Forms(dir);
    if (!AnyWithin(project, dirs) && !AnyWithin(dirs, project)) return std::string();
    return shown + (AnyWithin(project, dirs) ? " is in " : " holds ") + what + " folder " +
           dirs.front() + ", never a project: a box there " + why +
           ". Open a project outside it";
  };
  for (const auto& [dir, what] : {std::pair{host.config_dir, "corral's config"},
                                  std::pair{host.state_dir, "corral's state"}}) {
    if (auto line = refuse(dir, what, "could rewrite corral's own rules"); !line.empty()) {
      return line;
    }
  }
  for (const auto& agent : host.agent_settings) {
    if (auto line = refuse(agent.path, agent.whose, "would hand the agent your logins and keys");
        !line.empty()) {
      return line;
    }
  }
  return "";
}

}  // namespace corral::launcher
