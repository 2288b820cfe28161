// Policy + project folder + agent command → SessionPlan. Reads the project
// folder (as text, never running git), writes nothing.
#include <sys/stat.h>

#include <algorithm>

#include "base/paths.h"
#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool IsDir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Mount Bind(std::string source, std::string target, bool read_only, std::string why) {
  return {MountKind::kBind, std::move(source), std::move(target), read_only, {}, std::move(why)};
}

// .git/hooks and .git/config read-only over the read-write project; for a
// worktree, the main repository's .git too (read-write, same protection).
void AddGitMounts(const GitLayout& git, const std::string& session_dir,
                  std::vector<Mount>& mounts) {
  if (git.top.empty()) return;
  std::string repo = git.common_dir.empty() ? git.git_dir : git.common_dir;
  if (!git.common_dir.empty() && !IsWithin(git.common_dir, git.top)) {
    mounts.push_back(Bind(git.common_dir, git.common_dir, false,
                          "the main repository's .git, so git works in this worktree"));
  }
  if (!IsDir(repo)) return;
  // A folder that holds protected mount points can still be renamed: the box
  // could move .git aside and put a .git of its own there, with hooks and
  // config it wrote. A mount point cannot be renamed or removed (EBUSY).
  if (IsWithin(repo, git.top)) {
    mounts.push_back(Bind(repo, repo, false, "the repository as a mount point of its own: it "
                                             "cannot be moved aside and replaced"));
  }
  if (!git.common_dir.empty()) {
    // A worktree: its .git file and its gitdir's commondir name the
    // repository whose hooks and config git uses on the host.
    std::string dot_git = git.top + "/.git";
    mounts.push_back(Bind(dot_git, dot_git, true,
                          "the worktree's .git file read-only: it names the repository"));
    if (IsDir(git.git_dir)) {
      mounts.push_back(Bind(git.git_dir, git.git_dir, false,
                            "the worktree's gitdir as a mount point: it cannot be replaced"));
      if (Exists(git.git_dir + "/commondir")) {
        mounts.push_back(Bind(git.git_dir + "/commondir", git.git_dir + "/commondir", true,
                              "the worktree's commondir read-only: it names the repository"));
      }
    }
  }
  std::string hooks = repo + "/hooks";
  mounts.push_back(Bind(IsDir(hooks) ? hooks : session_dir + "/emptydir", hooks, true,
                        "git hooks read-only: a hook written here would run on the host"));
  if (Exists(repo + "/config")) {
    mounts.push_back(Bind(repo + "/config", repo + "/config", true,
                          "git config read-only: it can name programs git runs on the host"));
  }
}

Result<void> AddProjectMounts(const PlanInput& input, const std::string& project,
                              const GitLayout& git, const std::string& volume_prefix,
                              const std::string& session_dir, std::vector<Mount>& mounts) {
  mounts.push_back(Bind(project, project, false, "the project, read-write at its own path"));
  AddGitMounts(git, session_dir, mounts);

  ProjectScan scan = ScanProject(project, input.policy->filesystem.deny_read);
  if (!scan.incomplete.empty()) {
    return Error("corral could not look through all of " + project + " for files to hide "
                 "(filesystem.deny_read): " + scan.incomplete + ". Nothing ran; run the agent "
                 "in a smaller folder of the project");
  }
  for (const std::string& file : scan.deny_files) {
    mounts.push_back(Bind(session_dir + "/empty", file, true, "masked (filesystem.deny_read)"));
  }
  for (const std::string& dir : scan.deny_dirs) {
    mounts.push_back(Bind(session_dir + "/emptydir", dir, true, "masked (filesystem.deny_read)"));
  }
  // What a tool on this machine runs without asking: read-only while it
  // exists; what the box makes there is held at the end (launcher/autorun/).
  auto read_only = autorun::ReadOnlyAtStart(AutorunRoots(project, input.home));
  if (!read_only) return read_only.error();
  for (const std::string& path : *read_only) {
    if (std::any_of(mounts.begin(), mounts.end(), [&](const Mount& m) { return m.target == path; })) {
      continue;
    }
    mounts.push_back(Bind(path, path, true,
                          "read-only: a tool on this machine runs it without asking (corral review)"));
  }
  std::vector<std::string> deps = {project + "/node_modules", project + "/.venv"};
  for (const std::string& dir : scan.dep_dirs) {
    if (std::find(deps.begin(), deps.end(), dir) == deps.end()) deps.push_back(dir);
  }
  for (const std::string& dir : deps) {
    std::string relative = dir.substr(project.size() + 1);
    std::string name = volume_prefix + "-" + Slug(relative) + "-" + ShortHash(relative);
    mounts.push_back({MountKind::kVolume, name, dir, false, {},
                      "a volume of its own: packages built inside are Linux builds"});
  }
  return Ok();
}

