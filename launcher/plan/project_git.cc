// The project's git layout and remotes, read as text.
#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "base/paths.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace fs = std::filesystem;
namespace {

bool IsDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::string ReadText(const std::string& path) { return ReadWholeFile(path).value_or(""); }

GitLayout FindGit(const std::string& dir) {
  GitLayout git;
  for (fs::path p = NormalPath(dir);; p = p.parent_path()) {
    struct stat st {};
    std::string dot_git = (p / ".git").string();
    if (::lstat(dot_git.c_str(), &st) == 0) {
      git.top = p.string();
      git.git_dir = dot_git;
      if (S_ISREG(st.st_mode)) {  // a worktree: "gitdir: /main/.git/worktrees/name"
        std::string line(Trim(ReadText(dot_git)));
        if (line.rfind("gitdir:", 0) == 0) {
          fs::path gitdir(Trim(std::string_view(line).substr(7)));
          if (gitdir.is_relative()) gitdir = p / gitdir;
          git.git_dir = NormalPath(gitdir.string());
          std::string common(Trim(ReadText(git.git_dir + "/commondir")));
          if (!common.empty()) {
            fs::path c = common;
            if (c.is_relative()) c = fs::path(git.git_dir) / c;
            git.common_dir = NormalPath(c.string());
          }
        }
      }
      return git;
    }
    if (p == p.parent_path()) return git;
  }
}

autorun::Roots AutorunRoots(const std::string& project, const std::string& home) {
  autorun::Roots roots;
  roots.project = project;
  GitLayout git = FindGit(project);
  std::vector<std::string> configs;
  if (!git.top.empty()) {
    roots.worktree = !git.common_dir.empty();
    roots.repo = roots.worktree ? git.common_dir : git.git_dir;
    if (roots.worktree) roots.git_dir = git.git_dir;
    configs = {roots.repo + "/config", roots.repo + "/config.worktree"};
    if (roots.worktree) configs.push_back(git.git_dir + "/config.worktree");
  }
  if (!home.empty()) {
    configs.push_back(home + "/.gitconfig");
    configs.push_back(home + "/.config/git/config");
  }
  for (const std::string& path : configs) roots.git_configs.push_back(ReadText(path));
  return roots;
}

std::string CommondirToWatch(const std::string& project_dir) {
  GitLayout git = FindGit(project_dir);
  if (git.top.empty() || !git.common_dir.empty()) return "";
  std::string path = git.git_dir + "/commondir";
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? "" : path;
}

std::string HostOfUrl(const std::string& raw) {
  std::string url(Trim(raw));
  std::string scheme, rest;
  auto sep = url.find("://");
  if (sep != std::string::npos) {
    scheme = url.substr(0, sep);
    rest = url.substr(sep + 3);
  } else {
    // scp-like: [user@]host:path, with no slash before the colon.
    auto colon = url.find(':');
    auto slash = url.find('/');
    if (colon == std::string::npos || (slash != std::string::npos && slash < colon)) return "";
    std::string host = url.substr(0, colon);
    if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    return host.empty() ? "" : host + ":22";
  }
  std::string port;
  if (scheme == "https") port = "443";
  else if (scheme == "http") port = "80";
  else if (scheme == "ssh" || scheme == "git+ssh" || scheme == "ssh+git") port = "22";
  else if (scheme == "git") port = "9418";
  else return "";  // file://, local paths, helpers
  std::string authority = rest.substr(0, rest.find('/'));
  if (auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  std::string host = authority;
  if (!authority.empty() && authority[0] == '[') {  // [v6]:port
    auto close = authority.find(']');
    if (close == std::string::npos) return "";
    host = authority.substr(0, close + 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
  } else if (auto colon = authority.rfind(':'); colon != std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty() || !IsDigits(port)) return "";
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return host + ":" + port;
}

std::vector<std::pair<std::string, std::string>> RemoteUrls(const std::string& config_text) {
  std::vector<std::pair<std::string, std::string>> remotes;  // name, url
  std::istringstream in(config_text);
  std::string line, remote;
  while (std::getline(in, line)) {
    line = std::string(Trim(line));
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      remote.clear();
      if (line.rfind("[remote \"", 0) == 0 && line.size() > 11) {
        remote = line.substr(9, line.find('"', 9) - 9);
      }
      continue;
    }
    if (remote.empty()) continue;
    auto eq = line.find('=');
    if (eq == std::string::npos || Trim(std::string_view(line).substr(0, eq)) != "url") continue;
    remotes.emplace_back(remote, Trim(std::string_view(line).substr(eq + 1)));
  }
  std::stable_partition(remotes.begin(), remotes.end(),
                        [](const auto& r) { return r.first == "origin"; });
  return remotes;
}

std::vector<std::string> GitHosts(const std::string& config_text) {
  auto remotes = RemoteUrls(config_text);
  std::vector<std::string> hosts;
  for (const auto& [name, url] : remotes) {
    std::string host = HostOfUrl(url);
    if (!host.empty() && std::find(hosts.begin(), hosts.end(), host) == hosts.end()) {
      hosts.push_back(host);
    }
  }
  return hosts;
}

}  // namespace corral::launcher
