#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "base/paths.h"
#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"
#include "launcher/test_util.h"
#include "netfilter/netfilter.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

const Mount* Find(const SessionPlan& plan, const std::string& target) {
  for (const Mount& m : plan.mounts) {
    if (m.target == target) return &m;
  }
  return nullptr;
}

bool HasEnv(const SessionPlan& plan, const std::string& entry) {
  return std::find(plan.env.begin(), plan.env.end(), entry) != plan.env.end();
}

TEST(Plan, MountsProjectAtItsGitTopLevelWithHooksAndConfigReadOnly) {
  TempTree tree;
  std::string top = tree.Dir("home/user/src/app");
  tree.Dir("home/user/src/app/.git/hooks");
  tree.File("home/user/src/app/.git/config", "[remote \"origin\"]\n\turl = git@github.com:a/b.git\n");
  std::string sub = tree.Dir("home/user/src/app/lib");
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, sub));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->project_dir, top);
  EXPECT_EQ(plan->workdir, sub);
  ASSERT_NE(Find(*plan, top), nullptr);
  EXPECT_FALSE(Find(*plan, top)->read_only);
  ASSERT_NE(Find(*plan, top + "/.git/hooks"), nullptr);
  EXPECT_TRUE(Find(*plan, top + "/.git/hooks")->read_only);
  ASSERT_NE(Find(*plan, top + "/.git/config"), nullptr);
  EXPECT_TRUE(Find(*plan, top + "/.git/config")->read_only);
  // The ssh remote goes over HTTPS through the proxy; the ssh port stays closed.
  EXPECT_NE(std::find(plan->allowed_domains.begin(), plan->allowed_domains.end(), "github.com:443"),
            plan->allowed_domains.end());
  EXPECT_EQ(std::find(plan->allowed_domains.begin(), plan->allowed_domains.end(), "github.com:22"),
            plan->allowed_domains.end());
}

TEST(Plan, HostsAllowedForAProjectJoinOnlyThatProjectsBox) {
  TempTree tree;
  std::string proj = tree.Dir("home/user/src/app");
  tree.Dir("home/user/src/app/.git");
  std::string other = tree.Dir("home/user/src/other");
  auto policy = TestPolicy();
  PlanInput input = TestInput(policy, tree, proj + "/.git/..");
  input.project_hosts = {{proj, {"pypi.internal:8443"}}, {other, {"other.example"}}};
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  const auto& hosts = plan->allowed_domains;
  EXPECT_NE(std::find(hosts.begin(), hosts.end(), "pypi.internal:8443"), hosts.end());
  EXPECT_EQ(std::find(hosts.begin(), hosts.end(), "other.example"), hosts.end());
}

