// The logins in a Kubernetes rendering (docs/logins.md, docs/kubernetes.md):
// the agent's Pod has stand-ins, the proxy's Pod alone the real values (from
// the Secret the user makes) and the session CA (from the rendered Secret).
#include <algorithm>

#include "launcher/network_mode/network_mode.h"
#include "launcher/render/kubernetes_parts.h"

namespace corral::launcher::kubernetes {

using json = nlohmann::json;

namespace {

// One per stand-in, as the session's proxy holds them; no values.
std::vector<netfilter::Login> Held(const SessionPlan& plan) {
  std::vector<netfilter::Login> held;
  for (const BoxLogin& login : plan.logins) {
    if (std::any_of(held.begin(), held.end(),
                    [&](const netfilter::Login& l) { return l.stand_in == login.stand_in; })) {
      continue;
    }
    held.push_back({login.variable, login.hosts, login.header, login.prefix, "", login.stand_in});
  }
  return held;
}

json SecretRef(const std::string& variable, const std::string& secret, const std::string& key) {
  return {{"name", variable}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", key}}}}}};
}

}  // namespace

json LoginsSecret(const SessionPlan& plan, const Names& names, const Options& options) {
  network_mode::ProxyLogins table{Held(plan), {options.logins.cert, options.logins.key},
                                  options.logins.upstream};
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
  for (const netfilter::Login& login : Held(plan)) {
    env.push_back(SecretRef(login.name, names.login_values, login.name));
  }
  return env;
}

void LoginNotes(const SessionPlan& plan, const Names& names, const Options& options,
                std::vector<std::string>& notes) {
  std::string command = "kubectl create secret generic " + names.login_values;
  std::string variables;
  for (const netfilter::Login& login : Held(plan)) {
    command += " --from-literal=" + login.name + "=\"$" + login.name + "\"";
    variables += (variables.empty() ? "" : ", ") + login.name;
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