Result<void> AddExtraMounts(const policy::FilesystemPolicy& fs, std::vector<Mount>& mounts) {
  for (const auto& [list, read_only, key] :
       {std::tuple{&fs.extra_writable, false, "filesystem.extra_writable"},
        std::tuple{&fs.extra_readonly, true, "filesystem.extra_readonly"}}) {
    for (const std::string& path : *list) {
      if (path.empty() || path[0] != '/') {
        return Error(std::string(key) + ": " + path + " is not a full path; write it from /");
      }
      if (!Exists(path)) return Error(std::string(key) + ": " + path + " does not exist");
      mounts.push_back(Bind(NormalPath(path), NormalPath(path), read_only, key));
    }
  }
  return Ok();
}

// Parents before children: a mount point inside another mount comes after it.
void SortMounts(std::vector<Mount>& mounts) {
  auto depth = [](const Mount& m) { return std::count(m.target.begin(), m.target.end(), '/'); };
  std::stable_sort(mounts.begin(), mounts.end(),
                   [&](const Mount& a, const Mount& b) { return depth(a) < depth(b); });
}

// Where the session runs: the folder corral was started in, its repository,
// the project (the repository's top, else that folder) and the box's HOME.
struct Place {
  std::string cwd;
  GitLayout git;
  std::string project;
  std::string home;           // the box's HOME, at the user's home path
  std::string volume_prefix;  // this project's volumes: corral-SLUG-HASH
};

Result<Place> FindPlace(const PlanInput& input) {
  Place place;
  place.cwd = NormalPath(input.cwd);
  place.git = FindGit(place.cwd);
  place.project = place.git.top.empty() ? place.cwd : place.git.top;
  Folders folders{input.home, input.config_dir, input.state_dir};
  if (auto ok = CheckProjectFolder(place.cwd, place.git, folders); !ok) return ok.error();
  // HOME is a per-project volume at the user's home path, so paths match.
  // (Never under /tmp, where some agents refuse to install helpers.)
  place.home = input.home.empty() || IsWithin(NormalPath(input.home), "/tmp")
                   ? "/home/corral"
                   : NormalPath(input.home);
  std::string slug = Slug(place.project.substr(place.project.rfind('/') + 1));
  place.volume_prefix = "corral-" + slug + "-" + ShortHash(place.project);
  return place;
}

Result<void> PlanNames(const PlanInput& input, const Place& place, SessionPlan& plan) {
  plan.session_id = input.session_id.empty() ? RandomSessionId() : input.session_id;
  std::string slug = Slug(place.project.substr(place.project.rfind('/') + 1));
  plan.container_name = "corral-" + slug + "-" + plan.session_id;
  plan.project_dir = place.project;
  plan.workdir = place.cwd;
  plan.image = input.image.empty() ? input.policy->image : input.image;
  if (plan.image.empty()) return Error("no image: set `image` in the config or pass --image");
  plan.session_dir = input.session_dir.empty()
                         ? input.runtime_dir + "/sessions/" + plan.session_id
                         : NormalPath(input.session_dir);
  plan.seccomp_path = plan.session_dir + "/seccomp.json";
  plan.volume_root = input.state_dir + "/volumes";
  plan.uid = input.uid;
  plan.gid = input.gid;
  plan.tty = input.tty;
  return Ok();
}