TEST(Plan, HostsRefusedLastTimeAndStillNotAllowedAreNamed) {
  TempTree tree;
  std::string proj = tree.Dir("home/user/src/app");
  auto policy = TestPolicy();
  policy.network.allowed_domains.push_back("now-allowed.example");
  PlanInput input = TestInput(policy, tree, proj);
  input.last_refused_hosts = {{"now-allowed.example", 2}, {"api.example.com", 3}};
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  std::string notes;
  for (const auto& note : plan->notes) notes += note + "\n";
  EXPECT_NE(notes.find("last session the proxy refused api.example.com (3 times)"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("now-allowed.example"), std::string::npos) << notes;
}

TEST(Plan, AnAgentsFoldersHostsAndVariablesJoinTheBox) {
  TempTree tree;
  std::string proj = tree.Dir("home/user/src/app");
  auto policy = TestPolicy();
  PlanInput input = TestInput(policy, tree, proj);
  input.agent.agent = "claude";
  input.agent.folders = {{tree.root() + "/home/user/.claude", "~/.claude", false, "settings"}};
  input.agent.hosts = {"api.anthropic.com"};
  input.agent.variables = {"SECRET_TOKEN", "NOT_SET"};
  input.agent.env = {"TMPDIR=~", "CACHE=~/.cache/x", "PLAIN=a~b"};
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  // A home under /tmp is /home/corral in the box; "~" follows it.
  std::string home = "/home/corral";
  const Mount* folder = Find(*plan, home + "/.claude");
  ASSERT_NE(folder, nullptr);
  EXPECT_FALSE(folder->read_only);
  EXPECT_EQ(folder->source, tree.root() + "/home/user/.claude");
  auto has = [](const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  EXPECT_TRUE(has(plan->allowed_domains, "api.anthropic.com"));
  EXPECT_TRUE(has(plan->env, "SECRET_TOKEN=s3cret"));
  EXPECT_EQ(plan->passed_by_name, std::vector<std::string>{"SECRET_TOKEN"});  // NOT_SET skipped
  EXPECT_TRUE(has(plan->env, "TMPDIR=" + home));
  EXPECT_TRUE(has(plan->env, "CACHE=" + home + "/.cache/x"));
  EXPECT_TRUE(has(plan->env, "PLAIN=a~b"));
  EXPECT_EQ(DescribePlan(*plan).find("s3cret"), std::string::npos);
}

// Hosts from outside the config (git remotes, the agent's recipe, this
// project's list, the tools' registries) join the proxy's list only when the
// proxy's own rules take them: a session never starts with one it refuses.
TEST(Plan, HostsTheProxyWouldRefuseAreLeftOutWithANote) {
  TempTree tree;
  std::string proj = tree.Dir("home/user/src/app");
  tree.File("home/user/src/app/.git/config",
            "[remote \"origin\"]\n\turl = ssh://git@git.example.com:0/a/b.git\n"
            "[remote \"wide\"]\n\turl = https://*.example.org/a/b.git\n"
            "[remote \"odd\"]\n\turl = ssh://git@bad!host.example/a.git\n"
            "[remote \"fine\"]\n\turl = git@good.example:a/b.git\n");
  auto policy = TestPolicy();
  PlanInput input = TestInput(policy, tree, proj);
  input.agent.agent = "mine";
  input.agent.hosts = {"api.mine.example", "exa mple.com"};
  input.project_hosts = {{proj, {"*", "*.internal.example"}}};
  input.tool_registries = {{"*.mirror.example:443", "~/.npmrc"}, {"pypi.mirror:8443", "pip.conf"}};
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  const auto& hosts = plan->allowed_domains;
  for (const char* allowed : {"good.example:443", "api.mine.example", "*.internal.example",
                              "pypi.mirror:8443"}) {
    EXPECT_NE(std::find(hosts.begin(), hosts.end(), allowed), hosts.end()) << allowed;
  }
  for (const char* refused : {"git.example.com:0", "*.example.org:443", "bad!host.example:22",
                              "exa mple.com", "*", "*.mirror.example:443"}) {
    EXPECT_EQ(std::find(hosts.begin(), hosts.end(), refused), hosts.end()) << refused;
  }
  // What the session's proxy is given, it takes.
  auto rules = netfilter::ParseRules({hosts, {}, {}});
  EXPECT_TRUE(rules.ok()) << rules.error().message;
  std::string notes;
  for (const auto& note : plan->notes) notes += note + "\n";
  for (const char* line :
       {"git.example.com:0 (a git remote in .git/config) left out of the proxy's list: "
        "`git.example.com:0` has a port that is not a number from 1 to 65535",
        "*.example.org:443 (a git remote in .git/config) left out of the proxy's list: "
        "`*.example.org:443` is a wildcard, and a URL names one host",
        "exa mple.com (mine's recipe) left out of the proxy's list: `exa mple.com` has a space",
        "* (this project's list, corral allow --host --project) left out of the proxy's list: "
        "`*` would allow every host",
        "*.mirror.example:443 (a registry your tools use, from ~/.npmrc) left out",
        "git host good.example:443 allowed (from .git/config)",
        "good.example:22 stays closed (forge.ssh: allow opens it)"}) {
    EXPECT_NE(notes.find(line), std::string::npos) << line << "\n" << notes;
  }
  EXPECT_EQ(notes.find("git host git.example.com:0 allowed"), std::string::npos) << notes;
}

TEST(Plan, GitFolderIsAMountPointSoTheBoxCannotReplaceIt) {
  // Renaming .git (which holds the read-only hooks and config) and making a
  // new one would let the box write hooks that run on the host.
  TempTree tree;
  std::string top = tree.Dir("p");
  tree.Dir("p/.git/hooks");
  tree.File("p/.git/config", "");
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  const Mount* git = Find(*plan, top + "/.git");
  ASSERT_NE(git, nullptr);
  EXPECT_EQ(git->source, top + "/.git");
  EXPECT_FALSE(git->read_only);
  auto index = [&](const std::string& target) {
    return std::find_if(plan->mounts.begin(), plan->mounts.end(),
                        [&](const Mount& m) { return m.target == target; }) -
           plan->mounts.begin();
  };
  EXPECT_LT(index(top), index(top + "/.git"));
  EXPECT_LT(index(top + "/.git"), index(top + "/.git/hooks"));
  EXPECT_LT(index(top + "/.git"), index(top + "/.git/config"));
}

TEST(Plan, MissingHooksFolderIsCoveredByAnEmptyReadOnlyOne) {
  TempTree tree;
  std::string top = tree.Dir("p");
  tree.File("p/.git/config", "");
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  const Mount* hooks = Find(*plan, top + "/.git/hooks");
  ASSERT_NE(hooks, nullptr);
  EXPECT_TRUE(hooks->read_only);
  EXPECT_EQ(hooks->source, plan->session_dir + "/emptydir");
}

TEST(Plan, WorktreeMountsTheMainRepositoryGitToo) {
  TempTree tree;
  std::string main_git = tree.Dir("main/.git");
  tree.Dir("main/.git/hooks");
  tree.File("main/.git/config", "");
  tree.File("main/.git/worktrees/wt/commondir", "../..\n");
  std::string wt = tree.Dir("wt");
  tree.File("wt/.git", "gitdir: " + main_git + "/worktrees/wt\n");
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, wt));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_NE(Find(*plan, main_git), nullptr);
  EXPECT_FALSE(Find(*plan, main_git)->read_only);
  ASSERT_NE(Find(*plan, main_git + "/hooks"), nullptr);
  EXPECT_TRUE(Find(*plan, main_git + "/hooks")->read_only);
  EXPECT_TRUE(Find(*plan, main_git + "/config")->read_only);
  // The worktree's .git file and commondir name the repository: read-only,
  // and its gitdir a mount point, so none of them can be swapped.
  ASSERT_NE(Find(*plan, wt + "/.git"), nullptr);
  EXPECT_TRUE(Find(*plan, wt + "/.git")->read_only);
  ASSERT_NE(Find(*plan, main_git + "/worktrees/wt"), nullptr);
  EXPECT_FALSE(Find(*plan, main_git + "/worktrees/wt")->read_only);
  ASSERT_NE(Find(*plan, main_git + "/worktrees/wt/commondir"), nullptr);
  EXPECT_TRUE(Find(*plan, main_git + "/worktrees/wt/commondir")->read_only);
}

