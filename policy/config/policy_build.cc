#include "policy/config/policy_build.h"
#include "policy/matcher/matcher.h"

#include "policy/config/agent_recipes.h"
#include "policy/config/config_values.h"
#include "policy/config/project_settings.h"

namespace corral::policy {
namespace {

class Reader {
 public:
  explicit Reader(const std::map<std::string, Setting>& settings) : settings_(settings) {}

  std::string String(const std::string& key) const { return At(key).get<std::string>(); }
  bool Bool(const std::string& key) const { return At(key).get<bool>(); }
  int Int(const std::string& key) const { return At(key).get<int>(); }
  std::vector<std::string> List(const std::string& key) const {
    return At(key).get<std::vector<std::string>>();
  }

 private:
  const nlohmann::json& At(const std::string& key) const { return settings_.at(key).value; }
  const std::map<std::string, Setting>& settings_;
};

Level ParseLevel(const std::string& s) {
  if (s == "always") return Level::kAlways;
  if (s == "off") return Level::kOff;
  return Level::kUnattended;
}

DangerousAction ParseDangerous(const std::string& s) {
  if (s == "off") return DangerousAction::kOff;
  if (s == "deny-unattended") return DangerousAction::kDenyUnattended;
  return DangerousAction::kWarn;
}

}  // namespace

Result<Policy> BuildPolicy(std::map<std::string, Setting> settings) {
  Reader r(settings);
  Policy p;
  p.level = ParseLevel(r.String("level"));
  p.deny_unattended = r.List("deny_unattended");
  p.undetermined = r.String("undetermined") == "allow" ? Undetermined::kAllow : Undetermined::kDeny;
  p.dangerous_action = ParseDangerous(r.String("dangerous.action"));
  p.exec_check = r.String("exec_check") == "require" ? ExecCheck::kRequire
                 : r.String("exec_check") == "off"   ? ExecCheck::kOff
                                                     : ExecCheck::kOn;
  p.runtime = r.String("runtime") == "gvisor" ? BoxRuntime::kGvisor : BoxRuntime::kDefault;

  p.network.allowed_domains = r.List("network.allowed_domains");
  p.network.denied_domains = r.List("network.denied_domains");
  p.network.allow_addresses = r.List("network.allow_addresses");
  p.network.hosts_file = r.String("network.hosts_file");
  p.network.head_timeout_seconds = r.Int("network.head_timeout_seconds");
  p.network.connect_timeout_seconds = r.Int("network.connect_timeout_seconds");
  p.network.idle_timeout_seconds = r.Int("network.idle_timeout_seconds");
  p.network.max_tunnels = r.Int("network.max_tunnels");
  p.network.rules = r.List("network.rules");
  p.network.publish = r.List("registries.publish");

  p.forge.repositories = r.List("forge.repositories");
  p.forge.protected_branches = r.List("forge.protected_branches");
  p.forge.other_reads = r.Bool("forge.other_reads");
  p.forge.history = r.String("forge.history") == "enforce";
  p.forge.ssh = r.String("forge.ssh") == "allow";
  p.seccomp.allow_ptrace = r.Bool("seccomp.allow_ptrace");
  p.seccomp.allow = r.List("seccomp.allow");
  p.seccomp.deny = r.List("seccomp.deny");

  p.filesystem.deny_read = r.List("filesystem.deny_read");
  p.filesystem.extra_writable = r.List("filesystem.extra_writable");
  p.filesystem.extra_readonly = r.List("filesystem.extra_readonly");
  p.limits.pids = r.Int("limits.pids");
  p.limits.memory = r.String("limits.memory");
  p.limits.cpus = r.String("limits.cpus");
  p.limits.require = r.Bool("limits.require");
  p.image = r.String("image");
  p.engine = r.String("engine");
  p.pass = r.List("pass");

  p.presence.sources = r.List("presence.sources");
  p.presence.idle_minutes = r.Int("presence.idle_minutes");
  p.presence.heartbeat_file = r.String("presence.heartbeat_file");
  p.hold.unknown_folders = r.String("hold.unknown_folders") == "on";
  p.hold.wait_minutes = r.Int("hold.wait_minutes");
  p.caches.shared = r.String("caches.mode") == "shared";
  p.caches.own_projects = r.List("caches.own_projects");
  p.notify.desktop = r.Bool("notify.desktop");
  p.notify.webhook_url = r.String("notify.webhook_url");
  p.agents.ask_first = r.Bool("agents.ask_first");
  p.agents.own_settings = r.String("agents.settings") == "own";
  p.agents.recipes = RecipesFromJson(settings.at("agents.recipes").value);
  p.projects = ProjectsFromJson(settings.at("projects").value);
  p.agents.recipes_where = settings.at("agents.recipes").where;
  // Every check runs, so each problem is reported at once (one per line).
  Problems problems;
  if (!p.notify.webhook_url.empty() && p.notify.webhook_url.rfind("http://", 0) != 0 &&
      p.notify.webhook_url.rfind("https://", 0) != 0) {
    problems.Add("notify.webhook_url (" + settings.at("notify.webhook_url").where + "): " +
                 p.notify.webhook_url + " is not an http:// or https:// URL");
  }

  if (p.hold.wait_minutes < 0) {
    problems.Add("hold.wait_minutes (" + settings.at("hold.wait_minutes").where + "): " +
                 std::to_string(p.hold.wait_minutes) + " is below 0; 0 refuses at once");
  }

  for (const std::string& source : p.presence.sources) {
    if (source != "tty" && source != "logind" && source != "heartbeat") {
      problems.Add("presence.sources (" + settings.at("presence.sources").where +
                   "): unknown source '" + source + "' (known: tty, logind, heartbeat)");
    }
  }

  // The deny list must compile; say where the bad entry came from.
  if (auto matcher = Matcher::Create(p.deny_unattended); !matcher) {
    problems.Add(matcher.error().Context("deny_unattended (" + settings.at("deny_unattended").where +
                                         ")").message);
  }
  if (!problems.empty()) return problems.ToError();
  p.settings = std::move(settings);
  return p;
}

}  // namespace corral::policy
