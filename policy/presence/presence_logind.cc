// logind: the user's graphical session is active, unlocked and not idle.
#include <sstream>

#include "policy/presence/presence_sources.h"

namespace corral::policy {
namespace {

std::map<std::string, std::string> Properties(const std::string& text) {
  std::map<std::string, std::string> props;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq != std::string::npos) props[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return props;
}

bool Graphical(const std::string& type) {
  return type == "x11" || type == "wayland" || type == "mir";
}

class LogindSource : public PresenceSource {
 public:
  LogindSource(CommandRunner run, uid_t uid) : run_(std::move(run)), uid_(uid) {}

  PresenceReport Check() const override {
    PresenceReport report{"logind", false, ""};
    auto sessions = run_({"loginctl", "show-user", std::to_string(uid_), "--property=Sessions",
                          "--value"});
    if (!sessions) {
      report.detail = "no answer from logind (" + sessions.error().message + ")";
      return report;
    }
    std::istringstream ids(*sessions);
    std::string id;
    int graphical = 0;
    while (ids >> id) {
      auto shown = run_({"loginctl", "show-session", id, "--property=Type",
                         "--property=Active", "--property=IdleHint", "--property=LockedHint"});
      if (!shown) continue;
      auto props = Properties(*shown);
      if (!Graphical(props["Type"])) continue;
      ++graphical;
      if (props["Active"] == "yes" && props["LockedHint"] != "yes" && props["IdleHint"] != "yes") {
        report.watching = true;
        report.detail = "graphical session " + id + " is active, unlocked and not idle";
        return report;
      }
      report.detail = "graphical session " + id + " is " +
                      (props["LockedHint"] == "yes" ? "locked"
                       : props["IdleHint"] == "yes" ? "idle"
                                                    : "not active");
    }
    if (graphical == 0) report.detail = "no graphical session of yours";
    return report;
  }

 private:
  CommandRunner run_;
  uid_t uid_;
};

}  // namespace

CommandRunner RealCommandRunner(std::chrono::milliseconds timeout) {
  return [timeout](const std::vector<std::string>& argv) -> Result<std::string> {
    auto out = RunCapture(argv, timeout);
    if (!out) return out.error();
    if (out->exit_status != 0) {
      return Error(argv[0] + " exited with status " + std::to_string(out->exit_status));
    }
    return std::move(out->out);
  };
}

std::unique_ptr<PresenceSource> MakeLogindSource(CommandRunner run, uid_t uid) {
  return std::make_unique<LogindSource>(std::move(run), uid);
}

}  // namespace corral::policy
