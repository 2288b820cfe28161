// The heartbeat source, the real source set, and the combined verdict.
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <filesystem>
#include <fstream>

#include "policy/presence/presence_sources.h"

namespace corral::policy {
namespace {

using std::chrono::minutes;

class HeartbeatSource : public PresenceSource {
 public:
  HeartbeatSource(std::string path, minutes idle, Clock now)
      : path_(std::move(path)), idle_(idle), now_(std::move(now)) {}

  PresenceReport Check() const override {
    PresenceReport report{"heartbeat", false, ""};
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) {
      report.detail = path_ + " not touched yet (corral presence ping)";
      return report;
    }
    auto touched = std::chrono::system_clock::from_time_t(st.st_mtim.tv_sec);
    auto age = std::chrono::duration_cast<std::chrono::seconds>(now_() - touched);
    if (age.count() < 0) age = std::chrono::seconds(0);
    report.watching = age < idle_;
    report.detail = "touched " + DescribeDuration(age) + " ago (" + path_ + ")";
    return report;
  }

 private:
  std::string path_;
  minutes idle_;
  Clock now_;
};

}  // namespace

std::string HeartbeatPath(const PresencePolicy& policy) {
  return policy.heartbeat_file.empty() ? StateDir() + "/heartbeat" : policy.heartbeat_file;
}

Result<void> TouchHeartbeat(const PresencePolicy& policy) {
  std::string path = HeartbeatPath(policy);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return Error("cannot create the folder for " + path + ": " + ec.message());
  { std::ofstream touch(path, std::ios::app); }
  if (::utime(path.c_str(), nullptr) != 0) return Error::FromErrno("cannot touch " + path);
  return Ok();
}

std::unique_ptr<PresenceSource> MakeHeartbeatSource(std::string path, minutes idle, Clock now) {
  return std::make_unique<HeartbeatSource>(std::move(path), idle, std::move(now));
}

Result<std::vector<std::unique_ptr<PresenceSource>>> MakePresenceSources(
    const PresencePolicy& policy) {
  std::vector<std::unique_ptr<PresenceSource>> sources;
  minutes idle(policy.idle_minutes);
  Clock now = [] { return std::chrono::system_clock::now(); };
  uid_t uid = ::getuid();
  for (const std::string& name : policy.sources) {
    if (name == "tty") {
      sources.push_back(MakeTtySource([uid] { return ListUserTerminals(uid); }, idle, now));
    } else if (name == "logind") {
      sources.push_back(MakeLogindSource(RealCommandRunner(std::chrono::milliseconds(2000)), uid));
    } else if (name == "heartbeat") {
      sources.push_back(MakeHeartbeatSource(HeartbeatPath(policy), idle, now));
    } else {
      return Error("presence.sources: unknown source '" + name +
                   "' (known: tty, logind, heartbeat)");
    }
  }
  return sources;
}

PresenceVerdict CheckPresence(const std::vector<std::unique_ptr<PresenceSource>>& sources) {
  PresenceVerdict verdict;
  for (const auto& source : sources) {
    verdict.reports.push_back(source->Check());
    verdict.watching = verdict.watching || verdict.reports.back().watching;
  }
  return verdict;
}

}  // namespace corral::policy
