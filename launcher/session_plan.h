// launcher/: the session plan, what the box is: the data every room of
// launcher/ shares (mounts, logins, limits, the plan itself and what it is made
// from) and the names the box and the host agree on. Data only: the plan is
// made in plan/ (plan/plan.h), rendered in render/ (render/render.h), and run
// by the commands in launcher.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/base.h"
#include "policy/config/config.h"

namespace corral::launcher {

// Where the box is mounted from: a host path, a per-project named volume, or a tmpfs.
enum class MountKind { kBind, kVolume, kTmpfs };

struct Mount {
  MountKind kind = MountKind::kBind;
  std::string source;  // host path (bind), volume name (volume), "" (tmpfs)
  std::string target;  // path inside the box
  bool read_only = false;
  // tmpfs: noexec, nosuid, nodev, size=...; a bind: "rslave" (Docker wants
  // it for a source inside its data root: a volume's folder), else rprivate.
  std::vector<std::string> options;
  std::string why;                   // one line, for `corral run --print`
};

inline const char* BindPropagation(const Mount& m) {
  for (const std::string& o : m.options) {
    if (o == "rslave") return "rslave";
  }
  return "rprivate";
}

// Options of corral's own, for the network mode, where the agent's box is
// made while the session's volumes are filled:
// a bind whose source appears on the engine's host only after the box is
// made; the box is started only once it is there. Docker checks a Mounts
// entry's source when the box is made and a Binds entry's when it starts,
// so such a bind goes as a Binds entry, where "SRC:DST:OPTIONS" can hold it.
inline constexpr const char* kLateSource = "late-source";
// A volume the engine must not fill from the image's files at that path
// (Docker and Podman do, into an empty volume): corral fills it.
inline constexpr const char* kNoCopy = "nocopy";
inline bool HasOption(const Mount& m, const char* option) {
  for (const std::string& o : m.options) {
    if (o == option) return true;
  }
  return false;
}
// Whether Docker takes this bind as a Binds entry (see kLateSource).
inline bool DockerLateBind(const Mount& m) {
  return m.kind == MountKind::kBind && HasOption(m, kLateSource) &&
         m.source.find_first_of(":,") == std::string::npos &&
         m.target.find_first_of(":,") == std::string::npos;
}

struct Ulimit {
  std::string name;  // "nofile", "nproc"
  std::uint64_t soft = 0;
  std::uint64_t hard = 0;
};

// Lowers the soft and hard values of ulimit `name` ("nproc") to at most
// `most`: how a pids limit is held by RLIMIT_NPROC where a cgroup cannot hold
// it (a rootless box's own user namespace, gVisor's kernel).
inline void CapUlimit(std::vector<Ulimit>& ulimits, const std::string& name, std::uint64_t most) {
  for (Ulimit& ulimit : ulimits) {
    if (ulimit.name != name) continue;
    ulimit.soft = std::min(ulimit.soft, most);
    ulimit.hard = std::min(ulimit.hard, most);
  }
}

struct Limits {
  std::int64_t pids = 0;          // 0: none
  std::int64_t memory_bytes = 0;  // 0: none
  std::int64_t cpu_quota = 0;     // microseconds per period; 0: none
  std::int64_t cpu_period = 100000;
};

// A login the session's proxy adds on the way out (docs/logins.md). The box
// holds `stand_in` under `variable`; the proxy puts the real value, read from
// corral's own environment when it starts (never written down), in `header`
// of requests to `hosts` alone.
struct BoxLogin {
  std::string variable;            // "ANTHROPIC_API_KEY"
  std::string header;              // "x-api-key", "Authorization"
  std::string prefix;              // before the value in the header: "Bearer ", or ""
  // A recipe's: its API hosts, at 443 ("api.anthropic.com"); the plan's:
  // "host:port", from `base_url_variable` when that is set.
  std::vector<std::string> hosts;
  std::string base_url_variable;   // "ANTHROPIC_BASE_URL": its URL's host:port instead
  std::string stand_in;            // the plan's: the value's shape and length, this session's
  bool in_body = false;            // also put in request bodies to `hosts` (a refresh token)
  bool basic = false;              // the password of Basic credentials in `header` (git over HTTPS)
  // A login read from a file, not a variable (`variable` then names it for
  // lines): the host's file and the JSON pointer to the value in it.
  std::string file = "";
  std::string pointer = "";        // "/claudeAiOauth/accessToken"
};

// A login file whose tokens the proxy holds (docs/logins.md, "Subscription
// logins"): the box's copy has a stand-in at each token's pointer. The
// answers of `token_urls` (a refresh, a login made in the box) give the box
// new stand-ins, and the host's file the new tokens.
struct LoginFile {
  std::string path;  // the recipe's "~/.claude/.credentials.json"; the plan's: the host's file
  struct Token {
    std::string pointer;  // in the file: "/claudeAiOauth/accessToken"
    std::string field;    // in the token endpoint's answer: "access_token"
    BoxLogin login;       // `variable` names it; the plan's hosts are host:port
  };
  std::vector<Token> tokens;
  std::vector<std::string> token_urls;  // "https://platform.claude.com/v1/oauth/token"
  std::string expires_at_ms;  // set to now + expires_in, in ms: "/claudeAiOauth/expiresAt"
  std::string refreshed_at;   // set to now, RFC 3339: "/last_refresh"
};

// Everything the box is, decided before anything starts. Pure data: the
// renderers turn it into an engine's words, the session carries it out.
// A port of the box reached from the host (corral run --publish): corral
// listens on host_address:host_port and carries each connection to the
// box's 127.0.0.1:box_port (the box has no network of its own to publish on).
struct PublishedPort {
  std::string host_address = "127.0.0.1";
  int host_port = 0;
  int box_port = 0;
};
// "[HOST_ADDR:]HOST_PORT:BOX_PORT" (HOST_ADDR an IPv4 address, or [IPv6]).
Result<PublishedPort> ParsePublishedPort(const std::string& text);
// "127.0.0.1:8080 -> 3000" (a label, `corral ps`, the start lines).
std::string DescribePublishedPort(const PublishedPort& port);

// The project's forge (docs/forge.md): the proxy ends TLS for these hosts
// and judges each request by the repository it names.
struct ForgePlan {
  struct Host {
    std::string git_host;  // "github.com:443": where git over HTTPS goes
    std::string api_host;  // "api.github.com:443", a GitHub Enterprise host, or "" (API not scoped)
    bool enterprise = false;
    std::vector<std::string> repositories;  // "owner/name": the remotes' and forge.repositories
  };
  std::vector<Host> hosts;
  std::vector<std::string> protected_branches;
  bool other_reads = true;
  bool history = true;
  bool ssh = false;  // forge.ssh: allow
  // git's url.<https>.insteadOf <ssh prefix>: ssh remotes over HTTPS through the proxy.
  std::vector<std::pair<std::string, std::string>> instead_of;
  bool empty() const { return hosts.empty(); }
};

struct SessionPlan {
  std::string session_id;      // 12 hex digits
  std::string container_name;  // corral-<project>-<id>
  std::string project_dir;     // the git top level, or the folder itself
  std::string workdir;         // where corral was started, inside the project
  std::string image;
  std::vector<std::string> command;  // the container's command, shim first
  std::vector<std::string> env;      // KEY=VALUE
  std::vector<Mount> mounts;         // in mount order (parents first)
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  bool tty = false;
  std::string hostname = "corral";
  std::string network_mode = "none";
  std::vector<std::string> allowed_domains;  // policy + the project's git host
  std::vector<std::string> deny_list;
  nlohmann::json seccomp;    // flattened OCI linux.seccomp object
  std::string session_dir;   // on the host; mounted read-only at /run/corral
  std::string seccomp_path;  // session_dir/seccomp.json (read by Podman)
  std::string volume_root;   // host folder standing in for named volumes (OCI only)
  std::string userns;        // Podman: "keep-id" when the engine is rootless
  // The exec gate (docs/exec-check.md): the box starts as root with
  // kGateCapabilities; its PID 1 sets the gate up and drops to uid:gid.
  bool exec_gate = false;
  // The box's OCI runtime as the engine knows it: "" the engine's default
  // (sharing this machine's kernel), kGvisorRuntime for runtime: gvisor.
  std::string runtime;
  Limits limits;
  std::vector<Ulimit> ulimits;
  std::vector<std::string> masked_paths;
  std::vector<std::string> readonly_paths;
  std::map<std::string, std::string> labels;
  std::vector<std::string> notes;  // facts worth a line before the agent starts
  std::vector<std::string> passed_by_name;  // variables whose values came from the host
  // Logins the session's proxy holds: the box's env has their stand-ins.
  std::vector<BoxLogin> logins;
  // Login variables in the box as they are, and why ("logins: pass"); "" when none.
  std::vector<std::string> logins_passed;
  std::string logins_passed_why;
  // Login files whose tokens the proxy holds (plan.logins has the ones set
  // now), and the box's copy of each that exists: stand-ins in place of its
  // tokens, or nullopt when it could not be made (the box gets none).
  std::vector<LoginFile> login_files;
  std::map<std::string, std::optional<std::string>> box_login_files;  // by host path
  std::vector<PublishedPort> published;  // corral run --publish
  ForgePlan forge;
  // Allowed hosts judged by what a request does (network.rules, registries
  // read-only): the session's proxy ends TLS for them. The registries the
  // host's tools name: (host without port, kind: npm, pypi, crates, go).
  bool request_rules = false;
  std::vector<std::pair<std::string, std::string>> tool_registries;
};

// The proxy ends TLS for some hosts (logins, the forge): the box trusts the
// session's CA.
inline bool EndsTls(const SessionPlan& plan) {
  return !plan.logins.empty() || !plan.login_files.empty() || !plan.forge.empty() || plan.request_rules;
}

// What the shim's first moments need to set the exec gate up: mounts, then
// becoming the agent's user and dropping every capability for good.
// DAC_OVERRIDE and DAC_READ_SEARCH: rootless, root in the box is not the
// user who owns the session folder, where the shim itself is.
// CHOWN: a new volume is root's, and the shim gives it to the agent.
inline constexpr const char* kGateCapabilities[] = {
    "SYS_ADMIN", "SETUID", "SETGID", "SETPCAP", "DAC_OVERRIDE", "DAC_READ_SEARCH", "CHOWN"};
// The capabilities a plan's box starts with (Docker's CapAdd, Podman's cap_add).
inline std::vector<std::string> GateCapabilities(const SessionPlan& plan) {
  if (!plan.exec_gate) return {};
  return {std::begin(kGateCapabilities), std::end(kGateCapabilities)};
}

// runtime: gvisor. The name Docker's daemon registers runsc under (daemon.json
// "runtimes") and Podman's containers.conf [engine.runtimes] knows it by.
inline constexpr const char* kGvisorRuntime = "runsc";
// Kubernetes: the RuntimeClass a cluster's gVisor nodes answer to (GKE
// Sandbox and gVisor's own docs name it so).
inline constexpr const char* kGvisorRuntimeClass = "gvisor";
// What stands in for the exec check under gVisor: said before the agent starts.
inline constexpr const char* kGvisorExecCheckLine =
    "exec check: off under gVisor (its kernel has no seccomp user notification); the shell "
    "front still asks the host about every shell command, but a program started another way "
    "(an interpreter's subprocess call, make, a renamed copy) is not checked";

inline constexpr const char* kSessionMountPoint = "/run/corral";
inline constexpr const char* kShimInBox = "/run/corral/bin/corral-shim";
inline constexpr const char* kShellInBox = "/run/corral/bin/corral-shell";
inline constexpr const char* kWatchdogInBox = "/run/corral/watchdog.sock";
// The host's sockets and the current deny list, in the session folder (the
// shim's defaults: images/shim reads the same names).
inline constexpr const char* kOracleSocket = "oracle.sock";
inline constexpr const char* kProxySocket = "proxy.sock";
inline constexpr const char* kWatchdogSocket = "watchdog.sock";
inline constexpr const char* kDenyListFile = "deny-list";
// The box's trusted CA bundle when the proxy holds logins: the host's bundle
// plus the session CA's certificate, written once the proxy has started.
inline constexpr const char* kCaBundleFile = "ca-bundle.crt";
// Where programs in the box find the proxy: the shim's bridge inside the box.
inline constexpr const char* kProxyUrlInBox = "http://127.0.0.1:3128";
// The names that run corral-shell in the session's bin folder (first in PATH).
inline constexpr const char* kShellNames[] = {"sh", "bash", "dash", "zsh", "ksh"};
inline constexpr const char* kLabelSession = "corral.session";
// corral's runtime folder (session folders, ssh tunnels): $XDG_RUNTIME_DIR/
// corral, else /run/corral for root, else /tmp/corral-UID.
std::string RuntimeDirFor(std::uint32_t uid, const std::string& xdg_runtime_dir);

// What an agent's recipe adds to its box (launcher/agents/: ApplyRecipe).
struct AgentFolder {
  std::string host;    // on the host
  std::string in_box;  // absolute, or "~/..." under the box's HOME
  bool file = false;   // a file (~/.claude.json), else a folder
  std::string why;
};
struct AgentAdditions {
  std::string agent;                   // the recipe's name, "" when none
  std::vector<AgentFolder> folders;    // mounted read-write
  std::vector<std::string> variables;  // passed by name when set
  std::vector<std::string> hosts;      // allowed through the proxy
  std::vector<std::string> env;        // NAME=VALUE
  // Logins among `variables` (the recipe's table), for the proxy to hold;
  // empty with `logins_pass` (agents.logins: pass).
  std::vector<BoxLogin> logins;
  bool logins_pass = false;
  std::vector<LoginFile> login_files;  // paths on the host
};

// What the plan is made from. Everything from the host is passed in, so
// MakePlan reads only the project folder and writes nothing.
struct PlanInput {
  const policy::Policy* policy = nullptr;
  std::string cwd;                          // where corral was started
  std::vector<std::string> agent_command;  // the agent and its arguments
  std::string image;                        // --image, overrides policy.image
  std::string session_id;                   // "" picks a random one
  std::uint32_t uid = 0;
  std::uint32_t gid = 0;
  std::string home;        // the user's home folder
  std::string config_dir;  // corral's config folder
  std::string state_dir;   // corral's state folder (volumes for OCI live there)
  std::string runtime_dir; // sessions go in runtime_dir/sessions/<id>
  std::string session_dir; // overrides that, "" for the default
  std::string shim_path;
  std::string shell_path;  // corral-shell, beside the shim
  std::string ca_bundle;   // host CA bundle, "" when none
  bool tty = false;
  std::uint64_t nofile_hard = 1024;
  std::uint64_t nproc_hard = 4096;
  std::function<const char*(const char*)> getenv;  // for TERM, LANG and `pass`
  // Registry hosts the user's tools use on this host ("host:port"), allowed
  // like the project's git host; each with where it was read.
  std::vector<std::pair<std::string, std::string>> tool_registries;
  // Hosts allowed per project folder (corral allow --host NAME --project),
  // from corral's state; the plan takes its project's.
  std::map<std::string, std::vector<std::string>> project_hosts;
  // Hosts refused in the last session in the project of `cwd`, with counts.
  std::map<std::string, std::uint64_t> last_refused_hosts;
  AgentAdditions agent;
  // The agent's logins become stand-ins, held by the session's proxy. Only a
  // local session sets it: `corral spec` and the renderings without corral's
  // proxy keep passing the values as they are.
  bool logins_through_proxy = false;
  // Reads a login file (agent.login_files); nullopt when it is not there.
  std::function<std::optional<std::string>(const std::string& path)> read_login_file;
  std::vector<PublishedPort> published;  // corral run --publish
};

}  // namespace corral::launcher
