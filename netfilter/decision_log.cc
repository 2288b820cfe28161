#include "netfilter/decision_log.h"

#include <nlohmann/json.hpp>

#include "base/time_text.h"

namespace corral::netfilter {

void WriteDecision(const std::function<void(std::string_view)>& log, const Decision& d) {
  if (!log) return;
  nlohmann::json line = {
      {"v", 1},
      {"event", "network"},
      {"time", UtcTime()},
      {"client", d.client},
      {"method", d.method},
      {"host", d.host},
      {"port", d.port},
      {"address", d.address ? nlohmann::json(*d.address) : nlohmann::json(nullptr)},
      {"decision", d.decision},
      {"reason", d.reason},
      {"status", d.status},
      {"bytes_up", d.bytes_up},
      {"bytes_down", d.bytes_down},
      {"duration_ms", d.duration_ms},
  };
  if (d.login) line["login"] = *d.login;
  if (d.credential) line["credential"] = *d.credential;
  if (d.forge_rule) line["rule"] = *d.forge_rule;
  if (d.repository) line["repository"] = *d.repository;
  if (d.path) line["path"] = *d.path;
  log(line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace corral::netfilter
