#pragma once

// corral's log, on stderr. Only main() chooses the level (InitLogging);
// everything else calls corral::log::warn(message) and friends with the
// message already written. The header holds no logging library: spdlog is
// used in log.cc alone, so the files that log (and the static shim, which
// includes this through policy/matcher/matcher.h) do not compile it.
#include <string_view>

namespace corral::log {

enum class Level { kTrace, kDebug, kInfo, kWarn, kError, kOff };

// Reads CORRAL_LOG (trace|debug|info|warn|error|off); defaults to `warn`
// so the CLI prints only what a user needs.
void InitLogging(std::string_view default_level = "warn");

// Whether a message at `level` is printed: a costly message is built only then.
bool Enabled(Level level);
void Write(Level level, std::string_view message);

inline void trace(std::string_view message) { Write(Level::kTrace, message); }
inline void debug(std::string_view message) { Write(Level::kDebug, message); }
inline void info(std::string_view message) { Write(Level::kInfo, message); }
inline void warn(std::string_view message) { Write(Level::kWarn, message); }
inline void error(std::string_view message) { Write(Level::kError, message); }

}  // namespace corral::log
