#include "policy/matcher/wrappers.h"

#include <algorithm>

#include "policy/matcher/name_hash.h"

namespace corral::policy {
namespace {

// Option tables from the tools' manuals. Letters not listed are read both
// as a flag and as taking an argument, which only adds candidates.
constexpr WrapperSpec kWrappers[] = {
    {"sudo", "", "ugpChDrtTU", "AbEeHiKklnPSsVvBNR",
     "user group host prompt close-from chdir role type command-timeout other-user", "", 0, "", 0,
     kAssignments},
    {"doas", "", "Cu", "Lns", "", "", 0, "", 0, 0},
    {"pkexec", "", "", "", "user", "disable-internal-agent keep-cwd", 0, "", 0, 0},
    {"nohup", "", "", "", "", "", 0, "", 0, 0},
    {"setsid", "", "", "cfw", "", "ctty fork wait", 0, "", 0, 0},
    {"nice", "", "n", "0123456789", "adjustment", "", 0, "", 0, 0},
    {"ionice", "", "cnpPu", "t", "class classdata pid pgid uid", "ignore", 0, "", 0, 0},
    {"taskset", "", "", "acpf", "", "all-tasks cpu-list pid", 0, "", 1, 0},
    {"chrt", "", "TPD", "abdefimoprRv", "sched-runtime sched-period sched-deadline", "", 0, "", 1,
     0},
    {"timeout", "", "ks", "v", "kill-after signal", "preserve-status foreground verbose", 0, "", 1,
     0},
    {"stdbuf", "", "ioe", "", "input output error", "", 0, "", 0, 0},
    {"unbuffer", "", "", "p", "", "", 0, "", 0, 0},
    {"caffeinate", "", "tw", "dimsu", "", "", 0, "", 0, 0},
    {"time", "", "fo", "apqv", "format output", "append portability verbose quiet", 0, "", 0, 0},
    {"strace", "", "eopsuEaIOPSXb", "fFcCdDhiknqrtTvVxyYwzZ", "output trace signal", "", 0, "", 0,
     0},
    {"ltrace", "", "eopsunaADFxw", "bcCfhiLrStTV", "output", "", 0, "", 0, 0},
    {"valgrind", "", "", "qvh", "", "", 0, "", 0, 0},
    {"gdb", "", "xpcdsei", "qnw", "pid", "args batch quiet nx", 0, "", 0, 0},
    {"nsenter", "", "tSG", "muinpUCTrwFZa", "target setuid setgid", "", 0, "", 0, 0},
    {"unshare", "", "SGRw", "muinpUCTfrcl",
     "setuid setgid root wd propagation setgroups map-user map-group map-users map-groups", "", 0,
     "", 0, 0},
    {"runuser", "", "ugGsw", "lmpfP", "user group supp-group shell", "login", 'c',
     "command session-command", 0, 0},
    {"su", "", "sgGw", "lmpfP", "shell group supp-group whitelist-environment", "login", 'c',
     "command session-command", 0, kNoCommand},  // its operand is a user, not a command
    {"sg", "", "", "", "", "", 'c', "", 1, kJoinShell},
    {"script", "", "EIOBTm", "aefqh", "echo log-in log-out log-io log-timing logging-format",
     "append return flush force quiet", 'c', "command", 0, kNoCommand},
    {"flock", "", "wE", "sxunoFv", "timeout conflict-exit-code", "", 'c', "command", 1, 0},
    {"chroot", "", "", "", "userspec groups", "skip-chdir", 0, "", 1, 0},
    {"watch", "", "nq", "bcdeghtwpx", "interval", "", 0, "", 0, kJoinShell},
    {"ssh", "", "bcDEeFIiJLlmOopQRSWwB", "46AaCfGgKkMNnqsTtVvXxYy", "", "", 0, "", 1, kJoinShell},
    {"npx", "", "p", "yq", "package", "yes no quiet", 'c', "call", 0, kPackageName},
    {"bunx", "", "p", "", "package", "bun", 0, "", 0, kPackageName},
    {"pnpx", "", "", "", "package", "", 'c', "", 0, kPackageName},
    {"uvx", "", "pw", "q", "from with python index index-url", "", 0, "", 0, kPackageName},
    {"dotenv", "", "ecfv", "", "", "", 0, "", 0, 0},
    {"tini", "", "sep", "vwgl", "", "", 0, "", 0, 0},
    {"dumb-init", "", "r", "cv", "rewrite", "single-child verbose", 0, "", 0, 0},
    {"catchsegv", "", "", "", "", "", 0, "", 0, 0},
    {"proxychains", "", "f", "q", "", "", 0, "", 0, 0},
    {"proxychains4", "", "f", "q", "", "", 0, "", 0, 0},
    {"torsocks", "", "uapP", "idq", "", "", 0, "", 0, 0},
    {"firejail", "", "", "", "", "", 0, "", 0, 0},
    {"xvfb-run", "", "nsfpe", "al", "server-num server-args auth-file error-file", "", 0, "", 0, 0},
    {"faketime", "", "", "fm", "", "", 0, "", 1, 0},
    {"eatmydata", "", "", "", "", "", 0, "", 0, 0},
    {"nocache", "", "n", "", "", "", 0, "", 0, 0},
    {"systemd-run", "", "puEM", "GPqrtSd",
     "property unit setenv machine description slice uid gid working-directory on-calendar",
     "user system scope pty pipe wait collect quiet", 0, "", 0, 0},
    {"systemd-inhibit", "", "", "", "what who why mode", "", 0, "", 0, 0},
    {"dbus-run-session", "", "", "", "config-file dbus-daemon", "", 0, "", 0, 0},
    {"entr", "", "", "acdnprsz", "", "", 0, "", 0, 0},
    {"chronic", "", "", "evb", "", "", 0, "", 0, 0},
    {"nq", "", "", "cq", "", "", 0, "", 0, 0},
    {"tsp", "", "LDN", "nfgB", "", "", 0, "", 0, 0},
    {"cpulimit", "", "lpe", "zikv", "limit pid exe", "", 0, "", 0, 0},
    {"trickle", "", "udwtlsn", "sv", "", "", 0, "", 0, 0},
    {"busybox", "", "", "", "", "", 0, "", 0, 0},
    {"toybox", "", "", "", "", "", 0, "", 0, 0},
    {"npm", "exec x", "pw", "cy", "package workspace", "yes", 'c', "call", 0, kPackageName},
    {"pnpm", "exec dlx", "", "c", "package filter", "", 'c', "", 0, kPackageName},
    {"yarn", "exec dlx", "p", "q", "package", "quiet", 0, "", 0, kPackageName},
    {"bun", "x", "p", "", "package", "bun", 0, "", 0, kPackageName},
    {"uv", "run", "pw", "q", "with python from project directory package extra group env-file index",
     "", 0, "", 0, 0},
    {"poetry", "run", "CP", "nqv", "directory project", "", 0, "", 0, 0},
    {"pipenv", "run", "", "", "", "", 0, "", 0, 0},
    {"pdm", "run", "p", "", "project", "", 0, "", 0, 0},
    {"hatch", "run", "e", "", "env", "", 0, "", 0, 0},
    {"rye", "run", "", "", "", "", 0, "", 0, 0},
    {"bundle", "exec", "", "", "gemfile", "", 0, "", 0, 0},
    {"bundler", "exec", "", "", "gemfile", "", 0, "", 0, 0},
    {"pipx", "run", "", "", "spec python index-url pip-args", "", 0, "", 0, kPackageName},
    {"conda", "run", "np", "", "name prefix cwd", "live-stream no-capture-output", 0, "", 0, 0},
    {"mamba", "run", "np", "", "name prefix cwd", "live-stream", 0, "", 0, 0},
    {"micromamba", "run", "np", "", "name prefix cwd", "", 0, "", 0, 0},
    {"mise", "exec x", "C", "", "cd jobs", "", 'c', "command", 0, kPackageName},
    {"rtx", "exec x", "C", "", "cd", "", 'c', "command", 0, kPackageName},
    {"asdf", "exec", "", "", "", "", 0, "", 0, 0},
    {"rbenv", "exec", "", "", "", "", 0, "", 0, 0},
    {"pyenv", "exec", "", "", "", "", 0, "", 0, 0},
    {"nodenv", "exec", "", "", "", "", 0, "", 0, 0},
    {"direnv", "exec", "", "", "", "", 0, "", 1, 0},
    {"nix-shell", "", "pIA", "", "run command packages arg argstr attr", "pure", 0, "run command",
     0, kNoCommand},
    {"nix", "develop shell", "", "ci", "command", "", 0, "", 0, 0},
    {"op", "run", "", "", "env-file", "no-masking", 0, "", 0, 0},
    {"doppler", "run", "pc", "", "project config", "", 0, "command", 0, 0},
    {"infisical", "run", "", "", "env path projectId", "", 0, "command", 0, 0},
    {"dotenvx", "run", "f", "", "env-file env", "", 0, "", 0, 0},
    {"aws-vault", "exec", "", "dn", "duration region", "no-session", 0, "", 1, 0},
    {"with-contenv", "", "", "", "", "", 0, "", 0, 0},
    {"tmux", "new new-session new-window neww split-window splitw respawn-pane respawnp "
             "respawn-window respawnw send-keys send run-shell run display-popup popup",
     "tsncxyeFlfTL", "dPhvkbrEaRZ", "", "", 0, "", 0, kJoinShell},
    {"screen", "", "SceptThsl", "dmDRrUaAiLOqx", "", "", 0, "", 0, 0},
    {"setpriv", "", "", "d",
     "reuid regid groups inh-caps ambient-caps bounding-set securebits pdeathsig selinux-label "
     "apparmor-profile landlock-access landlock-rule seccomp-filter ptracer",
     "dump nnp no-new-privs init-groups keep-groups clear-groups reset-env", 0, "", 0, 0},
    {"prlimit", "", "po", "cdefilmnqrstuvxy", "pid output",
     "core data fsize memlock rss nofile stack cpu nproc as locks sigpending msgqueue nice "
     "rtprio rttime noheadings raw verbose",
     0, "", 0, 0},
    {"fakeroot", "", "lfsib", "uhv", "lib faked", "unknown-is-real", 0, "", 0, 0},
    {"numactl", "", "imNCpPw", "laHsSb",
     "interleave membind cpunodebind physcpubind preferred preferred-many weighted-interleave",
     "localalloc all show hardware balancing", 0, "", 0, 0},
    {"perf", "stat record trace", "eopCGtIrcFmuxDj", "agvqsnAdPRBiNT",
     "event pid tid output cpu cgroup repeat delay", "all-cpus verbose", 0, "", 0, 0},
    {"cgexec", "", "g", "", "", "sticky", 0, "", 0, 0},
    {"runcon", "", "urtl", "c", "user role type range", "compute", 0, "", 0, 0},
    {"setarch", "", "", "vRFZLXBIST3", "", "", 0, "", 1, 0},
    {"linux32", "", "", "vRFZLXBIST3", "", "", 0, "", 0, 0},
    {"linux64", "", "", "vRFZLXBIST3", "", "", 0, "", 0, 0},
    {"ssh-agent", "", "aEPt", "cDdks", "", "", 0, "", 0, 0},
    {"dbus-launch", "", "", "", "config-file", "sh-syntax csh-syntax auto-syntax exit-with-session",
     0, "", 0, 0},
    {"setuidgid", "", "", "", "", "", 0, "", 1, 0},
    {"envuidgid", "", "", "", "", "", 0, "", 1, 0},
    {"envdir", "", "", "", "", "", 0, "", 1, 0},
    {"softlimit", "", "mdsalfoprct", "", "", "", 0, "", 0, 0},
    {"chpst", "", "uUenlLmdofcprt", "vP012", "", "", 0, "", 0, 0},
    // The dynamic loader runs any program given to it (ld.so /usr/bin/aws).
    {"ld.so", "", "", "", "library-path preload argv0 audit glibc-hwcaps-prepend glibc-hwcaps-mask",
     "inhibit-cache inhibit-rpath list verify list-tunables list-diagnostics", 0, "", 0, 0},
    {"ld-linux-x86-64.so.2", "", "", "",
     "library-path preload argv0 audit glibc-hwcaps-prepend glibc-hwcaps-mask",
     "inhibit-cache inhibit-rpath list verify list-tunables list-diagnostics", 0, "", 0, 0},
    {"ld-linux-aarch64.so.1", "", "", "",
     "library-path preload argv0 audit glibc-hwcaps-prepend glibc-hwcaps-mask",
     "inhibit-cache inhibit-rpath list verify list-tunables list-diagnostics", 0, "", 0, 0},
    {"ld-linux.so.2", "", "", "", "library-path preload argv0 audit",
     "inhibit-cache inhibit-rpath list verify", 0, "", 0, 0},
    {"ld-musl-x86_64.so.1", "", "", "", "library-path preload argv0", "list", 0, "", 0, 0},
    {"ld-musl-aarch64.so.1", "", "", "", "library-path preload argv0", "list", 0, "", 0, 0},
    // bubblewrap: NAME:2 marks options that take two arguments.
    {"bwrap", "", "", "",
     "bind:2 bind-try:2 dev-bind:2 dev-bind-try:2 ro-bind:2 ro-bind-try:2 symlink:2 setenv:2 "
     "file:2 bind-data:2 ro-bind-data:2 chmod:2 overlay:3 proc dev tmpfs dir uid gid hostname "
     "chdir unsetenv lock-file sync-fd info-fd json-status-fd block-fd userns-block-fd seccomp "
     "add-seccomp-fd exec-label file-label cap-add cap-drop args userns userns2 pidns argv0 "
     "remount-ro mqueue overlay-src tmp-overlay ro-overlay perms size",
     "unshare-all unshare-user unshare-user-try unshare-ipc unshare-pid unshare-net unshare-uts "
     "unshare-cgroup unshare-cgroup-try share-net die-with-parent as-pid-1 new-session clearenv "
     "disable-userns assert-userns-disabled level-prefix",
     0, "", 0, 0},
};

// How many arguments a long option in `list` takes: 0 when it is not there,
// else 1, or N when written NAME:N. Lists without counts (subcommands,
// flags) are asked only whether a word is in them.
int LongArity(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    std::size_t space = list.find(' ');
    std::string_view entry = list.substr(0, space);
    std::size_t colon = entry.find(':');
    if (entry.substr(0, colon) == name) {
      return colon == std::string_view::npos ? 1 : entry[colon + 1] - '0';
    }
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
  }
  return 0;
}

bool InList(std::string_view list, std::string_view word) { return LongArity(list, word) > 0; }


}  // namespace

