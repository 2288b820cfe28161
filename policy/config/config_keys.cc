// The one table that defines every configuration key: its type, default,
// environment variable, help, and the check its values must pass. Later
// features add rows here.

#include "policy/config/config.h"
#include "policy/network/network.h"
#include "policy/matcher/matcher.h"

namespace corral::policy {
namespace {

// The proxy's own rules (network_*.cc) check its lists as they are loaded.
Result<void> HostEntry(const std::string& text) {
  if (auto entry = ParseDomainEntry(text); !entry) return entry.error();
  return Ok();
}

Result<void> AddressOrRange(const std::string& text) {
  if (auto range = ParseCidr(text); !range) return range.error();
  return Ok();
}

Result<void> HostsFile(const std::string& path) {
  if (path.empty()) return Ok();
  if (auto table = ReadHostsFile(path); !table) {
    return Error(table.error().message + " (fix the file, or set network.hosts_file to \"\")");
  }
  return Ok();
}

// The proxy checks login hosts' certificates against it (docs/logins.md): a
// file it could not load would fail every login host at the first request.
Result<void> CaFile(const std::string& path) {
  if (path.empty()) return Ok();
  auto text = ReadWholeFile(path);
  if (!text)
    return Error("cannot read " + path +
                 " (a PEM file of CA certificates, or \"\" for "
                 "the host's bundle)");
  if (text->find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
    return Error(path + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }
  return Ok();
}

Result<void> RequestRuleEntry(const std::string& text) {
  if (auto rule = ParseRequestRule(text); !rule) return rule.error();
  return Ok();
}

Result<void> PublishEntry(const std::string& text) { return CheckPublishEntry(text); }

// A repository of forge.repositories as the proxy compares it: owner/name
// (GitLab: group/sub/name), each part letters, digits, '.', '_' or '-'.
Result<void> RepositoryEntry(const std::string& text) {
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  int parts = 0;
  while (true) {
    std::size_t slash = rest.find('/');
    std::string_view part = rest.substr(0, slash);
    bool ok = !part.empty() && part.size() <= 100 && part != "." && part != ".." &&
              part.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
                  std::string_view::npos;
    if (!ok) break;
    ++parts;
    if (slash == std::string_view::npos) {
      if (parts >= 2) return Ok();
      break;
    }
    rest.remove_prefix(slash + 1);
  }
  return Error("'" + text + "' is not a repository: write owner/name (e.g. octo-org/website), each part "
               "letters, digits, '.', '_' or '-'");
}

// A folder named in caches.own_projects is compared with the project's folder.
Result<void> FullPath(const std::string& path) {
  if (path.empty() || path[0] != '/') return Error(path + " is not a full path; write it from /");
  return Ok();
}

}  // namespace

std::string_view OriginName(Origin origin) {
  switch (origin) {
    case Origin::kDefault: return "default";
    case Origin::kFile: return "file";
    case Origin::kEnvironment: return "environment";
    case Origin::kFlag: return "flag";
  }
  return "?";
}

const std::vector<KeySpec>& Keys() {
  using K = KeyType;
  // The built-in list is written once, in policy/matcher/deny_list_default.cc.
  static const std::string kDenyDefault = nlohmann::json(DefaultDenyList()).dump();
  static const std::vector<KeySpec> kKeys = {
      {"level", K::kEnum, R"("unattended")", "CORRAL_LEVEL",
       "When sessions are boxed: always, unattended (headless or nobody watching), off",
       {"always", "unattended", "off"}},
      {"deny_unattended", K::kStringList, kDenyDefault, "CORRAL_DENY_UNATTENDED",
       "Commands refused while nobody is watching, one per entry (env: comma-separated)", {}},
      {"undetermined", K::kEnum, R"("deny")", "CORRAL_UNDETERMINED",
       "A command whose program cannot be known before it runs: deny or allow (while unattended)",
       {"deny", "allow"}},
      {"exec_check", K::kEnum, R"("on")", "CORRAL_EXEC_CHECK",
       "Check every program the box starts, not only shell text: on, require (no session "
       "without it), off",
       {"on", "require", "off"}},
      {"runtime", K::kEnum, R"("default")", "CORRAL_RUNTIME",
       "The box's runtime: default (the engine's, sharing this machine's kernel) or gvisor "
       "(runsc: a kernel of its own between the agent and this machine's; docs/sessions.md)",
       {"default", "gvisor"}},
      {"dangerous.action", K::kEnum, R"("warn")", "CORRAL_DANGEROUS_ACTION",
       "Dangerous patterns (rm -rf, curl | sh, ...): off, warn, deny-unattended",
       {"off", "warn", "deny-unattended"}},
      {"network.allowed_domains", K::kStringList,
       R"(["registry.npmjs.org","registry.yarnpkg.com","registry.npmjs.com","pypi.org",)"
       R"("files.pythonhosted.org","crates.io","index.crates.io","static.crates.io",)"
       R"("proxy.golang.org","sum.golang.org","rubygems.org","index.rubygems.org"])",
       "CORRAL_ALLOWED_DOMAINS",
       "Hosts the box may reach through the proxy (name, *.name, optional :port)", {}, HostEntry},
      {"network.denied_domains", K::kStringList, "[]", "CORRAL_DENIED_DOMAINS",
       "Hosts always refused, even when an allowed entry covers them", {}, HostEntry},
      {"network.allow_addresses", K::kStringList, "[]", "CORRAL_ALLOW_ADDRESSES",
       "IP addresses or CIDR ranges the proxy may dial although private or local", {},
       AddressOrRange},
      {"network.hosts_file", K::kString, R"("")", "CORRAL_HOSTS_FILE",
       "A hosts(5) file the proxy reads before the system resolver (internal mirrors)", {},
       HostsFile},
      {"network.upstream_ca_file", K::kString, R"("")", "CORRAL_UPSTREAM_CA_FILE",
       "CA certificates (PEM) the proxy checks login hosts' certificates against when it ends "
       "TLS for them (\"\": the host's bundle; docs/logins.md)", {}, CaFile},
      {"network.rules", K::kStringList, "[]", "",
       "Rules per host, each '[allow|deny] HOST METHODS PATH' (e.g. 'api.internal.example GET /v1/**'): "
       "a host with rules is reached only for what they allow (docs/configuration.md)", {}, RequestRuleEntry},
      {"registries.publish", K::kStringList, "[]", "",
       "Registries the box may publish to (npm, pypi, crates, rubygems, go, or a host); the others are "
       "read-only", {}, PublishEntry},
      {"network.head_timeout_seconds", K::kInt, "10", "",
       "Seconds a client has to send a whole request head (408 past it)", {}},
      {"network.connect_timeout_seconds", K::kInt, "10", "",
       "Seconds the proxy waits for an upstream connection", {}},
      {"network.idle_timeout_seconds", K::kInt, "600", "",
       "Seconds a tunnel may stay silent before the proxy closes it", {}},
      {"network.max_tunnels", K::kInt, "4096", "",
       "Most concurrent tunnels the proxy keeps open; more get 429", {}},
      {"forge.repositories", K::kStringList, "[]", "CORRAL_FORGE_REPOSITORIES",
       "Repositories on the project's git host the box may reach besides its remotes (owner/name; "
       "docs/forge.md)", {}, RepositoryEntry},
      {"forge.protected_branches", K::kStringList, "[]", "",
       "Branches no push writes while nobody watches, besides each repository's default branch", {}},
      {"forge.other_reads", K::kBool, "true", "",
       "Other repositories on the git host may be read, without your token (false: refused)", {}},
      {"forge.history", K::kEnum, R"("enforce")", "CORRAL_FORGE_HISTORY",
       "While nobody watches, refuse pushes that delete a ref, are not a fast-forward or write a "
       "protected branch (enforce), or let them through (allow)",
       {"enforce", "allow"}},
      {"forge.ssh", K::kEnum, R"("deny")", "",
       "The git host's ssh port: deny (git reaches ssh remotes over HTTPS through the proxy) or allow "
       "(a raw tunnel the proxy cannot look into)",
       {"deny", "allow"}},
      {"seccomp.allow_ptrace", K::kBool, "false", "CORRAL_SECCOMP_ALLOW_PTRACE",
       "Allow ptrace in the box (debuggers, strace)", {}},
      {"seccomp.allow", K::kStringList, "[]", "",
       "System calls to allow although the default profile refuses them", {}},
      {"seccomp.deny", K::kStringList, "[]", "",
       "System calls to refuse (EPERM) in addition to the default profile", {}},
      {"filesystem.deny_read", K::kStringList, R"([".env",".env.*","*.pem","*.key","id_*"])",
       "CORRAL_DENY_READ",
       "Glob patterns of files in the project the box cannot read (masked)", {}},
      {"filesystem.extra_writable", K::kStringList, "[]", "",
       "Host paths mounted read-write at their own path in the box", {}},
      {"filesystem.extra_readonly", K::kStringList, "[]", "",
       "Host paths mounted read-only at their own path in the box", {}},
      {"limits.pids", K::kInt, "1024", "CORRAL_LIMIT_PIDS",
       "Most processes the box may run at once", {}},
      {"limits.memory", K::kString, R"("4g")", "CORRAL_LIMIT_MEMORY",
       "Memory limit of the box (bytes, or with k/m/g suffix; \"\" for none)", {}},
      {"limits.cpus", K::kString, R"("")", "CORRAL_LIMIT_CPUS",
       "CPU limit of the box, e.g. 1.5 (\"\" for none)", {}},
      {"limits.require", K::kBool, "false", "CORRAL_LIMITS_REQUIRE",
       "Refuse to start a box when the engine cannot enforce a limit set above (e.g. rootless "
       "Podman on cgroups v1)", {}},
      {"image", K::kString, R"("debian:bookworm-slim")", "CORRAL_IMAGE",
       "Container image the agent runs in (any image works: the shim is mounted in)", {}},
      {"engine", K::kString, R"("")", "CORRAL_ENGINE",
       "Engine API endpoint (unix:///path or tcp://host:port); \"\" to discover", {}},
      {"pass", K::kStringList, "[]", "CORRAL_PASS",
       "Environment variables passed into the box by name (values read at start)", {}},
      {"presence.sources", K::kStringList, R"(["tty","logind","heartbeat"])",
       "CORRAL_PRESENCE_SOURCES",
       "How corral tells somebody is watching: tty, logind, heartbeat (none: nobody)", {}},
      {"presence.idle_minutes", K::kInt, "10", "CORRAL_IDLE_MINUTES",
       "Minutes without input after which the user counts as away", {}},
      {"presence.heartbeat_file", K::kString, R"("")", "CORRAL_HEARTBEAT_FILE",
       "File whose recent change means somebody is watching (default: <state>/heartbeat)", {}},
      {"hold.unknown_folders", K::kEnum, R"("on")", "CORRAL_HOLD_UNKNOWN_FOLDERS",
       "Hold a run started unattended in a folder corral does not know until you allow it "
       "(corral allow DIR): on, off",
       {"on", "off"}},
      {"hold.wait_minutes", K::kInt, "30", "CORRAL_HOLD_WAIT_MINUTES",
       "Minutes a held run waits to be allowed before it exits with 75 (0: at once)", {}},
      {"review.projects", K::kStringList, "[]", "CORRAL_REVIEW_PROJECTS",
       "Project folders whose boxed sessions run in review mode by default (their work "
       "arrives as branch corral/SESSION, as with corral run --review); \"*\": every project",
       {}},
      {"notify.desktop", K::kBool, "true", "CORRAL_NOTIFY_DESKTOP",
       "A desktop notification (notify-send) when a command is refused while you are away", {}},
      {"notify.webhook_url", K::kString, R"("")", "CORRAL_WEBHOOK_URL",
       "http(s) URL that gets a JSON POST for each command refused while you are away", {}},
      {"caches.mode", K::kEnum, R"("shared")", "CORRAL_CACHES",
       "npm, pip, cargo and Go download caches: shared (one volume per tool for all your "
       "projects on an engine) or project (each project its own; docs/sessions.md)",
       {"shared", "project"}},
      {"caches.own_projects", K::kStringList, "[]", "",
       "Project folders whose caches are their own although caches.mode is shared (a folder "
       "and the projects inside it)",
       {}, FullPath},
      {"agents.ask_first", K::kBool, "false", "CORRAL_ASK_FIRST",
       "Boxed agents keep asking before they act: their run-without-asking switch is not added",
       {}},
      {"agents.settings", K::kEnum, R"("copy")", "CORRAL_AGENT_SETTINGS",
       "An agent's settings and login folders in its box, never yours: copy (its own, filled "
       "from yours without what runs programs) or own (its own, empty)",
       {"copy", "own"}},
      {"agents.logins", K::kEnum, R"("proxy")", "CORRAL_AGENT_LOGINS",
       "An agent's login variables in its box: proxy (stand-ins; the session's proxy adds the "
       "real values, docs/logins.md) or pass (the values as they are)",
       {"proxy", "pass"}},
      {"projects", K::kProjects, "{}", "",
       "Settings for one project, by its absolute folder: runtime (default, gvisor) and "
       "review (true: its sessions in review mode), e.g. "
       "projects: {/home/me/untrusted: {runtime: gvisor, review: true}}", {}},
      {"agents.recipes", K::kRecipes, "{}", "",
       "Your agent recipes: a new agent, or fields over a built-in one (corral agents lists them)",
       {}},
  };
  return kKeys;
}

}  // namespace corral::policy
