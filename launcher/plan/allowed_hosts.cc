// The hosts a session's proxy lets through: the policy's lists (checked by the
// proxy's own rules when the config was loaded), and those other places add.
// Each added host passes the same rules, or is left out with a note saying
// why: a session never starts with an entry its proxy would refuse.
#include <algorithm>

#include "launcher/plan/plan.h"
#include "netfilter/netfilter.h"
#include "policy/network/network.h"

namespace corral::launcher {
namespace {

// Why the proxy could not take `host`, or "" when it can. A host read from a
// URL (a git remote, a registry) is one host, never a "*." wildcard.
std::string Unfit(const std::string& host, bool from_url) {
  auto entry = policy::ParseDomainEntry(host);
  if (!entry) return entry.error().message;
  if (from_url && entry->wildcard) return "`" + host + "` is a wildcard, and a URL names one host";
  return "";
}

// The kind of registry a tool's setting names, from where it was read
// (~/.npmrc, pip.conf, ~/.cargo/config.toml, GOPROXY, or their variables).
std::string RegistryKindOf(const std::string& from) {
  auto has = [&](const char* word) { return from.find(word) != std::string::npos; };
  if (has("npm") || has("NPM")) return "npm";
  if (has("pip") || has("PIP")) return "pypi";
  if (has("cargo") || has("CARGO")) return "crates";
  if (has("GOPROXY") || has("GOPRIVATE")) return "go";
  return "";
}

}  // namespace

void AllowHosts(const PlanInput& input, const std::string& git_config, SessionPlan& plan) {
  auto& hosts = plan.allowed_domains;
  auto listed = [&](const std::string& host) {
    return std::find(hosts.begin(), hosts.end(), host) != hosts.end();
  };
  // Adds a host once; false when it was there already or the proxy could
  // not take it (then a note names it, where it came from and why).
  auto allow = [&](const std::string& host, const std::string& from, bool from_url) {
    if (std::string why = Unfit(host, from_url); !why.empty()) {
      plan.notes.push_back(host + " (" + from + ") left out of the proxy's list: " + why);
      return false;
    }
    if (listed(host)) return false;
    hosts.push_back(host);
    return true;
  };
  std::vector<std::string> git_hosts;
  for (const auto& [name, url] : RemoteUrls(git_config)) {
    std::string host = HostOfUrl(url);
    if (host.empty()) continue;
    auto remote = netfilter::forge::RemoteOf(url);
    if (remote && (remote->scheme == "ssh" || remote->scheme == "git") && !input.policy->forge.ssh) {
      plan.notes.push_back("remote " + name + " goes over HTTPS through the proxy (" + remote->https_host +
                           "); " + host + " stays closed (forge.ssh: allow opens it)");
      host = remote->https_host;
    }
    if (std::find(git_hosts.begin(), git_hosts.end(), host) == git_hosts.end()) git_hosts.push_back(host);
  }
  for (const std::string& host : git_hosts) {
    allow(host, "a git remote in .git/config", true);
    if (listed(host)) plan.notes.push_back("git host " + host + " allowed (from .git/config)");
  }
  // gh in the box: a GitHub project with its token needs GitHub's API too.
  bool github_token = std::any_of(plan.logins.begin(), plan.logins.end(), [](const BoxLogin& login) {
    return login.basic && (login.variable == "GH_TOKEN" || login.variable == "GITHUB_TOKEN");
  });
  if (github_token && listed("github.com:443") && allow("api.github.com:443", "GitHub's API", false)) {
    plan.notes.push_back("api.github.com:443 allowed (the project is on GitHub and its token is set: gh works)");
  }
  bool recipe = false;
  for (const std::string& host : input.agent.hosts) {
    allow(host, input.agent.agent + "'s recipe", false);
    recipe = recipe || listed(host);
  }
  if (recipe) {
    plan.notes.push_back(input.agent.agent + "'s API and login hosts allowed (its recipe)");
  }
  if (auto project = input.project_hosts.find(plan.project_dir);
      project != input.project_hosts.end()) {
    for (const std::string& host : project->second) {
      if (allow(host, "this project's list, corral allow --host --project", false)) {
        plan.notes.push_back(host + " allowed for this project (corral allow --host --project)");
      }
    }
  }
  for (const auto& [host, from] : input.tool_registries) {
    if (std::string kind = RegistryKindOf(from); !kind.empty()) {
      plan.tool_registries.emplace_back(host.substr(0, host.rfind(':')), kind);
    }
    if (allow(host, "a registry your tools use, from " + from, true)) {
      plan.notes.push_back("registry " + host + " allowed (your tools use it: " + from + ")");
    }
  }
}

}  // namespace corral::launcher
