// SessionPlan → Kubernetes objects: the agent's Pod (kubernetes_pod.cc), a
// proxy Pod running `corral proxy` behind a Service, a ConfigMap with the
// session's files, and NetworkPolicies that let the agent reach only the
// proxy. On paper: docs/kubernetes.md says what is not built.
#include <set>

#include "launcher/network_mode/network_mode.h"
#include "launcher/render/kubernetes_parts.h"
#include "policy/network/network.h"

namespace corral::launcher::kubernetes {
namespace {

using json = nlohmann::json;

// Addresses the proxy Pod may not dial even if the proxy would: the cluster's
// own networks, the node, cloud metadata. The proxy refuses them too; this is
// the second line, held by the cluster.
const char* const kPrivateV4[] = {"10.0.0.0/8",    "172.16.0.0/12",  "192.168.0.0/16",
                                  "100.64.0.0/10", "169.254.0.0/16", "127.0.0.0/8"};
const char* const kPrivateV6[] = {"fc00::/7", "fe80::/10", "::1/128"};

json Metadata(const std::string& name, const json& labels) {
  return {{"name", name}, {"labels", labels}};
}

json KubeDns() {
  return {
      {"to",
       {{{"namespaceSelector", {{"matchLabels", {{"kubernetes.io/metadata.name", "kube-system"}}}}},
         {"podSelector", {{"matchLabels", {{"k8s-app", "kube-dns"}}}}}}}},
      {"ports", {{{"protocol", "UDP"}, {"port", 53}}, {{"protocol", "TCP"}, {"port", 53}}}}};
}

// The ports the proxy dials: 443 and 80, and any an allowed entry names
// (read by the proxy's own rules).
std::set<int> ProxyPorts(const std::vector<std::string>& allowed) {
  std::set<int> ports = {80, 443};
  for (const std::string& text : allowed) {
    auto entry = policy::ParseDomainEntry(text);
    if (entry && entry->port) ports.insert(*entry->port);
  }
  return ports;
}

json SessionFiles(const SessionPlan& plan, const Names& names, const Options& options) {
  std::string deny_list;
  for (const std::string& line : plan.deny_list) deny_list += line + "\n";
  json files = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", Metadata(names.base, {{kLabelSession, plan.session_id}})},
      {"data",
       {{kDenyListFile, deny_list}, {"empty", ""}, {"seccomp.json", plan.seccomp.dump(2) + "\n"}}}};
  // The agent's trusted bundle, with the session CA's certificate (no key).
  if (!plan.logins.empty() && !options.logins.box_bundle.empty()) {
    files["data"][kCaBundleFile] = options.logins.box_bundle;
  }
  return files;
}

json ProxyService(const SessionPlan& plan, const Names& names) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata", Metadata(names.proxy, {{kLabelSession, plan.session_id}})},
          {"spec",
           {{"selector", names.proxy_labels},
            {"ports",
             {{{"name", "http-proxy"},
               {"protocol", "TCP"},
               {"port", kProxyPort},
               {"targetPort", kProxyPort}}}}}}};
}

// The agent reaches the proxy and the cluster's DNS (to find the proxy by its
// Service name), nothing else; nothing reaches the agent.
json AgentPolicy(const SessionPlan& plan, const Names& names) {
  json to_proxy = {{"to", {{{"podSelector", {{"matchLabels", names.proxy_labels}}}}}},
                   {"ports", {{{"protocol", "TCP"}, {"port", kProxyPort}}}}};
  return {{"apiVersion", "networking.k8s.io/v1"},
          {"kind", "NetworkPolicy"},
          {"metadata", Metadata(names.base + "-agent", {{kLabelSession, plan.session_id}})},
          {"spec",
           {{"podSelector", {{"matchLabels", names.agent_labels}}},
            {"policyTypes", {"Ingress", "Egress"}},
            {"ingress", json::array()},
            {"egress", {to_proxy, KubeDns()}}}}};
}

// The proxy is reached by the agent only, and reaches public addresses on
// the ports its list names, and the cluster's DNS.
json ProxyPolicy(const SessionPlan& plan, const Names& names) {
  json ports = json::array();
  for (int port : ProxyPorts(plan.allowed_domains)) {
    ports.push_back({{"protocol", "TCP"}, {"port", port}});
  }
  json outside = {{"to",
                   {{{"ipBlock", {{"cidr", "0.0.0.0/0"}, {"except", kPrivateV4}}}},
                    {{"ipBlock", {{"cidr", "::/0"}, {"except", kPrivateV6}}}}}},
                  {"ports", ports}};
  json from_agent = {{"from", {{{"podSelector", {{"matchLabels", names.agent_labels}}}}}},
                     {"ports", {{{"protocol", "TCP"}, {"port", kProxyPort}}}}};
  return {{"apiVersion", "networking.k8s.io/v1"},
          {"kind", "NetworkPolicy"},
          {"metadata", Metadata(names.proxy, {{kLabelSession, plan.session_id}})},
          {"spec",
           {{"podSelector", {{"matchLabels", names.proxy_labels}}},
            {"policyTypes", {"Ingress", "Egress"}},
            {"ingress", {from_agent}},
            {"egress", {outside, KubeDns()}}}}};
}

