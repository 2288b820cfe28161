// Hosts allowed for one project's sessions (`corral allow --host NAME
// --project`): kept in corral's state folder, keyed by the project folder,
// and never read from the project itself.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launcher/launcher.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {

namespace {

// An exclusive lock on `path` while the result lives: two corral processes
// must not lose each other's entries.
Result<UniqueFd> LockFile(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return Error("cannot create the folder of " + path + ": " + ec.message());
  UniqueFd lock(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid()) return Error::FromErrno("cannot open " + path);
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return Error::FromErrno("cannot lock " + path);
  }
  return lock;
}

// The file's JSON, or null when it is missing or unreadable.
nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// Written beside, then renamed over: a reader sees the old file or the new.
Result<void> ReplaceFile(const std::string& path, const nlohmann::json& value) {
  std::string temp = path + ".tmp";
  {
    std::ofstream file(temp, std::ios::trunc);
    file << value.dump(2) << "\n";
    if (!file) return Error::FromErrno("cannot write " + temp);
  }
  ::chmod(temp.c_str(), 0600);
  if (::rename(temp.c_str(), path.c_str()) != 0) return Error::FromErrno("cannot replace " + path);
  return Ok();
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
  if (!std::filesystem::exists(path)) return ProjectHosts{};  // none allowed yet
  nlohmann::json parsed = ReadJson(path);
  ProjectHosts hosts;
  if (!parsed.is_object() || !parsed.contains("projects") || !parsed["projects"].is_object()) {
    return Error(path + " is not corral's list of per-project hosts ({\"projects\": {...}}): "
                 "fix or remove it (corral allow --host NAME --project writes it)");
  }
  for (const auto& [project, list] : parsed["projects"].items()) {
    if (!list.is_array()) continue;
    for (const auto& host : list) {
      if (host.is_string()) hosts[project].push_back(host.get<std::string>());
    }
  }
  return hosts;
}

Result<bool> AddProjectHost(const std::string& state_dir, const std::string& project,
                            const std::string& host) {
  auto lock = LockFile(ProjectHostsPath(state_dir) + ".lock");
  if (!lock) return lock.error();
  auto hosts = ReadProjectHosts(state_dir);
  if (!hosts) return hosts.error();
  auto& list = (*hosts)[project];
  if (std::find(list.begin(), list.end(), host) != list.end()) return false;
  list.push_back(host);
  if (auto ok = ReplaceFile(ProjectHostsPath(state_dir), nlohmann::json{{"projects", *hosts}});
      !ok) {
    return ok.error();
  }
  return true;
}

std::string RefusedHostsPath(const std::string& state_dir) {
  return state_dir + "/refused-hosts.json";
}

Result<void> RememberRefusedHosts(const std::string& state_dir, const std::string& project,
                                  const std::string& session,
                                  const std::map<std::string, std::uint64_t>& hosts) {
  std::string path = RefusedHostsPath(state_dir);
  auto lock = LockFile(path + ".lock");
  if (!lock) return lock.error();
  nlohmann::json all = ReadJson(path);
  if (!all.is_object()) all = nlohmann::json::object();
  if (hosts.empty()) {
    if (!all.contains(project)) return Ok();
    all.erase(project);
  } else {
    all[project] = {{"session", session}, {"hosts", hosts}};
  }
  return ReplaceFile(path, all);
}

std::map<std::string, std::uint64_t> LastRefusedHosts(const std::string& state_dir,
                                                      const std::string& project) {
  nlohmann::json all = ReadJson(RefusedHostsPath(state_dir));
  std::map<std::string, std::uint64_t> hosts;
  if (!all.is_object() || !all.contains(project) || !all[project].is_object()) return hosts;
  const auto& list = all[project].value("hosts", nlohmann::json::object());
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