// HOME, /tmp, the project and its protections, the extra and the agent's
// folders, the CA bundle, the session folder, the shim and the shell front.
// Returns the CA bundle's path in the box ("" when none).
Result<std::string> PlanMounts(const PlanInput& input, const Place& place, SessionPlan& plan) {
  auto& mounts = plan.mounts;
  mounts.push_back({MountKind::kVolume, place.volume_prefix + "-home", place.home, false, {},
                    "HOME: a volume for this project, kept between sessions"});
  AddCacheMounts(input.policy->caches, place.project, input.uid, mounts);
  mounts.push_back({MountKind::kTmpfs, "", "/tmp", false,
                    {"noexec", "nosuid", "nodev", "size=1g", "mode=1777"}, "temporary files"});
  if (auto added = AddProjectMounts(input, place.project, place.git, place.volume_prefix,
                                    plan.session_dir, mounts);
      !added) {
    return added.error();
  }
  if (auto ok = AddExtraMounts(input.policy->filesystem, mounts); !ok) return ok.error();
  for (const AgentFolder& folder : input.agent.folders) {
    std::string target = folder.in_box.rfind("~/", 0) == 0 ? place.home + folder.in_box.substr(1)
                                                            : folder.in_box;
    mounts.push_back(Bind(folder.host, target, false, folder.why));
  }
  PlanLogins(input, plan);
  std::string repo = place.git.common_dir.empty() ? place.git.git_dir : place.git.common_dir;
  PlanForge(input, repo.empty() ? "" : ReadText(repo + "/config"), plan);
  std::string ca_in_box;
  if (EndsTls(plan)) {  // written once the proxy has started
    ca_in_box = kCaInBox;
    mounts.push_back(Bind(plan.session_dir + "/" + kCaBundleFile, ca_in_box, true,
                          "the host's trusted CA bundle plus this session's CA (login and forge hosts)"));
  } else if (!input.ca_bundle.empty()) {
    ca_in_box = kCaInBox;
    mounts.push_back(Bind(input.ca_bundle, ca_in_box, true, "the host's trusted CA bundle"));
  }
  mounts.push_back(Bind(plan.session_dir, kSessionMountPoint, true,
                        "the session folder: watchdog and host sockets"));
  mounts.push_back(Bind(input.shim_path, kShimInBox, true, "the shim, PID 1 of the box"));
  mounts.push_back(Bind(input.shell_path, kShellInBox, true,
                        "the shell front: every shell command asks the host first"));
  SortMounts(mounts);
  return ca_in_box;
}

// The shim as PID 1, checking every exec of the agent's processes
// (docs/exec-check.md), except under gVisor, whose kernel has no seccomp user
// notification; then the agent's own command. A `projects:` entry may choose
// this project's runtime.
Result<void> PlanCommand(const PlanInput& input, const Place& place, SessionPlan& plan) {
  auto checked = ExecCheckUnder(policy::ForProject(*input.policy, place.project), plan);
  if (!checked) return checked.error();
  std::string exec_check = *checked;
  plan.exec_gate = exec_check != "off";
  plan.command = {kShimInBox, "init", "--exec-check", exec_check};
  if (plan.exec_gate) {
    plan.command.push_back("--user");
    plan.command.push_back(std::to_string(plan.uid) + ":" + std::to_string(plan.gid));
  }
  plan.command.push_back("--");
  for (const Mount& m : plan.mounts) {
    if (m.kind == MountKind::kVolume && !m.read_only) OwnVolume(plan, m.target);
  }
  plan.command.insert(plan.command.end(), input.agent_command.begin(), input.agent_command.end());
  return Ok();
}

void PlanEnvironment(const PlanInput& input, const Place& place, const std::string& ca_in_box,
                     SessionPlan& plan) {
  plan.env = BoxEnvironment(input, place.home, ca_in_box, plan.session_id);
  for (std::string& line : CacheEnvironment()) plan.env.push_back(std::move(line));
  // A recipe's value "~" or "~/x" is the box's HOME.
  for (const std::string& entry : input.agent.env) {
    std::size_t eq = entry.find('=');
    std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
    if (value == "~" || value.rfind("~/", 0) == 0) value = place.home + value.substr(1);
    plan.env.push_back(entry.substr(0, eq) + "=" + value);
  }
  for (const auto* names : {&input.policy->pass, &input.agent.variables}) {
    for (const std::string& name : *names) {
      const char* value = input.getenv ? input.getenv(name.c_str()) : nullptr;
      bool listed = std::find(plan.passed_by_name.begin(), plan.passed_by_name.end(), name) !=
                    plan.passed_by_name.end();
      if (!value || listed) continue;
      plan.passed_by_name.push_back(name);
      if (names != &input.policy->pass) plan.env.push_back(name + "=" + value);
    }
  }
  UseStandIns(plan);
  UseGitCredentials(plan);
  // gh in the box learns the enterprise host as gh on the host does (no secret).
  if (const char* gh_host = input.getenv ? input.getenv("GH_HOST") : nullptr; gh_host && *gh_host) {
    plan.env.push_back(std::string("GH_HOST=") + gh_host);
  }
}

