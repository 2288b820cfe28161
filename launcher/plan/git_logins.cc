// GitHub's token in the box (docs/logins.md, "git and gh"): with GH_TOKEN or
// GITHUB_TOKEN set, the box gets a stand-in; the proxy adds the real token
// to git over HTTPS (the password of Basic credentials, which a credential
// helper in the box's git config gives) and to gh's API requests.
#include <algorithm>

#include "launcher/plan/plan.h"
#include "netfilter/netfilter.h"

namespace corral::launcher {
namespace {

// Which token goes where, as gh reads them: GH_TOKEN and GITHUB_TOKEN belong
// to github.com, the enterprise ones to $GH_HOST alone.
constexpr const char* kGitHubVariables[] = {"GH_TOKEN", "GITHUB_TOKEN"};
constexpr const char* kEnterpriseVariables[] = {"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"};

// "host:port" for GH_HOST (GitHub Enterprise: git and the API on one host).
std::string EnterpriseHost(const char* gh_host) {
  if (!gh_host || !*gh_host) return "";
  std::string host = gh_host;
  if (host.find("://") != std::string::npos) return HostOfUrl(host);
  return host.find(':') == std::string::npos ? host + ":443" : host;
}

bool IsGitHubLogin(const BoxLogin& login) {
  auto named = [&](const char* name) { return login.variable == name; };
  return std::any_of(std::begin(kGitHubVariables), std::end(kGitHubVariables), named) ||
         std::any_of(std::begin(kEnterpriseVariables), std::end(kEnterpriseVariables), named);
}

}  // namespace

void PlanGitLogins(const PlanInput& input, SessionPlan& plan) {
  auto get = [&](const char* name) -> const char* {
    const char* value = input.getenv ? input.getenv(name) : nullptr;
    return value && *value ? value : nullptr;
  };
  std::string enterprise = EnterpriseHost(get("GH_HOST"));
  struct Group {
    const char* const* names;
    std::size_t count;
    std::vector<std::string> git_hosts, api_hosts;
  };
  std::vector<Group> groups = {{kGitHubVariables, 2, {"github.com:443"}, {"api.github.com:443"}}};
  if (!enterprise.empty()) groups.push_back({kEnterpriseVariables, 2, {enterprise}, {enterprise}});
  for (const Group& group : groups) {
    for (std::size_t i = 0; i < group.count; ++i) {
      const char* name = group.names[i];
      const char* value = get(name);
      if (!value) continue;
      if (input.agent.logins_pass) {
        plan.logins_passed.push_back(name);
        plan.logins_passed_why = "agents.logins: pass";
        continue;
      }
      std::string stand_in;
      for (const BoxLogin& other : plan.logins) {
        const char* other_value = other.file.empty() ? get(other.variable.c_str()) : nullptr;
        if (other_value && std::string_view(other_value) == value) stand_in = other.stand_in;
      }
      if (stand_in.empty()) stand_in = netfilter::MakeStandIn(value);
      if (stand_in.empty()) {
        plan.logins_passed.push_back(name);
        plan.notes.push_back(std::string("warning: login ") + name + " is too short to stand in for "
                             "(under 8 random characters): the box has it as it is");
        continue;
      }
      // git's Basic credentials; gh's `token`; `Bearer` from other clients.
      BoxLogin git{name, "Authorization", "Basic ", group.git_hosts, "", stand_in};
      git.basic = true;
      plan.logins.push_back(git);
      plan.logins.push_back({name, "Authorization", "token ", group.api_hosts, "", stand_in});
      plan.logins.push_back({name, "Authorization", "Bearer ", group.api_hosts, "", stand_in});
    }
  }
}

void UseGitCredentials(SessionPlan& plan) {
  std::vector<std::pair<std::string, std::string>> entries;
  std::vector<std::string> helped;  // one helper per host: the first login for it
  for (const BoxLogin& login : plan.logins) {
    if (!login.basic || !IsGitHubLogin(login)) continue;
    // The helper prints the stand-in from the box's environment; the proxy
    // puts the real token in its place on the way to the git host.
    const std::string helper = "!f() { test \"$1\" = get && echo username=x-access-token && "
                               "echo \"password=$" + login.variable + "\"; }; f";
    for (const std::string& host : login.hosts) {
      if (std::find(helped.begin(), helped.end(), host) != helped.end()) continue;
      helped.push_back(host);
      std::string url = "https://" + (host.size() > 4 && host.substr(host.size() - 4) == ":443"
                                          ? host.substr(0, host.size() - 4)
                                          : host);
      entries.emplace_back("credential." + url + ".helper", helper);
    }
  }
  // ssh remotes over HTTPS through the proxy (docs/forge.md, "ssh").
  for (const auto& [https, prefix] : plan.forge.instead_of) entries.emplace_back("url." + https + ".insteadOf", prefix);
  if (entries.empty()) return;
  bool set = std::any_of(plan.env.begin(), plan.env.end(),
                         [](const std::string& e) { return e.rfind("GIT_CONFIG_COUNT=", 0) == 0; });
  if (set) {
    plan.notes.push_back("GIT_CONFIG_COUNT is passed into the box: corral's git settings (the credential "
                         "helper, ssh remotes over HTTPS) are left out");
    return;
  }
  int count = 0;
  for (const auto& [key, value] : entries) {
    std::string n = std::to_string(count++);
    plan.env.push_back("GIT_CONFIG_KEY_" + n + "=" + key);
    plan.env.push_back("GIT_CONFIG_VALUE_" + n + "=" + value);
  }
  plan.env.push_back("GIT_CONFIG_COUNT=" + std::to_string(count));
}

}  // namespace corral::launcher
