// launcher/plan/: what the plan is made from: facts about the project folder
// (read as text), small pure values, and the seccomp profile as JSON. Private
// to launcher/; the plan's data is in launcher/session_plan.h.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/autorun/autorun.h"
#include "launcher/session_plan.h"
#include "policy/config/config.h"

namespace corral::launcher {

// The session plan from its input: reads the project folder as text and
// writes nothing.
Result<SessionPlan> MakePlan(const PlanInput& input);

// The PlanInput for this process: uid, home, folders, limits, CA bundle, shim.
PlanInput HostPlanInput(const policy::Policy& policy);

// Hosts allowed for one project's sessions (corral allow --host NAME
// --project), kept in <state_dir>/project-hosts.json, never in the project.
using ProjectHosts = std::map<std::string, std::vector<std::string>>;
std::string ProjectHostsPath(const std::string& state_dir);
Result<ProjectHosts> ReadProjectHosts(const std::string& state_dir);
// False when it was there already.
Result<bool> AddProjectHost(const std::string& state_dir, const std::string& project,
                            const std::string& host);
// The project folder a session started in `cwd` has: its git top, or itself.
std::string ProjectFolderOf(const std::string& cwd);
// The hosts the proxy refused in the project's last session, with counts
// (<state_dir>/refused-hosts.json; none forgets the project).
Result<void> RememberRefusedHosts(const std::string& state_dir, const std::string& project,
                                  const std::string& session,
                                  const std::map<std::string, std::uint64_t>& hosts);
std::map<std::string, std::uint64_t> LastRefusedHosts(const std::string& state_dir,
                                                      const std::string& project);

// The runtime in words ("default", "gvisor (runsc)"): --print, the start
// line and the record.
std::string RuntimeName(const SessionPlan& plan);

// The plan in words, a line per fact, for `corral run --print`.
std::string DescribePlan(const SessionPlan& plan);

// The two lines said before the agent starts.
std::string Summary(const SessionPlan& plan, const std::string& engine_name);
// "the proxy refused a.com (3 times), ...; to allow one ...: corral allow
// --host NAME [--project]", or "".
std::string RefusedHostsLine(const std::map<std::string, std::uint64_t>& refused_hosts);

// Facts about the project folder, read from disk as text (never by running
// git on the host). Private to launcher/.
struct GitLayout {
  std::string top;             // the folder holding .git ("" when not in git)
  std::string git_dir;         // top/.git, or the worktree's gitdir
  std::string common_dir;      // the main repository's .git for a worktree, else ""
};

// The exec_check the shim is given ("on", "require", "off") for the policy's
// runtime; runtime: gvisor sets plan.runtime, turns the check off with a note
// (kGvisorExecCheckLine), and refuses exec_check: require (box_runtime.cc).
Result<std::string> ExecCheckUnder(const policy::Policy& policy, SessionPlan& plan);
// Under runtime: gvisor, the profile as runsc reads it (clone3 left to
// gVisor's kernel, gVisor's own names for calls it names differently) and the
// pids limit held by RLIMIT_NPROC in gVisor's kernel, the cgroup's limit
// raised to a ceiling on gVisor's threads (box_runtime.cc). No-op otherwise.
void FitToGvisor(SessionPlan& plan);
// "pids N held by RLIMIT_NPROC in gVisor's kernel; ...", or "" (not gVisor,
// no pids limit): a note of the plan and a start line.
std::string GvisorPidsLine(const SessionPlan& plan);
// The cgroup's pids limit under gVisor: per box process, plus gVisor's own.
inline constexpr std::int64_t kGvisorTasksPerProcess = 32;
inline constexpr std::int64_t kGvisorBaseTasks = 256;

// Walks up from `dir` to the nearest folder holding `.git` (folder or file).
GitLayout FindGit(const std::string& dir);

// `.git/commondir` makes git take hooks and config from the folder it names.
// Only a worktree's gitdir has one, so in a main repository a new one can
// only have been written by the box, and would let it choose the hooks git
// runs on the host. The path to check when the session ends, or "" when the
// project is not a main repository or already has the file.
std::string CommondirToWatch(const std::string& project_dir);

// The folders the auto-run table's rows start from for `project` (its git
// layout read as text), with every git config text that may set
// core.hooksPath: the repository's, a worktree's, and the user's own
// (~/.gitconfig, ~/.config/git/config) from `home`.
autorun::Roots AutorunRoots(const std::string& project, const std::string& home);

// "host:port" for each remote URL in a .git/config text, `origin` first.
// https → 443, http → 80, ssh:// and scp-like user@host:path → 22 (or the
// URL's port), git:// → 9418. Local paths and file:// give nothing.
std::vector<std::string> GitHosts(const std::string& config_text);
// Every remote's (name, url) in a .git/config's text, origin first.
std::vector<std::pair<std::string, std::string>> RemoteUrls(const std::string& config_text);
// The project's forge (docs/forge.md): its remotes' hosts and repositories,
// forge.repositories, which host's API is scoped, ssh remotes over HTTPS.
void PlanForge(const PlanInput& input, const std::string& git_config, SessionPlan& plan);
std::string HostOfUrl(const std::string& url);

// Adds to plan.allowed_domains (the policy's lists) the project's git hosts
// (from `git_config`, its .git/config text), the agent's hosts, this
// project's hosts and the registries the user's tools use, each once. One the
// proxy's rules refuse is left out, with a note saying where it came from and
// why (allowed_hosts.cc).
void AllowHosts(const PlanInput& input, const std::string& git_config, SessionPlan& plan);

// A file's whole text; "" when it cannot be read (a missing file is normal).
std::string ReadText(const std::string& path);
// Creates (or truncates) `path` with `text` and `mode`.
Result<void> WriteFile(const std::string& path, const std::string& text, unsigned mode);

// A registry host ("host:port") the user's tools are set up to use, and
// where that was read (for `corral run --print`).
struct RegistryHost {
  std::string entry;
  std::string from;
};
// npm (npm_config_registry, ~/.npmrc), pip (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
// pip.conf), cargo (~/.cargo/config.toml) and go (GOPROXY), read as text.
std::vector<RegistryHost> ToolRegistries(const std::string& home,
                                         const std::function<const char*(const char*)>& getenv);

struct ProjectScan {
  std::vector<std::string> deny_files;  // absolute paths matching deny_read
  std::vector<std::string> deny_dirs;
  std::vector<std::string> dep_dirs;    // node_modules/.venv folders, absolute
  // Why the walk stopped before the end (too many entries, a read error):
  // secrets past that point would not be masked, so the box is not set up.
  std::string incomplete;
};

// One bounded walk of the project: files and folders matching `deny_read`
// globs (a glob with '/' matches the relative path, else the name), and
// node_modules/.venv folders up to five levels down. Skips .git and the
// dependency folders' insides. Stops after `max_entries` entries (see
// ProjectScan::incomplete).
ProjectScan ScanProject(const std::string& top, const std::vector<std::string>& deny_read,
                        std::size_t max_entries = 1000000);

// An unsafe folder to share gives a one-line refusal saying what to do.
struct Folders {
  std::string home;
  std::string config_dir;  // corral's
  std::string state_dir;   // corral's
};
// `cwd` is where corral was started; the project is its git top level.
Result<void> CheckProjectFolder(const std::string& cwd, const GitLayout& git,
                                const Folders& folders);


// A small JSON file in corral's state folder that several corral processes
// update (state_json.cc). Read: null when there is none; text that is not
// JSON comes back discarded (is_discarded()) for the caller to name. Update:
// under an exclusive lock (<path>.lock), `change` edits the current value
// (null when none) and says whether to write it; written beside (0600) and
// renamed over, so a reader sees the old file or the new one.
Result<nlohmann::json> ReadStateJson(const std::string& path);
Result<void> UpdateStateJson(const std::string& path,
                             const std::function<Result<bool>(nlohmann::json&)>& change);

// Small pure pieces of the plan: sizes, CPU shares, names, environment.
// Private to launcher/.
// "4g", "512m", "1048576", "" (none → 0).
Result<std::int64_t> ParseMemory(const std::string& text);
// "1.5" → {150000, 100000}; "" → no limit.
Result<Limits> ParseCpus(const std::string& text, Limits limits);

// Lower-case [a-z0-9-] form of a folder name, for container and volume names.
std::string Slug(const std::string& name);
// 8 hex digits of a stable hash (FNV-1a), for per-project names.
std::string ShortHash(const std::string& text);
// 12 random hex digits.
std::string RandomSessionId();

// The box's environment: only what it needs, plus TERM, LANG, the CA
// variables and the `pass` names whose values are set now.
std::vector<std::string> BoxEnvironment(const PlanInput& input, const std::string& home_in_box,
                                        const std::string& ca_in_box,
                                        const std::string& session_id);

// Where programs look for a shell, each pointing at corral-shell's names in
// `bin`: SHELL and CLAUDE_CODE_SHELL (`shell` is the name they get); make,
// which ignores $SHELL but takes a SHELL definition from MAKEFLAGS (added to
// `makeflags_now`); npm's script-shell, /bin/sh by default.
std::vector<std::pair<std::string, std::string>> ShellEnvironment(
    const std::string& bin, const std::string& shell, const std::string& makeflags_now);

// The proxy settings every common client reads (curl, git, npm, yarn, pip,
// node, ssh through `corral-shim connect`), pointing at the shim's bridge.
std::vector<std::string> ProxyEnvironment();

// The agent's logins (box_logins.cc, docs/logins.md).
// Stand-ins come from netfilter::MakeStandIn.
// plan.login_files, and the logins and the box's copies of the agent's
// login files that exist (login_files.cc).
void PlanLoginFiles(const PlanInput& input, SessionPlan& plan);
// GH_TOKEN / GITHUB_TOKEN as logins for git over HTTPS (github.com, $GH_HOST)
// and gh's API (git_logins.cc); then, once the box's env is made, the git
// credential helper that gives git the stand-in.
void PlanGitLogins(const PlanInput& input, SessionPlan& plan);
void UseGitCredentials(SessionPlan& plan);
// Where a login goes: its base URL's host:port when that variable is set to
// an http(s) URL, else the recipe's hosts at 443.
std::vector<std::string> LoginHosts(const BoxLogin& login, const char* base_url);
// plan.logins (with stand-ins) and plan.logins_passed, from the agent's
// logins that are set now; nothing unless input.logins_through_proxy.
void PlanLogins(const PlanInput& input, SessionPlan& plan);
// The box's env gets each login's stand-in in place of its value; none is
// passed by name any more.
void UseStandIns(SessionPlan& plan);
// Back to the values as they are, for a session whose proxy cannot hold
// them (the network mode's sidecar): env, passed_by_name, the CA mount.
void PassLoginsAsTheyAre(SessionPlan& plan, const std::function<const char*(const char*)>& getenv,
                         const std::string& ca_bundle, const std::string& why);

inline constexpr const char* kCaInBox = "/etc/ssl/certs/ca-certificates.crt";
inline constexpr const char* kBoxPath =
    "/run/corral/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The box's package caches (package_caches.cc, docs/sessions.md): a named
// volume per tool (npm, pip, cargo, go, go-build) at kCacheRootInBox/TOOL,
// shared by the user's projects on an engine, or the project's own
// (caches.mode: project, or a folder in caches.own_projects).
inline constexpr const char* kCacheVolumePrefix = "corral-cache-";
inline constexpr const char* kCacheRootInBox = "/var/cache/corral";
std::vector<std::string> CacheTools();
// corral-cache-npm-u1000, or with `project` (its folder):
// corral-cache-npm-u1000-myapp-1a2b3c4d. The user's id keeps two users of
// one engine apart.
std::string CacheVolumeName(const std::string& tool, std::uint32_t uid, const std::string& project);
struct CacheVolume {
  std::string name;
  std::string tool;
  std::uint32_t uid = 0;
  std::string project;  // "myapp-1a2b3c4d", "" when shared
};
// A name CacheVolumeName makes, taken apart; nullopt for any other name.
std::optional<CacheVolume> ParseCacheVolume(const std::string& name);
void AddCacheMounts(const policy::CachesPolicy& caches, const std::string& project,
                    std::uint32_t uid, std::vector<Mount>& mounts);
// The variables that name those places for each tool.
std::vector<std::string> CacheEnvironment();

// The box's seccomp profile as a flattened OCI linux.seccomp object. Private.
// From seccomp/ when it is built; until then a small stand-in: everything
// allowed except what an agent never needs (namespaces, mounts, kernel
// modules, keyrings, bpf, ptrace unless allowed...), refused with EPERM.
// With the exec gate, the shim gives the volume at `target` to the agent's
// user when it is root's (a new volume, which Podman makes the box's first
// user's): `--own TARGET` among the shim's options.
void OwnVolume(SessionPlan& plan, const std::string& target);

// The plan for a box that cannot start as root to set the exec gate up (a
// Kubernetes Pod under a restricted policy): the agent's user from the
// start, and the seccomp profile without the gate's allowances.
Result<void> WithoutExecGate(SessionPlan& plan, const policy::SeccompPolicy& seccomp);

// `exec_gate`: mount and a mount namespace allowed, for the shim's first
// moments (seccomp::Options::exec_gate).
Result<nlohmann::json> SeccompJson(const policy::SeccompPolicy& user, bool exec_gate);

}  // namespace corral::launcher
