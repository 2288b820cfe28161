// Terminal idle time: the last input on any of the user's terminals.
#include <dirent.h>
#include <sys/stat.h>
#include <utmpx.h>

#include <cstring>
#include <set>

#include "policy/presence/presence_sources.h"

namespace corral::policy {
namespace {

std::optional<TimePoint> LastInput(const std::string& device, uid_t uid, bool must_own) {
  struct stat st {};
  if (::stat(device.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return std::nullopt;
  if (must_own && st.st_uid != uid) return std::nullopt;
  return std::chrono::system_clock::from_time_t(st.st_atim.tv_sec);
}

class TtySource : public PresenceSource {
 public:
  TtySource(TerminalLister list, std::chrono::minutes idle, Clock now)
      : list_(std::move(list)), idle_(idle), now_(std::move(now)) {}

  PresenceReport Check() const override {
    PresenceReport report{"tty", false, ""};
    std::vector<Terminal> terminals = list_();
    if (terminals.empty()) {
      report.detail = "no terminals of yours";
      return report;
    }
    const Terminal* freshest = &terminals.front();
    for (const Terminal& t : terminals) {
      if (t.last_input > freshest->last_input) freshest = &t;
    }
    auto idle = std::chrono::duration_cast<std::chrono::seconds>(now_() - freshest->last_input);
    if (idle.count() < 0) idle = std::chrono::seconds(0);
    report.watching = idle < idle_;
    report.detail = "last input " + DescribeDuration(idle) + " ago on " + freshest->device + " (" +
                    std::to_string(terminals.size()) + " terminal" +
                    (terminals.size() == 1 ? "" : "s") + ")";
    return report;
  }

 private:
  TerminalLister list_;
  std::chrono::minutes idle_;
  Clock now_;
};

}  // namespace

std::vector<Terminal> ListUserTerminals(uid_t uid) {
  std::set<std::string> devices;
  std::vector<Terminal> terminals;
  std::string user;
  if (const char* name = ::getenv("USER")) user = name;

  ::setutxent();
  while (const utmpx* entry = ::getutxent()) {
    if (entry->ut_type != USER_PROCESS) continue;
    std::string line(entry->ut_line, strnlen(entry->ut_line, sizeof entry->ut_line));
    if (line.empty()) continue;
    std::string device = "/dev/" + line;
    // utmp names the user; the device's owner is the reliable check.
    if (auto last = LastInput(device, uid, true); last && devices.insert(device).second) {
      terminals.push_back({device, *last});
    }
  }
  ::endutxent();

  if (DIR* dir = ::opendir("/dev/pts")) {
    while (dirent* e = ::readdir(dir)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::string device = std::string("/dev/pts/") + e->d_name;
      if (auto last = LastInput(device, uid, true); last && devices.insert(device).second) {
        terminals.push_back({device, *last});
      }
    }
    ::closedir(dir);
  }
  return terminals;
}

std::unique_ptr<PresenceSource> MakeTtySource(TerminalLister list, std::chrono::minutes idle,
                                              Clock now) {
  return std::make_unique<TtySource>(std::move(list), idle, std::move(now));
}

std::string DescribeDuration(std::chrono::seconds d) {
  long s = d.count();
  if (s >= 86400) return std::to_string(s / 86400) + "d" + std::to_string(s % 86400 / 3600) + "h";
  if (s >= 3600) return std::to_string(s / 3600) + "h" + std::to_string(s % 3600 / 60) + "m";
  if (s >= 60) return std::to_string(s / 60) + "m" + std::to_string(s % 60) + "s";
  return std::to_string(s) + "s";
}

}  // namespace corral::policy
