#include "policy/matcher/dangerous.h"

#include <algorithm>
#include <array>
#include <string>

#include "policy/matcher/command_util.h"
#include "policy/matcher/name_hash.h"

namespace corral::policy {
namespace {

DangerousMatch Make(std::string_view category, std::string description) {
  return DangerousMatch{std::string(category), std::move(description)};
}

// A short-option bundle (-rf) holding one of `letters`, or a long option.
bool HasOption(std::span<const Arg> args, std::string_view letters, std::string_view long_name) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "--") break;
    if (!long_name.empty() && t == long_name) return true;
    if (t.size() > 1 && t[0] == '-' && t[1] != '-' &&
        t.find_first_of(letters, 1) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

bool IsBlockDevice(std::string_view path) {
  if (!path.starts_with("/dev/")) return false;
  std::string_view dev = path.substr(5);
  for (std::string_view prefix :
       {"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "mapper/", "md", "dm-", "loop", "rdisk"}) {
    if (dev.starts_with(prefix)) return true;
  }
  return false;
}

// chmod modes that set the setuid or setgid bit: u+s, g+s, +s, 4755, 2755.
bool SetsSpecialBit(std::string_view mode) {
  if (mode.find("+s") != std::string_view::npos || mode.find("=s") != std::string_view::npos) {
    return true;
  }
  if (mode.size() == 4 && std::all_of(mode.begin(), mode.end(),
                                      [](char c) { return c >= '0' && c <= '7'; })) {
    return mode[0] == '4' || mode[0] == '2' || mode[0] == '6';
  }
  return false;
}

std::optional<DangerousMatch> CheckKill(std::span<const Arg> args) {
  bool options_done = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (!options_done && t == "--") {
      options_done = true;
      continue;
    }
    if (!options_done && (t == "-s" || t == "-n")) {
      ++i;
      continue;
    }
    if (!options_done && (t == "-l" || t == "-L")) return std::nullopt;
    if (t == "1") return Make(kKillInit, "signals process 1 (init)");
    if (t == "-1" && (options_done || i > 1)) {
      return Make(kKillInit, "signals every process (pid -1)");
    }
    if (!options_done && t.size() > 1 && t[0] == '-') continue;  // -9, -KILL, -SIGTERM
  }
  return std::nullopt;
}

// git checkout . / git restore . (also -- . and :/): the working tree's
// uncommitted changes are thrown away. git restore --staged alone only
// unstages, so it is left out.
bool DiscardsWholeTree(std::string_view sub, std::span<const Arg> args) {
  bool whole = false;
  bool staged_only = false;
  bool worktree = false;
  for (std::size_t i = 2; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (OneOf(t, {".", "./", ":/", "*", ":/*"})) whole = true;
    if (t == "--staged" || t == "-S") staged_only = true;
    if (t == "--worktree" || t == "-W") worktree = true;
  }
  if (sub == "restore" && staged_only && !worktree) return false;
  return whole;
}

std::optional<DangerousMatch> CheckGit(std::span<const Arg> args) {
  if (args.size() < 2) return std::nullopt;
  std::string_view sub = args[1].text;
  auto has = [&](std::string_view word) {
    return std::any_of(args.begin() + 2, args.end(), [&](const Arg& a) { return a.text == word; });
  };
  if (sub == "push") {
    for (std::size_t i = 2; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      // --force-with-lease is the safer variant: it refuses to overwrite
      // work it has not seen, so it is not flagged.
      if (t == "--force" || t == "--mirror" || (t.size() > 1 && t[0] == '+') ||
          (t.size() > 1 && t[0] == '-' && t[1] != '-' && t.find('f') != std::string_view::npos)) {
        return Make(kGitHistoryRewrite, "force push rewrites the remote's history");
      }
    }
    return std::nullopt;
  }
  if (sub == "reset" && has("--hard")) return Make(kGitHistoryRewrite, "git reset --hard");
  if (sub == "branch" && (HasOption(args.subspan(1), "D", "") ||
                          (HasOption(args.subspan(1), "d", "--delete") &&
                           HasOption(args.subspan(1), "f", "--force")))) {
    return Make(kGitHistoryRewrite, "git branch -D deletes a branch even if it is not merged");
  }
  if (OneOf(sub, {"checkout", "restore"}) && DiscardsWholeTree(sub, args)) {
    return Make(kGitHistoryRewrite,
                "git " + std::string(sub) + " . discards every uncommitted change");
  }
  if (sub == "rebase") return Make(kGitHistoryRewrite, "git rebase rewrites commits");
  if (sub == "filter-branch" || sub == "filter-repo") {
    return Make(kGitHistoryRewrite, "rewrites the repository's history");
  }
  if (sub == "commit" && has("--amend")) return Make(kGitHistoryRewrite, "git commit --amend");
  if (sub == "clean" && HasOption(args.subspan(1), "f", "--force")) {
    return Make(kGitHistoryRewrite, "git clean -f deletes untracked files");
  }
  if (sub == "reflog" && has("expire")) return Make(kGitHistoryRewrite, "git reflog expire");
  if (sub == "update-ref" && has("-d")) return Make(kGitHistoryRewrite, "git update-ref -d");
  return std::nullopt;
}

}  // namespace

int DangerRank(std::string_view category) {
  static constexpr std::array<std::string_view, 11> kOrder = {
      kRawDiskWrite, kDiskFormat, kKillInit, kPowerState, kSecureDelete, kRecursiveDelete,
      kRecursivePermission, kPrivilegeEscalation, kPipeToShell, kGitHistoryRewrite, kShellString};
  auto it = std::find(kOrder.begin(), kOrder.end(), category);
  return static_cast<int>(it - kOrder.begin());
}

bool IsDownloader(std::string_view name) {
  return OneOf(name, {"curl", "wget", "fetch", "http", "https", "aria2c", "lwp-request", "GET",
                      "xh", "curlie", "wget2"});
}

std::optional<DangerousMatch> CheckDangerousCommand(std::string_view name,
                                                    std::span<const Arg> args) {
  // Most commands are none of these: one lookup decides.
  static const auto* kNames = [] {
    auto* names = new NameTable<bool>();
    for (std::string_view n :
         {"sudo", "su", "doas", "pkexec", "runuser", "sudoedit", "run0", "chmod", "chown",
          "chgrp", "shutdown", "reboot", "halt", "poweroff", "systemctl", "loginctl", "init",
          "telinit", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs",
          "mkdosfs", "mkntfs", "mformat", "blkdiscard", "dd", "shred", "srm", "wipe", "scrub", "rm",
          "find", "kill", "pkill", "killall", "git", "diskutil"}) {
      names->Add(n, true);
    }
    return names;
  }();
  if (kNames->Find(name) == nullptr && !name.starts_with("mkfs") && !name.starts_with("mke2fs")) {
    return std::nullopt;
  }
  // The most common of these by far, and none of the names below.
  if (name == "git") return CheckGit(args);
  if (OneOf(name, {"sudo", "su", "doas", "pkexec", "runuser", "sudoedit", "run0"})) {
    return Make(kPrivilegeEscalation, std::string(name) + " runs commands as another user");
  }
  if (name == "chmod") {
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (SetsSpecialBit(args[i].text)) {
        return Make(kPrivilegeEscalation, "chmod sets a setuid/setgid bit");
      }
    }
    if (HasOption(args, "R", "--recursive")) {
      return Make(kRecursivePermission, "chmod -R changes permissions recursively");
    }
    return std::nullopt;
  }
  if (OneOf(name, {"chown", "chgrp"}) && HasOption(args, "R", "--recursive")) {
    return Make(kRecursivePermission, std::string(name) + " -R changes owners recursively");
  }
  if (OneOf(name, {"shutdown", "reboot", "halt", "poweroff"})) {
    return Make(kPowerState, std::string(name) + " changes the machine's power state");
  }
  if (OneOf(name, {"systemctl", "loginctl"}) && args.size() > 1) {
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (OneOf(args[i].text, {"poweroff", "reboot", "halt", "suspend", "hibernate", "hybrid-sleep",
                               "suspend-then-hibernate", "kexec", "emergency", "rescue"})) {
        return Make(kPowerState, std::string(name) + " " + std::string(args[i].text));
      }
    }
  }
  if (OneOf(name, {"init", "telinit"}) && args.size() > 1 &&
      OneOf(args[1].text, {"0", "6", "1", "s", "S"})) {
    return Make(kPowerState, std::string(name) + " changes the runlevel");
  }
  if (name == "diskutil") {
    for (std::size_t i = 1; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      if (t.starts_with("erase") || t.starts_with("partition") || t.starts_with("reformat") ||
          OneOf(t, {"zeroDisk", "randomDisk", "secureErase", "splitPartition", "mergePartitions"})) {
        return Make(kDiskFormat, "diskutil " + std::string(t) + " formats or partitions a disk");
      }
    }
    return std::nullopt;
  }
  if (name.starts_with("mkfs") || name.starts_with("mke2fs") ||
      OneOf(name, {"mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs",
                   "mkdosfs", "mkntfs", "mformat", "blkdiscard"})) {
    return Make(kDiskFormat, std::string(name) + " formats or partitions a disk");
  }
  if (name == "dd") {
    for (std::size_t i = 1; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      if (t.starts_with("of=") && IsBlockDevice(t.substr(3))) {
        return Make(kRawDiskWrite, "dd writes to a block device");
      }
    }
  }
  if (OneOf(name, {"shred", "srm", "wipe", "scrub"})) {
    return Make(kSecureDelete, std::string(name) + " destroys file contents");
  }
  if (name == "rm" && HasOption(args, "rR", "--recursive")) {
    return Make(kRecursiveDelete, "rm -r deletes recursively");
  }
  if (name == "find") {
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i].text == "-delete") return Make(kRecursiveDelete, "find -delete");
    }
  }
  if (OneOf(name, {"kill"})) return CheckKill(args);
  if (OneOf(name, {"pkill", "killall"}) && args.size() > 1 &&
      OneOf(args.back().text, {"1", "init", "systemd"})) {
    return Make(kKillInit, std::string(name) + " " + std::string(args.back().text));
  }
  return std::nullopt;
}

std::optional<DangerousMatch> CheckDangerousRedirect(std::string_view target) {
  if (IsBlockDevice(target)) return Make(kRawDiskWrite, "writes to a block device");
  return std::nullopt;
}

}  // namespace corral::policy
