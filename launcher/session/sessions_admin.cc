// corral ps and corral stop: sessions found by their label on the engine.
#include <ctime>
#include <sstream>

#include "launcher/engine/engine.h"
#include "launcher/launcher.h"

namespace corral::launcher {
namespace {

Result<Engine> ConnectFor(const policy::Policy& policy, const std::string& flag) {
  auto choice = ChooseEndpoints(flag, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  return Engine::Connect(*choice);
}

std::string Label(const nlohmann::json& c, const std::string& key) {
  const auto& labels = c.value("Labels", nlohmann::json::object());
  return labels.is_object() && labels.contains(key) ? labels[key].get<std::string>() : "";
}

std::string Name(const nlohmann::json& c) {
  const auto& names = c.value("Names", nlohmann::json::array());
  std::string name = names.empty() ? "" : names[0].get<std::string>();
  return !name.empty() && name[0] == '/' ? name.substr(1) : name;
}

}  // namespace

Result<std::string> ListSessions(const policy::Policy& policy, const std::string& flag) {
  auto engine = ConnectFor(policy, flag);
  if (!engine) return engine.error();
  auto list = engine->ListByLabel(kLabelSession, /*all=*/false);
  if (!list) return list.error();
  std::ostringstream out;
  out << "SESSION       AGENT        STATUS                PROJECT\n";
  for (const auto& c : *list) {
    char line[512];
    std::snprintf(line, sizeof line, "%-13s %-12s %-21s %s\n", Label(c, kLabelSession).c_str(),
                  Label(c, "corral.agent").c_str(), c.value("Status", "").c_str(),
                  Label(c, "corral.project").c_str());
    out << line;
  }
  return out.str();
}

Result<void> StopSession(const policy::Policy& policy, const std::string& flag,
                         const std::string& id) {
  auto engine = ConnectFor(policy, flag);
  if (!engine) return engine.error();
  auto list = engine->ListByLabel(kLabelSession, /*all=*/true);
  if (!list) return list.error();
  for (const auto& c : *list) {
    std::string container = c.value("Id", "");
    if (Label(c, kLabelSession) == id || Name(c) == id ||
        (id.size() >= 6 && container.rfind(id, 0) == 0)) {
      return engine->Remove(container);
    }
  }
  return Error("no corral session " + id + " on " + engine->name() +
               " (corral ps lists the running ones)");
}

}  // namespace corral::launcher