TEST(Plan, ACommondirWrittenIntoTheMainRepositoryIsWatched) {
  TempTree tree;
  std::string main_git = tree.Dir("main/.git");
  std::string sub = tree.Dir("main/src");
  EXPECT_EQ(CommondirToWatch(tree.Dir("main")), main_git + "/commondir");
  EXPECT_EQ(CommondirToWatch(sub), main_git + "/commondir");
  tree.File("main/.git/worktrees/wt/commondir", "../..\n");
  std::string wt = tree.Dir("wt");
  tree.File("wt/.git", "gitdir: " + main_git + "/worktrees/wt\n");
  EXPECT_EQ(CommondirToWatch(wt), "");  // a worktree's own commondir is git's
  EXPECT_EQ(CommondirToWatch(tree.Dir("not-git")), "");
  tree.File("main/.git/commondir", ".\n");
  EXPECT_EQ(CommondirToWatch(tree.Dir("main")), "");  // there before: not ours to remove
}

TEST(Plan, MasksDenyReadMatchesAndGivesDependencyFoldersVolumes) {
  TempTree tree;
  std::string top = tree.Dir("p");
  tree.File("p/.env", "KEY=1");
  tree.File("p/config/.env.local", "KEY=1");
  tree.File("p/certs/server.pem", "x");
  tree.File("p/README.md", "x");
  tree.Dir("p/web/node_modules/x");
  tree.File("p/web/node_modules/x/.env", "not scanned");
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  for (const char* masked : {"/.env", "/config/.env.local", "/certs/server.pem"}) {
    const Mount* m = Find(*plan, top + masked);
    ASSERT_NE(m, nullptr) << masked;
    EXPECT_TRUE(m->read_only);
    EXPECT_EQ(m->source, plan->session_dir + "/empty");
  }
  EXPECT_EQ(Find(*plan, top + "/README.md"), nullptr);
  EXPECT_EQ(Find(*plan, top + "/web/node_modules/x/.env"), nullptr);
  for (const char* dep : {"/node_modules", "/.venv", "/web/node_modules"}) {
    const Mount* m = Find(*plan, top + dep);
    ASSERT_NE(m, nullptr) << dep;
    EXPECT_EQ(m->kind, MountKind::kVolume);
  }
}

