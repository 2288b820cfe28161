// The presence sources, each built from its inputs so tests can give fakes.
// Private to policy/presence/.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>

#include "policy/presence/presence.h"

namespace corral::policy {

using TimePoint = std::chrono::system_clock::time_point;
using Clock = std::function<TimePoint()>;

// A terminal of the user's and when it last had input (the device's atime,
// as `w` computes idle time).
struct Terminal {
  std::string device;
  TimePoint last_input;
};
using TerminalLister = std::function<std::vector<Terminal>()>;

// The user's login terminals (utmp) and pseudo-terminals they own (tmux,
// screen, terminal emulators that write no utmp record).
std::vector<Terminal> ListUserTerminals(uid_t uid);

std::unique_ptr<PresenceSource> MakeTtySource(TerminalLister list, std::chrono::minutes idle,
                                              Clock now);

// Runs a program and returns its stdout, bounded in time.
using CommandRunner = std::function<Result<std::string>(const std::vector<std::string>& argv)>;
CommandRunner RealCommandRunner(std::chrono::milliseconds timeout);

// Graphical sessions of the user, through loginctl: watching when one is
// active, unlocked and not idle.
std::unique_ptr<PresenceSource> MakeLogindSource(CommandRunner run, uid_t uid);

std::unique_ptr<PresenceSource> MakeHeartbeatSource(std::string path, std::chrono::minutes idle,
                                                    Clock now);

// "3m20s" for a duration, for reports.
std::string DescribeDuration(std::chrono::seconds d);

}  // namespace corral::policy