std::vector<std::string_view> WrapperNames() {
  std::vector<std::string_view> names;
  for (const WrapperSpec& spec : kWrappers) names.push_back(spec.name);
  return names;
}

const WrapperSpec* FindWrapper(std::string_view name, std::span<const Arg> args,
                               std::size_t* first) {
  static constexpr WrapperSpec kWithAnything = {"with-*", "", "", "", "", "", 0, "", 0, 0};
  // The first spec of each name, as a scan of kWrappers would find it.
  static const auto* specs = [] {
    auto* table = new NameTable<const WrapperSpec*>();
    for (const WrapperSpec& spec : kWrappers) table->Add(spec.name, &spec);
    return table;
  }();
  if (const WrapperSpec* const* found = specs->Find(name)) {
    const WrapperSpec& spec = **found;
    if (spec.subcommands.empty()) {
      *first = 1;
      return &spec;
    }
    // The subcommand may follow global options (npm --silent exec ...).
    for (std::size_t i = 1; i < args.size() && i < 4; ++i) {
      if (!args[i].literal()) return nullptr;
      if (InList(spec.subcommands, args[i].text)) {
        *first = i + 1;
        return &spec;
      }
      if (!args[i].option()) return nullptr;
    }
    return nullptr;
  }
  if (name.starts_with("with-") && name.size() > 5) {
    *first = 1;
    return &kWithAnything;
  }
  return nullptr;
}

