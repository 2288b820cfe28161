// The pieces kubernetes::Render puts together (launcher/render/kubernetes_*.cc).
// Private to render/.
#pragma once

#include <string>
#include <vector>

#include "launcher/render/render.h"

namespace corral::launcher::kubernetes {

inline constexpr int kProxyPort = 3128;
inline constexpr const char* kLabelRole = "corral.role";  // agent | proxy
// The kubelet looks for Localhost profiles under its seccomp root.
inline constexpr const char* kSeccompRoot = "/var/lib/kubelet/seccomp";

// The names and labels every object of one session shares.
struct Names {
  std::string base;       // DNS label from the container name: the agent Pod, the ConfigMap
  std::string proxy;      // the proxy's Pod and Service
  std::string secret;        // the Secret the user makes for variables passed by name
  std::string login_values;  // the Secret the user makes for the logins' values (the proxy's)
  std::string logins;        // the rendered Secret: the proxy's logins table and session CA
  std::string claim;      // the project's PersistentVolumeClaim
  std::string seccomp;    // localhostProfile, relative to kSeccompRoot
  std::string proxy_url;  // http://<proxy Service>:3128
  nlohmann::json agent_labels;
  nlohmann::json proxy_labels;
};
Names MakeNames(const SessionPlan& plan, const Options& options);

// `text` as a DNS label (lower case, [a-z0-9-], at most `max` characters).
std::string DnsLabel(const std::string& text, std::size_t max = 63);
// Whether `value` may be a label value (at most 63 of [A-Za-z0-9._-], alphanumeric ends).
bool IsLabelValue(const std::string& value);

// A container's securityContext: not root, no escalation, no capabilities,
// read-only root, the seccomp profile given.
nlohmann::json LockedDown(std::uint32_t uid, std::uint32_t gid, const nlohmann::json& seccomp);

// The agent's Pod; adds to `notes` what the plan has that the Pod cannot say.
nlohmann::json AgentPod(const SessionPlan& plan, const Names& names, const Options& options,
                        std::vector<std::string>& notes);

// With plan.logins: the proxy Pod's Secret (the logins' table without their
// values, the session CA), its container's environment (that Secret, and
// each value from the user's Secret `names.login_values`), and the notes.
inline constexpr const char* kLoginsKey = "logins.json";
nlohmann::json LoginsSecret(const SessionPlan& plan, const Names& names, const Options& options);
nlohmann::json ProxyLoginEnvironment(const SessionPlan& plan, const Names& names);
void LoginNotes(const SessionPlan& plan, const Names& names, const Options& options,
                std::vector<std::string>& notes);

}  // namespace corral::launcher::kubernetes
