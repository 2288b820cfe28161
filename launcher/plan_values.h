// Small pure pieces of the plan: sizes, CPU shares, names, environment.
// Private to launcher/.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/base.h"
#include "launcher/launcher.h"

namespace corral::launcher {

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

inline constexpr const char* kCaInBox = "/etc/ssl/certs/ca-certificates.crt";
inline constexpr const char* kBoxPath =
    "/run/corral/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

}  // namespace corral::launcher
