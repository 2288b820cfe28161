#pragma once

// One thin wrapper over spdlog. Only main() chooses the sink and level
// (InitLogging); everything else calls corral::log::Info(...) and friends.
#include <spdlog/spdlog.h>

#include <string_view>

namespace corral::log {

// Reads CORRAL_LOG (trace|debug|info|warn|error|off); defaults to `warn`
// so the CLI prints only what a user needs. Logs go to stderr.
void InitLogging(std::string_view default_level = "warn");

using spdlog::debug;
using spdlog::error;
using spdlog::info;
using spdlog::should_log;
using spdlog::trace;
using spdlog::warn;

}  // namespace corral::log
