// The agent's logins in the plan (docs/logins.md): for each one that is set,
// the box gets a stand-in of the value's shape and length, and the session's
// proxy the real value (read again from corral's environment when it starts).
#include <algorithm>

#include "launcher/plan/plan.h"
#include "netfilter/netfilter.h"

namespace corral::launcher {

std::vector<std::string> LoginHosts(const BoxLogin& login, const char* base_url) {
  if (base_url && *base_url) {
    std::string host = HostOfUrl(base_url);
    std::string scheme = std::string(base_url).substr(0, 5);
    if (!host.empty() && (scheme == "http:" || scheme == "https")) return {host};
  }
  std::vector<std::string> hosts;
  for (const std::string& host : login.hosts) {
    hosts.push_back(host.find(':') == std::string::npos ? host + ":443" : host);
  }
  return hosts;
}

void PlanLogins(const PlanInput& input, SessionPlan& plan) {
  auto get = [&](const std::string& name) -> const char* {
    const char* value = input.getenv && !name.empty() ? input.getenv(name.c_str()) : nullptr;
    return value && *value ? value : nullptr;
  };
  const AgentAdditions& agent = input.agent;
  if (!input.logins_through_proxy) return;
  for (const BoxLogin& login : agent.logins) {
    const char* value = get(login.variable);
    if (!value) continue;
    if (agent.logins_pass) {
      plan.logins_passed.push_back(login.variable);
      plan.logins_passed_why = "agents.logins: pass";
      continue;
    }
    BoxLogin planned = login;
    planned.hosts = LoginHosts(login, get(login.base_url_variable));
    // The same value in two variables gets the same stand-in; the proxy
    // holds one login for it (two would overlap), the first one's header.
    auto same = std::find_if(plan.logins.begin(), plan.logins.end(), [&](const BoxLogin& other) {
      const char* other_value = get(other.variable);
      return other_value && std::string_view(other_value) == value;
    });
    if (same != plan.logins.end()) {
      plan.notes.push_back("login " + login.variable + " holds the same value as " +
                           same->variable + ": the box has one stand-in for both, and the proxy adds "
                           "the value in each one's header");
      planned.stand_in = same->stand_in;
      plan.logins.push_back(std::move(planned));
      continue;
    }
    planned.stand_in = netfilter::MakeStandIn(value);
    if (planned.stand_in.empty()) {
      plan.logins_passed.push_back(login.variable);
      plan.notes.push_back("warning: login " + login.variable + " is too short to stand in for "
                           "(under 8 random characters): the "
                           "box has it as it is");
      continue;
    }
    plan.logins.push_back(std::move(planned));
  }
  PlanGitLogins(input, plan);
  PlanLoginFiles(input, plan);
}

void UseStandIns(SessionPlan& plan) {
  auto login_of = [&](const std::string& name) -> const BoxLogin* {
    for (const BoxLogin& login : plan.logins) {
      if (login.variable == name) return &login;
    }
    return nullptr;
  };
  std::vector<std::string> placed;
  for (std::string& entry : plan.env) {
    std::string name = entry.substr(0, entry.find('='));
    if (const BoxLogin* login = login_of(name)) {
      entry = name + "=" + login->stand_in;
      placed.push_back(name);
    }
  }
  for (const BoxLogin& login : plan.logins) {
    if (!login.file.empty()) continue;  // in the box's copy of its file
    if (std::find(placed.begin(), placed.end(), login.variable) == placed.end()) {
      plan.env.push_back(login.variable + "=" + login.stand_in);
      placed.push_back(login.variable);  // one variable may go in several forms
    }
  }
  auto& passed = plan.passed_by_name;
  passed.erase(std::remove_if(passed.begin(), passed.end(),
                              [&](const std::string& name) { return login_of(name) != nullptr; }),
               passed.end());
}

void PassLoginsAsTheyAre(SessionPlan& plan, const std::function<const char*(const char*)>& getenv,
                         const std::string& ca_bundle, const std::string& why) {
  if (plan.logins.empty() && plan.login_files.empty()) return;
  for (const BoxLogin& login : plan.logins) {
    if (!login.file.empty()) {  // its file is copied as it is
      plan.logins_passed.push_back(login.variable);
      continue;
    }
    const char* value = getenv ? getenv(login.variable.c_str()) : nullptr;
    for (std::string& entry : plan.env) {
      if (entry.rfind(login.variable + "=", 0) == 0) entry = login.variable + "=" + (value ? value : "");
    }
    auto& passed = plan.logins_passed;
    if (std::find(passed.begin(), passed.end(), login.variable) != passed.end()) continue;
    plan.passed_by_name.push_back(login.variable);
    passed.push_back(login.variable);
  }
  plan.logins.clear();
  plan.login_files.clear();
  plan.box_login_files.clear();
  plan.logins_passed_why = why;
  // The box trusts the host's bundle again, as it does without logins.
  auto ca = std::find_if(plan.mounts.begin(), plan.mounts.end(),
                         [](const Mount& m) { return m.target == kCaInBox; });
  if (ca == plan.mounts.end()) return;
  if (!ca_bundle.empty()) {
    ca->source = ca_bundle;
    ca->why = "the host's trusted CA bundle";
    return;
  }
  plan.mounts.erase(ca);
  plan.env.erase(std::remove_if(plan.env.begin(), plan.env.end(),
                                [](const std::string& entry) {
                                  return entry.find(std::string("=") + kCaInBox) !=
                                         std::string::npos;
                                }),
                 plan.env.end());
}

}  // namespace corral::launcher