// A walk that stops early could leave a secret unmasked: the box is not set
// up then, rather than started with what was found.
TEST(Plan, AProjectTooLargeToLookThroughIsRefused) {
  TempTree tree;
  std::string top = tree.Dir("p");
  for (int i = 0; i < 30; ++i) tree.File("p/f" + std::to_string(i), "x");
  tree.File("p/zz/.env", "KEY=1");
  ProjectScan cut = ScanProject(top, {".env"}, 10);
  EXPECT_NE(cut.incomplete.find("more than 10"), std::string::npos) << cut.incomplete;
  ProjectScan whole = ScanProject(top, {".env"}, 1000);
  EXPECT_EQ(whole.incomplete, "");
  EXPECT_EQ(whole.deny_files, std::vector<std::string>{top + "/zz/.env"});
}

TEST(Plan, DenyReadNameThatLinksIntoTheProjectMasksTheTarget) {
  // .env -> config/app.conf: reading .env in the box reads the target.
  TempTree tree;
  std::string top = tree.Dir("p");
  tree.File("p/config/app.conf", "KEY=1");
  tree.File("p/.env.production", "KEY=2");
  tree.File("p/outside-target", "x");
  std::filesystem::create_symlink("config/app.conf", top + "/.env");
  std::filesystem::create_symlink(".env.production", top + "/.env.local");  // masked by name too
  std::filesystem::create_symlink("/etc/hostname", top + "/id_rsa");        // not in the box
  std::filesystem::create_symlink("nowhere", top + "/server.pem");          // dangling
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  for (const char* masked : {"/config/app.conf", "/.env.production"}) {
    const Mount* m = Find(*plan, top + masked);
    ASSERT_NE(m, nullptr) << masked;
    EXPECT_TRUE(m->read_only);
    EXPECT_EQ(m->source, plan->session_dir + "/empty");
    EXPECT_EQ(std::count_if(plan->mounts.begin(), plan->mounts.end(),
                            [&](const Mount& x) { return x.target == top + masked; }),
              1)
        << masked;
  }
  for (const char* link : {"/.env", "/.env.local", "/id_rsa", "/server.pem"}) {
    EXPECT_EQ(Find(*plan, top + link), nullptr) << link;  // never a mount on a link
  }
  EXPECT_EQ(Find(*plan, "/etc/hostname"), nullptr);
}

TEST(Plan, TheShimIsToldTheExecCheckSetting) {
  TempTree tree;
  std::string top = tree.Dir("p");
  auto policy = TestPolicy();
  for (auto [setting, word] : {std::pair{policy::ExecCheck::kOn, "on"},
                               std::pair{policy::ExecCheck::kRequire, "require"},
                               std::pair{policy::ExecCheck::kOff, "off"}}) {
    policy.exec_check = setting;
    auto plan = MakePlan(TestInput(policy, tree, top));
    ASSERT_TRUE(plan) << plan.error().message;
    std::vector<std::string> expected = {kShimInBox, "init", "--exec-check", word};
    if (setting != policy::ExecCheck::kOff) {
      expected.insert(expected.end(), {"--user", "1000:1000"});
      // Each writable volume, which Podman makes root's for a box started as root.
      for (const Mount& m : plan->mounts) {
        if (m.kind == MountKind::kVolume && !m.read_only) {
          expected.insert(expected.end(), {"--own", m.target});
        }
      }
      EXPECT_NE(std::find(expected.begin(), expected.end(), "/home/corral"), expected.end());
    }
    expected.push_back("--");
    std::vector<std::string> head(plan->command.begin(), plan->command.begin() + expected.size());
    EXPECT_EQ(head, expected);
    EXPECT_EQ(plan->exec_gate, setting != policy::ExecCheck::kOff);
  }
}

