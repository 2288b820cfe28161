#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>

namespace corral {

// A time as the logs and the session record write it, in UTC with
// milliseconds: 2026-12-01T03:12:00.123Z. `epoch_ms` < 0 means now.
inline std::string UtcTime(std::int64_t epoch_ms = -1) {
  if (epoch_ms < 0) {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    epoch_ms = static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
  }
  std::time_t seconds = static_cast<std::time_t>(epoch_ms / 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(epoch_ms % 1000));
  return text;
}

}  // namespace corral
