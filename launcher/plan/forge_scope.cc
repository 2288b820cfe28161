// The project's forge (docs/forge.md): the hosts its remotes name, the
// repositories there that are the project's, and which of those hosts'
// APIs corral scopes (GitHub's and GitHub Enterprise's). The proxy ends TLS
// for them and judges each request by what it does.
#include <algorithm>

#include "launcher/plan/plan.h"
#include "netfilter/netfilter.h"

namespace corral::launcher {
namespace {

// "ghe.example.com:443" for GH_HOST ("ghe.example.com", "https://ghe.example.com/").
std::string EnterpriseHost(const char* gh_host) {
  if (!gh_host || !*gh_host) return "";
  std::string host = gh_host;
  if (host.find("://") != std::string::npos) host = HostOfUrl(host);
  while (!host.empty() && host.back() == '/') host.pop_back();
  for (char& c : host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return host.empty() || host.find(':') != std::string::npos ? host : host + ":443";
}

// The part of an ssh remote's URL git's insteadOf replaces: "git@host:" or
// "ssh://git@host/" (with its port as written).
std::string SshPrefix(const std::string& url) {
  auto sep = url.find("://");
  if (sep == std::string::npos) return url.substr(0, url.find(':') + 1);
  auto slash = url.find('/', sep + 3);
  return slash == std::string::npos ? "" : url.substr(0, slash + 1);
}

void AddOnce(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

void PlanForge(const PlanInput& input, const std::string& git_config, SessionPlan& plan) {
  const policy::ForgePolicy& policy = input.policy->forge;
  ForgePlan& forge = plan.forge;
  forge.protected_branches = policy.protected_branches;
  forge.other_reads = policy.other_reads;
  forge.history = policy.history;
  forge.ssh = policy.ssh;
  std::string enterprise = EnterpriseHost(input.getenv ? input.getenv("GH_HOST") : nullptr);
  auto host_of = [&](const std::string& git_host) -> ForgePlan::Host& {
    for (ForgePlan::Host& host : forge.hosts) {
      if (host.git_host == git_host) return host;
    }
    ForgePlan::Host host;
    host.git_host = git_host;
    if (git_host == "github.com:443") {
      host.api_host = "api.github.com:443";
    } else if (!enterprise.empty() && git_host == enterprise) {
      host.api_host = git_host;  // GitHub Enterprise: the API under /api/v3 on the same host
      host.enterprise = true;
    }
    forge.hosts.push_back(host);
    return forge.hosts.back();
  };
  for (const auto& [name, url] : RemoteUrls(git_config)) {
    auto remote = netfilter::forge::RemoteOf(url);
    if (!remote) {
      if (!HostOfUrl(url).empty()) {
        plan.notes.push_back("remote " + name + " (" + url + ") is not read as a forge's repository: " +
                             remote.error().message + "; its host is a plain tunnel");
      }
      continue;
    }
    AddOnce(host_of(remote->https_host).repositories, remote->repository);
    if ((remote->scheme == "ssh" || remote->scheme == "git") && !policy.ssh) {
      std::string prefix = SshPrefix(url);
      std::string https = "https://" + remote->host_name + "/";
      if (!prefix.empty() &&
          std::find(forge.instead_of.begin(), forge.instead_of.end(), std::make_pair(https, prefix)) ==
              forge.instead_of.end()) {
        forge.instead_of.emplace_back(https, prefix);
      }
    }
  }
  for (ForgePlan::Host& host : forge.hosts) {
    for (const std::string& repo : policy.repositories) {
      auto canonical = netfilter::forge::CanonicalRepository(repo);
      if (canonical) AddOnce(host.repositories, *canonical);
    }
    std::string repos;
    for (const std::string& repo : host.repositories) repos += (repos.empty() ? "" : ", ") + repo;
    plan.notes.push_back("forge " + host.git_host + (host.api_host.empty() ? "" : " and its API " + host.api_host) +
                         ": the box reaches this project's repositories (" + repos + ")" +
                         (policy.other_reads ? "; others are read without your token" : "; no other") +
                         (policy.history ? "; while nobody watches, no push deletes a ref, rewrites history or "
                                           "writes the default branch"
                                         : "; pushes are not judged (forge.history: allow)"));
  }
}

}  // namespace corral::launcher
