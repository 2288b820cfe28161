#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

namespace corral::log {
namespace {

spdlog::level::level_enum Of(Level level) {
  switch (level) {
    case Level::kTrace: return spdlog::level::trace;
    case Level::kDebug: return spdlog::level::debug;
    case Level::kInfo: return spdlog::level::info;
    case Level::kWarn: return spdlog::level::warn;
    case Level::kError: return spdlog::level::err;
    case Level::kOff: break;
  }
  return spdlog::level::off;
}

}  // namespace

void InitLogging(std::string_view default_level) {
  auto logger = spdlog::stderr_color_mt("corral");
  const char* env = std::getenv("CORRAL_LOG");
  std::string level = env && *env ? env : std::string(default_level);
  logger->set_level(spdlog::level::from_str(level));
  // Debugging wants to see when each thing happened; a user's warning does not.
  logger->set_pattern(logger->should_log(spdlog::level::debug) ? "corral: %H:%M:%S.%e %^%l%$: %v"
                                                                : "corral: %^%l%$: %v");
  spdlog::set_default_logger(logger);
}

bool Enabled(Level level) { return spdlog::should_log(Of(level)); }

void Write(Level level, std::string_view message) {
  spdlog::log(Of(level), "{}", message);
}

}  // namespace corral::log
