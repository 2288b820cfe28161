// Time seam: the loops read the time through this, so tests can move it.
#pragma once

#include <chrono>

namespace corral::netfilter {

using TimePoint = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace corral::netfilter
