// The logins in a Kubernetes rendering (docs/logins.md, docs/kubernetes.md):
// the agent's Pod has stand-ins, the proxy's Pod alone the real values (from
// the Secret the user makes) and the session CA (from the rendered Secret).
#include <algorithm>

#include "launcher/network_mode/network_mode.h"
#include "launcher/render/kubernetes_parts.h"

namespace corral::launcher::kubernetes {

using json = nlohmann::json;

namespace {

// Each form of each stand-in once, as the session's proxy holds them
// (ProxyLogins); no values. Login files are not rendered (`corral spec`
// reads none).
std::vector<netfilter::Login> Held(const SessionPlan& plan) {
  std::vector<netfilter::Login> held;
  for (const BoxLogin& login : plan.logins) {
    if (!login.file.empty()) continue;
    netfilter::Login form;
    form.name = login.variable;
    form.hosts = login.hosts;
    form.header = login.header;
    form.prefix = login.prefix;
    form.stand_in = login.stand_in;
    form.in_body = login.in_body;
    form.basic = login.basic;
    if (std::none_of(held.begin(), held.end(), [&](const netfilter::Login& l) {
          return l.stand_in == form.stand_in && l.header == form.header &&
                 l.prefix == form.prefix && l.basic == form.basic && l.in_body == form.in_body &&
                 l.hosts == form.hosts;
        })) {
      held.push_back(std::move(form));
    }
  }
  return held;
}

// Each variable once (one login may be held in several forms).
std::vector<std::string> Variables(const std::vector<netfilter::Login>& held) {
  std::vector<std::string> names;
  for (const netfilter::Login& login : held) {
    if (std::find(names.begin(), names.end(), login.name) == names.end()) {
      names.push_back(login.name);
    }
  }
  return names;
}

json SecretRef(const std::string& variable, const std::string& secret, const std::string& key) {
  return {{"name", variable}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

}  // namespace

json LoginsSecret(const SessionPlan& plan, const Names& names, const Options& options) {
  // The forge's scope is not rendered for Kubernetes yet (docs/forge.md).
  network_mode::ProxyLogins table{Held(plan), {options.logins.cert, options.logins.key},
                                  options.logins.upstream, {}};
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", names.logins}, {"labels", names.proxy_labels}}},
          {"type", "Opaque"},
          {"stringData",
           {{kLoginsKey, network_mode::ProxyLoginsJson(table, /*values_by_name=*/true)}}}};
}

json ProxyLoginEnvironment(const SessionPlan& plan, const Names& names) {
  json env = json::array();
  env.push_back(SecretRef(network_mode::kProxyLoginsVariable, names.logins, kLoginsKey));
  for (const std::string& name : Variables(Held(plan))) {
    env.push_back(SecretRef(name, names.login_values, name));
  }
  return env;
}

void LoginNotes(const SessionPlan& plan, const Names& names, const Options& options,
                std::vector<std::string>& notes) {
  std::string command = "kubectl create secret generic " + names.login_values;
  std::string variables;
  for (const std::string& name : Variables(Held(plan))) {
    command += " --from-literal=" + name + "=\"$" + name + "\"";
    variables += (variables.empty() ? "" : ", ") + name;
  }
  notes.push_back("Logins (" + variables + "): the agent's Pod has stand-ins, made now from "
                  "the values in your environment; the proxy's Pod alone has the real values, "
                  "from the Secret " + names.login_values + ", which you make with the same values: " +
                  command + " (a value of another length is refused when the proxy starts).");
  notes.push_back("Secret " + names.logins + " holds the proxy's logins table (no values) and "
                  "this session's CA key, which only the proxy's Pod reads: keep this YAML as you "
                  "keep a Secret, and render it again for each session.");
  if (options.logins.cert.empty()) {
    notes.push_back("No session CA was given: the proxy makes its own, which the agent does "
                    "not trust, so its requests to login hosts fail.");
  }
}

}  // namespace corral::launcher::kubernetes
