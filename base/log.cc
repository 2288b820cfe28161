#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <string>

namespace corral::log {

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

}  // namespace corral::log