WrapperPlan PlanWrapper(const WrapperSpec& spec, std::span<const Arg> args, std::size_t first) {
  WrapperPlan plan;
  const std::size_t n = args.size();
  // Shell-code options are read wherever they are: getopt permutes them.
  if (spec.shell_short || !spec.shell_long.empty()) {
    for (std::size_t i = first; i < n; ++i) {
      std::string_view t = args[i].text;
      if (t == "--") break;
      if (t.starts_with("--") && !spec.shell_long.empty()) {
        std::size_t eq = t.find('=');
        if (!InList(spec.shell_long, t.substr(2, eq == std::string_view::npos ? eq : eq - 2))) {
          continue;
        }
        if (eq != std::string_view::npos) {
          plan.shell_code.emplace_back(i, eq + 1);
        } else if (i + 1 < n) {
          plan.shell_code.emplace_back(i + 1, 0);
        }
      } else if (spec.shell_short && t.size() > 1 && t[0] == '-' && t[1] != '-') {
        std::size_t at = t.find(spec.shell_short, 1);
        if (at == std::string_view::npos) continue;
        if (at + 1 < t.size()) {
          plan.shell_code.emplace_back(i, at + 1);
        } else if (i + 1 < n) {
          plan.shell_code.emplace_back(i + 1, 0);
        }
      }
    }
  }
  if (spec.mode & kNoCommand) return plan;

  // Every reading of the options, as (index, operands left, options ended).
  const std::size_t width = static_cast<std::size_t>(spec.positionals) + 1;
  std::vector<bool> seen((n + 3) * width * 2, false);
  struct State {
    std::size_t i;
    int left;
    bool done;
  };
  std::vector<State> work = {{first, spec.positionals, false}};
  auto push = [&](std::size_t i, int left, bool done) { work.push_back({i, left, done}); };
  while (!work.empty()) {
    State s = work.back();
    work.pop_back();
    if (s.i > n) continue;
    std::size_t key = (s.i * width + static_cast<std::size_t>(s.left)) * 2 + (s.done ? 1 : 0);
    if (seen[key]) continue;
    seen[key] = true;
    if (s.i == n) {
      plan.missing = true;
      continue;
    }
    const Arg& w = args[s.i];
    std::string_view t = w.text;
    if (!s.done && w.literal() && t == "--") {
      push(s.i + 1, s.left, true);
      continue;
    }
    if (!s.done && w.option()) {
      if (t.starts_with("--")) {
        std::size_t eq = t.find('=');
        std::string_view name = t.substr(2, eq == std::string_view::npos ? eq : eq - 2);
        if (eq != std::string_view::npos || InList(spec.long_flags, name)) {
          push(s.i + 1, s.left, false);
        } else if (int arity = LongArity(spec.long_args, name); arity > 0) {
          push(s.i + 1 + static_cast<std::size_t>(arity), s.left, false);
        } else if (InList(spec.shell_long, name)) {
          push(s.i + 2, s.left, false);
        } else {
          push(s.i + 1, s.left, false);
          push(s.i + 2, s.left, false);
        }
        continue;
      }
      bool ended = false;
      for (std::size_t k = 1; k < t.size() && !ended; ++k) {
        char c = t[k];
        bool takes = spec.short_args.find(c) != std::string_view::npos || c == spec.shell_short;
        bool known = takes || spec.short_flags.find(c) != std::string_view::npos;
        if (takes || !known) push(k + 1 < t.size() ? s.i + 1 : s.i + 2, s.left, false);
        if (takes) ended = true;
      }
      if (!ended) push(s.i + 1, s.left, false);
      continue;
    }
    if ((spec.mode & kAssignments) && (w.flags & shell::kAssignment)) {
      push(s.i + 1, s.left, s.done);
      continue;
    }
    if (s.left > 0) {
      push(s.i + 1, s.left - 1, s.done);
      continue;
    }
    plan.starts.push_back(s.i);
  }
  std::sort(plan.starts.begin(), plan.starts.end());
  plan.starts.erase(std::unique(plan.starts.begin(), plan.starts.end()), plan.starts.end());
  return plan;
}

std::size_t SkipGitGlobalOptions(std::span<const Arg> args, std::vector<std::size_t>* configs,
                                 std::vector<std::size_t>* unknown) {
  static constexpr std::string_view kWithArgument =
      "git-dir work-tree namespace super-prefix config-env attr-source exec-path-arg";
  std::size_t i = 1;
  while (i < args.size()) {
    std::string_view t = args[i].text;
    if (!args[i].option()) return i;
    if (!args[i].literal()) unknown->push_back(i);
    if (t == "-C" || t == "-c") {
      if (t == "-c" && i + 1 < args.size()) configs->push_back(i + 1);
      i += 2;
      continue;
    }
    if (t.starts_with("-c") && !t.starts_with("--")) {
      i += 1;
      continue;
    }
    if (t.starts_with("--")) {
      std::string_view name = t.substr(2);
      if (name.find('=') == std::string_view::npos && InList(kWithArgument, name)) {
        i += 2;
        continue;
      }
    }
    ++i;
  }
  return i;
}

}  // namespace corral::policy