json ProxyPod(const SessionPlan& plan, const Names& names, const Options& options) {
  json args = {"proxy", "--listen", "0.0.0.0:" + std::to_string(kProxyPort), "--log", "-"};
  for (const std::string& host : plan.allowed_domains) {
    args.push_back("--allow");
    args.push_back(host);
  }
  json security = LockedDown(65534, 65534, {{"type", "RuntimeDefault"}});
  json env = json::array();
  if (!plan.logins.empty()) {  // the real values here alone (LoginsSecret)
    args.push_back("--logins-env");
    args.push_back(network_mode::kProxyLoginsVariable);
    env = ProxyLoginEnvironment(plan, names);
  }
  json container = {
      {"name", "proxy"},
      {"image", options.proxy_image},
      {"command", {"/usr/bin/corral"}},
      {"args", args},
      {"env", env},
      {"ports", {{{"name", "http-proxy"}, {"containerPort", kProxyPort}, {"protocol", "TCP"}}}},
      {"readinessProbe", {{"tcpSocket", {{"port", kProxyPort}}}, {"periodSeconds", 2}}},
      {"securityContext", security}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", Metadata(names.proxy, names.proxy_labels)},
          {"spec",
           {{"automountServiceAccountToken", false},
            {"enableServiceLinks", false},
            {"restartPolicy", "Always"},
            {"containers", {container}}}}};
}

}  // namespace

std::string DnsLabel(const std::string& text, std::size_t max) {
  std::string out;
  for (char c : text) {
    char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    bool ok = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
    if (ok)
      out += lower;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  if (out.size() > max) out.resize(max);
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.empty() || !(out[0] >= 'a' && out[0] <= 'z')) out = "c-" + out;
  return out.size() > max ? out.substr(0, max) : out;
}

json LockedDown(std::uint32_t uid, std::uint32_t gid, const json& seccomp) {
  return {{"runAsNonRoot", true},
          {"runAsUser", uid},
          {"runAsGroup", gid},
          {"allowPrivilegeEscalation", false},
          {"privileged", false},
          {"readOnlyRootFilesystem", true},
          {"capabilities", {{"drop", {"ALL"}}}},
          {"seccompProfile", seccomp}};
}

bool IsLabelValue(const std::string& value) {
  if (value.empty()) return true;
  if (value.size() > 63) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  for (char c : value) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return alnum(value.front()) && alnum(value.back());
}

Names MakeNames(const SessionPlan& plan, const Options& options) {
  Names names;
  // Room for "-agent" and "-proxy" within a DNS label.
  names.base =
      DnsLabel(plan.container_name.empty() ? "corral-" + plan.session_id : plan.container_name, 56);
  names.proxy = names.base + "-proxy";
  auto agent = plan.labels.find("corral.agent");
  names.secret =
      agent == plan.labels.end() ? "corral-env" : DnsLabel("corral-" + agent->second + "-env");
  names.login_values = agent == plan.labels.end()
                           ? "corral-logins"
                           : DnsLabel("corral-" + agent->second + "-logins");
  names.logins = names.base + "-logins";
  std::string project = plan.project_dir.substr(plan.project_dir.rfind('/') + 1);
  names.claim =
      options.project_claim.empty() ? DnsLabel("corral-project-" + project) : options.project_claim;
  names.seccomp = "corral/" + plan.session_id + ".json";
  names.proxy_url = "http://" + names.proxy + ":" + std::to_string(kProxyPort);
  names.agent_labels = {{kLabelSession, plan.session_id}, {kLabelRole, "agent"}};
  names.proxy_labels = {{kLabelSession, plan.session_id}, {kLabelRole, "proxy"}};
  return names;
}

Rendering Render(const SessionPlan& plan, const Options& options) {
  Names names = MakeNames(plan, options);
  Rendering out;
  out.notes = {
      "corral spec --format kubernetes: session " + plan.session_id +
          ", on paper: not tested on a cluster (docs/kubernetes.md).",
      "Not built in a cluster: the oracle (commands are checked by corral-shell against the "
      "deny list in ConfigMap " +
          names.base +
          ", always as if nobody were watching) and the "
          "inbox (refusals are only in the agent's and the proxy's logs: kubectl logs).",
      "Seccomp: put the ConfigMap's seccomp.json on every node that may run the agent, at " +
          std::string(kSeccompRoot) + "/" + names.seccomp +
          " (a DaemonSet or the Security Profiles Operator can); without it the agent does not "
          "start.",
      "The project is the PersistentVolumeClaim " + names.claim + ", which must hold " +
          plan.project_dir + " at its root (a clone made before the Pod starts).",
      "The agent finds the proxy by its Service name, so it may ask the cluster's DNS, which "
      "forwards other names outside: a name can carry data out. To close it, pin the Service's "
      "clusterIP, name that address in HTTP(S)_PROXY and remove the DNS rule of NetworkPolicy " +
          names.base + "-agent.",
  };
  if (!plan.passed_by_name.empty()) {
    std::string command = "kubectl create secret generic " + names.secret;
    for (const auto& name : plan.passed_by_name) command += " --from-literal=" + name + "=...";
    out.notes.push_back("Variables passed by name come from the Secret " + names.secret +
                        ", which you make: " + command);
  }
  if (!plan.logins.empty()) LoginNotes(plan, names, options, out.notes);
  json pod = AgentPod(plan, names, options, out.notes);
  out.objects = {SessionFiles(plan, names, options)};
  if (!plan.logins.empty()) out.objects.push_back(LoginsSecret(plan, names, options));
  out.objects.insert(out.objects.end(),
                     {ProxyService(plan, names), AgentPolicy(plan, names), ProxyPolicy(plan, names),
                      ProxyPod(plan, names, options), std::move(pod)});
  return out;
}

}  // namespace corral::launcher::kubernetes