TEST(Plan, GvisorRunsTheBoxOnRunscWithoutTheExecCheckAndSaysSo) {
  TempTree tree;
  std::string top = tree.Dir("p");
  auto policy = TestPolicy();
  auto plain = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->runtime, "");
  EXPECT_EQ(RuntimeName(*plain), "default");

  policy.runtime = policy::BoxRuntime::kGvisor;
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->runtime, "runsc");
  EXPECT_EQ(RuntimeName(*plan), "gvisor (runsc)");
  // No seccomp user notification in gVisor's kernel: no gate, the check off,
  // and a line saying what stands in its place.
  EXPECT_FALSE(plan->exec_gate);
  std::vector<std::string> head(plan->command.begin(), plan->command.begin() + 5);
  EXPECT_EQ(head, (std::vector<std::string>{kShimInBox, "init", "--exec-check", "off", "--"}));
  EXPECT_NE(std::find(plan->notes.begin(), plan->notes.end(), kGvisorExecCheckLine),
            plan->notes.end());
  EXPECT_NE(Summary(*plan, "docker 28").find("runtime gvisor (runsc)"), std::string::npos);
  EXPECT_NE(Summary(*plan, "docker 28").find("shell front still asks"), std::string::npos);
  EXPECT_NE(DescribePlan(*plan).find("runtime: gvisor (runsc)"), std::string::npos);
  EXPECT_EQ(Summary(*plain, "docker 28").find("runtime"), std::string::npos);

  auto clone3 = [](const SessionPlan& p) {
    for (const auto& rule : p.seccomp["syscalls"]) {
      if (rule["names"] == nlohmann::json::array({"clone3"})) return rule["action"].get<std::string>();
    }
    return std::string("none");
  };
  EXPECT_EQ(clone3(*plain), "SCMP_ACT_ERRNO");
  EXPECT_EQ(clone3(*plan), "SCMP_ACT_ALLOW") << "runsc gives EPERM for ENOSYS: no thread starts";
  // runsc skips a name its table does not know: pselect6 is "pselect" there.
  auto allowing = [](const SessionPlan& p, const std::string& name) {
    for (const auto& rule : p.seccomp["syscalls"]) {
      if (rule["action"] != "SCMP_ACT_ALLOW") continue;
      for (const auto& n : rule["names"]) {
        if (n == name) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(allowing(*plain, "pselect6"));
  EXPECT_FALSE(allowing(*plain, "pselect"));
  EXPECT_TRUE(allowing(*plan, "pselect6"));
  EXPECT_TRUE(allowing(*plan, "pselect"));
  // The box's process count is RLIMIT_NPROC in gVisor's kernel; the cgroup's
  // limit counts gVisor's own threads and becomes a ceiling above them.
  auto nproc = [](const SessionPlan& p) {
    for (const Ulimit& u : p.ulimits) {
      if (u.name == "nproc") return std::pair{u.soft, u.hard};
    }
    return std::pair<std::uint64_t, std::uint64_t>{0, 0};
  };
  EXPECT_EQ(plain->limits.pids, policy.limits.pids);
  EXPECT_EQ(nproc(*plan), (std::pair<std::uint64_t, std::uint64_t>{
                              static_cast<std::uint64_t>(policy.limits.pids),
                              static_cast<std::uint64_t>(policy.limits.pids)}));
  EXPECT_EQ(plan->limits.pids,
            policy.limits.pids * kGvisorTasksPerProcess + kGvisorBaseTasks);
  EXPECT_TRUE(std::any_of(plan->notes.begin(), plan->notes.end(), [&](const std::string& n) {
    return n.find("pids " + std::to_string(policy.limits.pids) +
                  " held by RLIMIT_NPROC in gVisor's kernel") == 0;
  }));
  EXPECT_NE(Summary(*plan, "docker 28").find("  pids " + std::to_string(policy.limits.pids) +
                                             " held by RLIMIT_NPROC in gVisor's kernel"),
            std::string::npos);
  EXPECT_EQ(GvisorPidsLine(*plain), "");

  policy.exec_check = policy::ExecCheck::kOff;  // asked off: nothing to say about it
  plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(std::find(plan->notes.begin(), plan->notes.end(), kGvisorExecCheckLine),
            plan->notes.end());

  policy.exec_check = policy::ExecCheck::kRequire;
  plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("exec_check is require, and runtime gvisor cannot run the "
                                      "exec check"),
            std::string::npos)
      << plan.error().message;
}

TEST(Plan, WithoutExecGateRunsAsTheAgentFromTheStart) {
  TempTree tree;
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  ASSERT_TRUE(plan) << plan.error().message;
  auto allows_mount = [](const nlohmann::json& seccomp) {
    for (const auto& rule : seccomp["syscalls"]) {
      if (rule["action"] != "SCMP_ACT_ALLOW") continue;
      for (const auto& name : rule["names"]) {
        if (name == "mount") return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(allows_mount(plan->seccomp)) << "the gate's set-up mounts";
  ASSERT_TRUE(WithoutExecGate(*plan, policy.seccomp));
  EXPECT_FALSE(plan->exec_gate);
  EXPECT_FALSE(allows_mount(plan->seccomp));
  for (const char* option : {"--user", "--own"}) {
    EXPECT_EQ(std::find(plan->command.begin(), plan->command.end(), option), plan->command.end());
  }
  EXPECT_EQ(plan->command.at(4), "--");
}

TEST(Plan, HardeningEnvironmentAndCommand) {
  TempTree tree;
  std::string top = tree.Dir("p");
  auto policy = TestPolicy();
  policy.pass = {"SECRET_TOKEN", "UNSET_ONE"};
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->network_mode, "none");
  EXPECT_EQ(plan->command.front(), kShimInBox);
  auto dashes = std::find(plan->command.begin(), plan->command.end(), "--");
  ASSERT_NE(dashes, plan->command.end());
  EXPECT_EQ(*(dashes + 1), "sh");
  EXPECT_EQ(plan->limits.pids, 256);
  EXPECT_EQ(plan->limits.memory_bytes, 512LL << 20);
  EXPECT_EQ(plan->limits.cpu_quota, 150000);
  EXPECT_TRUE(HasEnv(*plan, "SECRET_TOKEN=s3cret"));
  EXPECT_TRUE(HasEnv(*plan, "TERM=xterm"));
  EXPECT_TRUE(HasEnv(*plan, "SHELL=/run/corral/bin/bash"));
  EXPECT_TRUE(HasEnv(*plan, "MAKEFLAGS=SHELL=/run/corral/bin/bash"));
  EXPECT_TRUE(HasEnv(*plan, "npm_config_script_shell=/run/corral/bin/sh"));
  EXPECT_TRUE(HasEnv(*plan, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"));
  EXPECT_TRUE(HasEnv(*plan, "GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt"));
  for (const auto& e : plan->env) EXPECT_NE(e.rfind("UNSET_ONE", 0), 0u);
  const Mount* tmp = Find(*plan, "/tmp");
  ASSERT_NE(tmp, nullptr);
  EXPECT_EQ(tmp->kind, MountKind::kTmpfs);
  // The test's home is under /tmp, so HOME in the box is elsewhere.
  const Mount* home = Find(*plan, "/home/corral");
  ASSERT_NE(home, nullptr);
  EXPECT_EQ(home->kind, MountKind::kVolume);
  EXPECT_TRUE(Find(*plan, kSessionMountPoint)->read_only);
  EXPECT_TRUE(Find(*plan, kShimInBox)->read_only);
  ASSERT_NE(Find(*plan, kShellInBox), nullptr);
  EXPECT_TRUE(Find(*plan, kShellInBox)->read_only);
  EXPECT_EQ(Find(*plan, kShellInBox)->source, tree.File("bin/corral-shell"));
  EXPECT_TRUE(plan->seccomp.contains("syscalls"));
  for (const auto& u : plan->ulimits) EXPECT_LE(u.hard, 8192u);
}

TEST(Plan, MountsComeParentsFirst) {
  TempTree tree;
  std::string top = tree.Dir("home/user/p");
  tree.File("home/user/p/.env");
  auto policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, top));
  ASSERT_TRUE(plan) << plan.error().message;
  for (std::size_t i = 0; i < plan->mounts.size(); ++i) {
    for (std::size_t j = i + 1; j < plan->mounts.size(); ++j) {
      EXPECT_FALSE(IsWithin(plan->mounts[i].target, plan->mounts[j].target) &&
                   plan->mounts[i].target != plan->mounts[j].target)
          << plan->mounts[i].target << " before its parent " << plan->mounts[j].target;
    }
  }
}

TEST(Plan, RefusesUnsafeFolders) {
  TempTree tree;
  auto policy = TestPolicy();
  auto input = TestInput(policy, tree, "/");
  auto refused = [&](const std::string& cwd) {
    input.cwd = cwd;
    auto plan = MakePlan(input);
    return plan ? std::string() : plan.error().message;
  };
  EXPECT_NE(refused("/").find("whole machine"), std::string::npos);
  EXPECT_NE(refused(input.home).find("is your home folder"), std::string::npos);
  EXPECT_NE(refused(tree.root() + "/home").find("holds your home folder"), std::string::npos);
  EXPECT_NE(refused(tree.Dir("home/user/.config/nvim")).find("~/.config"), std::string::npos);
  EXPECT_NE(refused(tree.Dir("home/user/.local/share")).find("~/.local"), std::string::npos);
  std::string state = tree.Dir("state");
  input.state_dir = state + "/corral";
  EXPECT_NE(refused(state).find("corral's state folder"), std::string::npos);
  tree.Dir("home/user/.git");
  std::string notes = refused(tree.Dir("home/user/notes"));
  EXPECT_NE(notes.find("git checkout of your whole home"), std::string::npos) << notes;
  tree.Dir("home/user/proj/.git");
  EXPECT_EQ(refused(tree.Dir("home/user/proj")), "");
}

TEST(Plan, BadLimitsAndMissingExtrasSayWhichKey) {
  TempTree tree;
  auto policy = TestPolicy();
  policy.limits.memory = "lots";
  auto plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("limits.memory"), std::string::npos);
  policy = TestPolicy();
  policy.filesystem.extra_readonly = {tree.root() + "/nope"};
  plan = MakePlan(TestInput(policy, tree, tree.Dir("p")));
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("filesystem.extra_readonly"), std::string::npos);
}

TEST(GitHosts, ParsesRemotesOriginFirst) {
  std::string config =
      "[core]\n\tbare = false\n"
      "[remote \"upstream\"]\n\turl = https://gitlab.example.com:8443/x/y.git\n"
      "[remote \"origin\"]\n\turl = ssh://git@GitHub.com:2222/a/b.git\n"
      "[remote \"local\"]\n\turl = /srv/git/repo.git\n";
  auto hosts = GitHosts(config);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0], "github.com:2222");
  EXPECT_EQ(hosts[1], "gitlab.example.com:8443");
  EXPECT_EQ(HostOfUrl("https://github.com/a/b"), "github.com:443");
  EXPECT_EQ(HostOfUrl("http://user:pw@host.example/a"), "host.example:80");
  EXPECT_EQ(HostOfUrl("git@bitbucket.org:team/repo.git"), "bitbucket.org:22");
  EXPECT_EQ(HostOfUrl("git://example.org/r"), "example.org:9418");
  EXPECT_EQ(HostOfUrl("file:///srv/r"), "");
  EXPECT_EQ(HostOfUrl("../other"), "");
}

}  // namespace
}  // namespace corral::launcher
