// The dangerous-pattern rule set: commands worth a warning whatever the deny
// list says (privilege escalation, power state, disk formatting, ...).
// Private to policy/matcher/.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "policy/matcher/command_word.h"
#include "policy/matcher/matcher.h"

namespace corral::policy {

// Categories, most severe first; MatchResult reports the most severe found.
inline constexpr std::string_view kRawDiskWrite = "raw-disk-write";
inline constexpr std::string_view kDiskFormat = "disk-format";
inline constexpr std::string_view kKillInit = "kill-init";
inline constexpr std::string_view kPowerState = "power-state";
inline constexpr std::string_view kSecureDelete = "secure-delete";
inline constexpr std::string_view kRecursiveDelete = "recursive-delete";
inline constexpr std::string_view kRecursivePermission = "recursive-permission";
inline constexpr std::string_view kPrivilegeEscalation = "privilege-escalation";
inline constexpr std::string_view kPipeToShell = "pipe-to-shell";
inline constexpr std::string_view kGitHistoryRewrite = "git-history-rewrite";
inline constexpr std::string_view kShellString = "shell-string";

// Lower is more severe.
int DangerRank(std::string_view category);

// A command (args[0] is the program's basename `name`; for git the global
// options are already removed).
std::optional<DangerousMatch> CheckDangerousCommand(std::string_view name,
                                                    std::span<const Arg> args);

// An output redirection to `target` (> /dev/sda).
std::optional<DangerousMatch> CheckDangerousRedirect(std::string_view target);

// Downloaders whose output piped into a shell is "pipe-to-shell".
bool IsDownloader(std::string_view name);

}  // namespace corral::policy