// The hosts the proxy lets out (the project's git host among them), and the
// ones refused last time that are still not allowed.
void PlanNetwork(const PlanInput& input, const Place& place, SessionPlan& plan) {
  plan.allowed_domains = input.policy->network.allowed_domains;  // checked when loaded
  plan.request_rules = true;
  const auto& network = input.policy->network;
  plan.notes.push_back("package registries are read-only: installs go, publishing does not" +
                       std::string(network.publish.empty() ? " (registries.publish opens one)" : "") +
                       (network.rules.empty() ? "" : "; network.rules: " + std::to_string(network.rules.size()) +
                                                         (network.rules.size() == 1 ? " rule" : " rules")));
  for (const std::string& entry : network.publish) {
    plan.notes.push_back("registries.publish: the box may publish to " + entry);
  }
  std::string repo = place.git.common_dir.empty() ? place.git.git_dir : place.git.common_dir;
  AllowHosts(input, repo.empty() ? "" : ReadText(repo + "/config"), plan);
  std::map<std::string, std::uint64_t> still_refused;
  for (const auto& [host, times] : input.last_refused_hosts) {
    if (std::find(plan.allowed_domains.begin(), plan.allowed_domains.end(), host) ==
        plan.allowed_domains.end()) {
      still_refused[host] = times;
    }
  }
  if (!still_refused.empty()) {
    plan.notes.push_back("in this project's last session " + RefusedHostsLine(still_refused));
  }
}

// The system-call profile, the limits and the /proc and /sys paths hidden.
Result<void> PlanConfinement(const PlanInput& input, SessionPlan& plan) {
  const policy::Policy& policy = *input.policy;
  plan.deny_list = policy.deny_unattended;
  auto seccomp = SeccompJson(policy.seccomp, plan.exec_gate);
  if (!seccomp) return seccomp.error();
  plan.seccomp = std::move(*seccomp);
  plan.limits.pids = policy.limits.pids;
  auto memory = ParseMemory(policy.limits.memory);
  if (!memory) return memory.error();
  plan.limits.memory_bytes = *memory;
  auto limits = ParseCpus(policy.limits.cpus, plan.limits);
  if (!limits) return limits.error();
  plan.limits = *limits;
  plan.ulimits = {{"nofile", std::min<std::uint64_t>(input.nofile_hard, 8192),
                   std::min<std::uint64_t>(input.nofile_hard, 8192)},
                  {"nproc", std::min<std::uint64_t>(input.nproc_hard, 4096),
                   std::min<std::uint64_t>(input.nproc_hard, 4096)}};
  plan.masked_paths = {"/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys",
                       "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
                       "/proc/sched_debug", "/proc/scsi", "/sys/firmware",
                       "/sys/devices/virtual/powercap"};
  plan.readonly_paths = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"};
  FitToGvisor(plan);
  return Ok();
}

void PlanLabels(const PlanInput& input, const Place& place, SessionPlan& plan) {
  plan.labels = {{kLabelSession, plan.session_id},
                 {"corral.project", place.project},
                 {"corral.agent", input.agent_command.front()}};
  plan.published = input.published;
  if (!plan.published.empty()) {
    std::string ports;
    for (const PublishedPort& port : plan.published) {
      ports += (ports.empty() ? "" : ", ") + DescribePublishedPort(port);
    }
    plan.labels["corral.publish"] = ports;
  }
}

}  // namespace

Result<SessionPlan> MakePlan(const PlanInput& input) {
  if (input.agent_command.empty()) {
    return Error("no agent to run: name one (corral run claude) or a command after --");
  }
  auto place = FindPlace(input);
  if (!place) return place.error();
  SessionPlan plan;
  if (auto ok = PlanNames(input, *place, plan); !ok) return ok.error();
  auto ca_in_box = PlanMounts(input, *place, plan);
  if (!ca_in_box) return ca_in_box.error();
  if (auto ok = PlanCommand(input, *place, plan); !ok) return ok.error();
  PlanEnvironment(input, *place, *ca_in_box, plan);
  PlanNetwork(input, *place, plan);
  if (auto ok = PlanConfinement(input, plan); !ok) return ok.error();
  PlanLabels(input, *place, plan);
  return plan;
}

void OwnVolume(SessionPlan& plan, const std::string& target) {
  if (!plan.exec_gate) return;
  auto dashes = std::find(plan.command.begin(), plan.command.end(), "--");
  plan.command.insert(dashes, {"--own", target});
}

Result<void> WithoutExecGate(SessionPlan& plan, const policy::SeccompPolicy& seccomp) {
  if (!plan.exec_gate) return Ok();
  auto profile = SeccompJson(seccomp, false);
  if (!profile) return profile.error();
  plan.seccomp = std::move(*profile);
  plan.exec_gate = false;
  // The shim's own options, before its `--`: --user and --own go.
  auto dashes = std::find(plan.command.begin(), plan.command.end(), "--");
  for (auto at = plan.command.begin(); at < dashes && at + 1 < dashes;) {
    if (*at == "--user" || *at == "--own") {
      at = plan.command.erase(at, at + 2);
      dashes -= 2;
    } else {
      ++at;
    }
  }
  return Ok();
}

}  // namespace corral::launcher
