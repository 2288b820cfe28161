// Hosts per project, kept in corral's state folder (state_json.cc), keyed by
// the project folder, never read from the project itself: those allowed for
// its sessions (`corral allow --host NAME --project`) and those its last
// session was refused (named again by the next session's start and --print).
#include <algorithm>

#include "base/paths.h"
#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {

namespace {

constexpr const char* kNotProjectHosts =
    " is not corral's list of per-project hosts ({\"projects\": {...}}): fix or remove it "
    "(corral allow --host NAME --project writes it)";

Result<ProjectHosts> ParseProjectHosts(const std::string& path, const nlohmann::json& parsed) {
  ProjectHosts hosts;
  if (parsed.is_null()) return hosts;  // none allowed yet
  if (!parsed.is_object() || !parsed.contains("projects") || !parsed["projects"].is_object()) {
    return Error(path + kNotProjectHosts);
  }
  for (const auto& [project, list] : parsed["projects"].items()) {
    if (!list.is_array()) continue;
    for (const auto& host : list) {
      if (host.is_string()) hosts[project].push_back(host.get<std::string>());
    }
  }
  return hosts;
}

}  // namespace

std::string ProjectHostsPath(const std::string& state_dir) {
  return state_dir + "/project-hosts.json";
}

std::string ProjectFolderOf(const std::string& cwd) {
  GitLayout git = FindGit(cwd);
  return git.top.empty() ? NormalPath(cwd) : git.top;
}

Result<ProjectHosts> ReadProjectHosts(const std::string& state_dir) {
  std::string path = ProjectHostsPath(state_dir);
  auto parsed = ReadStateJson(path);
  if (!parsed) return parsed.error();
  return ParseProjectHosts(path, *parsed);
}

Result<bool> AddProjectHost(const std::string& state_dir, const std::string& project,
                            const std::string& host) {
  std::string path = ProjectHostsPath(state_dir);
  bool added = false;
  auto ok = UpdateStateJson(path, [&](nlohmann::json& value) -> Result<bool> {
    auto hosts = ParseProjectHosts(path, value);
    if (!hosts) return hosts.error();
    auto& list = (*hosts)[project];
    if (std::find(list.begin(), list.end(), host) != list.end()) return false;
    list.push_back(host);
    value = {{"projects", *hosts}};
    return added = true;
  });
  if (!ok) return ok.error();
  return added;
}

std::string RefusedHostsPath(const std::string& state_dir) {
  return state_dir + "/refused-hosts.json";
}

Result<void> RememberRefusedHosts(const std::string& state_dir, const std::string& project,
                                  const std::string& session,
                                  const std::map<std::string, std::uint64_t>& hosts) {
  return UpdateStateJson(RefusedHostsPath(state_dir), [&](nlohmann::json& all) -> Result<bool> {
    if (!all.is_object()) all = nlohmann::json::object();
    if (hosts.empty()) return all.erase(project) > 0;
    all[project] = {{"session", session}, {"hosts", hosts}};
    return true;
  });
}

std::map<std::string, std::uint64_t> LastRefusedHosts(const std::string& state_dir,
                                                      const std::string& project) {
  auto all = ReadStateJson(RefusedHostsPath(state_dir));
  std::map<std::string, std::uint64_t> hosts;
  if (!all || !all->is_object() || !all->contains(project) || !(*all)[project].is_object()) {
    return hosts;
  }
  const auto& list = (*all)[project].value("hosts", nlohmann::json::object());
  if (!list.is_object()) return hosts;
  for (const auto& [host, times] : list.items()) {
    if (times.is_number_unsigned()) hosts[host] = times.get<std::uint64_t>();
  }
  return hosts;
}

std::string RefusedHostsLine(const std::map<std::string, std::uint64_t>& refused_hosts) {
  if (refused_hosts.empty()) return "";
  std::vector<std::pair<std::string, std::uint64_t>> hosts(refused_hosts.begin(),
                                                           refused_hosts.end());
  std::stable_sort(hosts.begin(), hosts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string line = "the proxy refused ";
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (i > 0) line += ", ";
    line += hosts[i].first + " (" + std::to_string(hosts[i].second) +
            (hosts[i].second == 1 ? " time)" : " times)");
  }
  return line + "; to allow one for later sessions: corral allow --host NAME [--project]";
}

}  // namespace corral::launcher
