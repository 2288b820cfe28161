// The session's logins on the host side (docs/logins.md): the real values
// go to the proxy, read from corral's environment as it starts; the box gets
// the session CA in its trusted bundle, and a start line names them.
#include <algorithm>

#include "launcher/plan/plan.h"
#include "launcher/session/session.h"

namespace corral::launcher {

Result<std::vector<netfilter::Login>> ProxyLogins(const SessionPlan& plan,
                                                  const LoginSource& source) {
  std::vector<netfilter::Login> logins;
  for (const BoxLogin& login : plan.logins) {
    // Two variables with one value share a stand-in: the proxy holds each
    // form of it (header, prefix, hosts) once.
    if (std::any_of(logins.begin(), logins.end(), [&](const netfilter::Login& l) {
          return l.stand_in == login.stand_in && l.header == login.header && l.prefix == login.prefix &&
                 l.basic == login.basic && l.in_body == login.in_body && l.hosts == login.hosts;
        })) {
      continue;
    }
    if (!login.file.empty()) {
      auto value = FileLoginValue(login);
      if (!value) return value.error();
      logins.push_back({login.variable, login.hosts, login.header, login.prefix, *value,
                        login.stand_in, login.in_body});
      continue;
    }
    const char* value = source.getenv ? source.getenv(login.variable.c_str()) : nullptr;
    if (!value || std::string_view(value).size() != login.stand_in.size()) {
      return Error("the login in $" + login.variable + " changed while the session was being "
                   "set up: start the session again");
    }
    netfilter::Login held{login.variable, login.hosts, login.header, login.prefix, value,
                          login.stand_in, login.in_body};
    held.basic = login.basic;
    logins.push_back(std::move(held));
  }
  return logins;
}

std::string UpstreamCaFile(const policy::Policy& policy, const std::string& host_bundle) {
  auto it = policy.settings.find("network.upstream_ca_file");
  if (it == policy.settings.end() || !it->second.value.is_string()) return host_bundle;
  std::string file = it->second.value.get<std::string>();
  return file.empty() ? host_bundle : file;
}

// The plan's forge as the proxy takes it.
netfilter::forge::ForgeConfig ForgeConfig(const ForgePlan& plan) {
  netfilter::forge::ForgeConfig config;
  for (const ForgePlan::Host& host : plan.hosts) {
    config.forges.push_back({host.git_host, host.api_host, host.enterprise, host.repositories});
  }
  config.protected_branches = plan.protected_branches;
  config.other_reads = plan.other_reads;
  config.history = plan.history;
  return config;
}

std::string BoxCaBundleText(const SessionPlan& plan, const std::string& host_bundle,
                            const std::string& ca_pem) {
  std::string text = host_bundle.empty() ? "" : ReadText(host_bundle);
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text + "# corral session " + plan.session_id + ": the proxy's CA for login hosts\n" +
         ca_pem;
}

Result<void> WriteBoxCaBundle(const SessionPlan& plan, const std::string& host_bundle,
                              const std::string& ca_pem) {
  auto ok = WriteFile(plan.session_dir + "/" + kCaBundleFile,
                      BoxCaBundleText(plan, host_bundle, ca_pem), 0644);
  if (!ok) return ok.error().Context("write the box's CA bundle");
  return Ok();
}

std::string LoginsLine(const SessionPlan& plan) {
  std::string line;
  if (!plan.logins.empty()) {
    line = "logins held by the proxy (the box has stand-ins):";
    // One login in several forms (GH_TOKEN: git's Basic, gh's token) is one name.
    std::vector<std::pair<std::string, std::vector<std::string>>> named;
    for (const BoxLogin& login : plan.logins) {
      auto it = std::find_if(named.begin(), named.end(), [&](const auto& n) { return n.first == login.variable; });
      if (it == named.end()) it = named.insert(named.end(), {login.variable, {}});
      for (const std::string& host : login.hosts) {
        if (std::find(it->second.begin(), it->second.end(), host) == it->second.end()) it->second.push_back(host);
      }
    }
    for (const auto& [name, hosts] : named) {
      line += " " + name + " (";
      for (std::size_t i = 0; i < hosts.size(); ++i) line += (i ? ", " : "") + hosts[i];
      line += ")";
    }
  }
  if (!plan.logins_passed.empty()) {
    line += std::string(line.empty() ? "" : "; ") + "logins in the box as they are";
    if (!plan.logins_passed_why.empty()) line += " (" + plan.logins_passed_why + ")";
    line += ":";
    for (const std::string& name : plan.logins_passed) line += " " + name;
  }
  return line;
}

}  // namespace corral::launcher
