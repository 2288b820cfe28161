// The forge's scope as JSON: how `corral proxy --forge-file` (a proxy run
// apart from the launcher, the network mode's sidecar) is told it.
#include <nlohmann/json.hpp>

#include "netfilter/forge/forge.h"

namespace corral::netfilter::forge {

std::string ForgeConfigJson(const ForgeConfig& config) {
  nlohmann::json forges = nlohmann::json::array();
  for (const Forge& f : config.forges) {
    forges.push_back({{"git_host", f.git_host},
                      {"api_host", f.api_host},
                      {"enterprise", f.enterprise},
                      {"repositories", f.repositories}});
  }
  return nlohmann::json{{"forges", forges},
                        {"protected_branches", config.protected_branches},
                        {"other_reads", config.other_reads},
                        {"history", config.history}}
      .dump();
}

Result<ForgeConfig> ParseForgeConfigJson(std::string_view text) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return Error("the forge's JSON is not an object");
  const auto strings = [](const nlohmann::json& value, std::vector<std::string>& out) {
    if (!value.is_array()) return false;
    for (const auto& item : value) {
      if (!item.is_string()) return false;
      out.push_back(item.get<std::string>());
    }
    return true;
  };
  ForgeConfig config;
  for (const auto& [key, value] : json.items()) {
    bool ok = true;
    if (key == "forges") {
      ok = value.is_array();
      for (const auto& item : ok ? value : nlohmann::json::array()) {
        Forge f;
        ok = ok && item.is_object() && item.contains("git_host") && item["git_host"].is_string();
        if (!ok) break;
        f.git_host = item["git_host"].get<std::string>();
        if (item.contains("api_host")) ok = item["api_host"].is_string() && (f.api_host = item["api_host"], true);
        if (item.contains("enterprise")) ok = ok && item["enterprise"].is_boolean() && (f.enterprise = item["enterprise"], true);
        if (item.contains("repositories")) ok = ok && strings(item["repositories"], f.repositories);
        config.forges.push_back(std::move(f));
      }
    } else if (key == "protected_branches") {
      ok = strings(value, config.protected_branches);
    } else if (key == "other_reads" || key == "history") {
      ok = value.is_boolean();
      if (ok) (key == "history" ? config.history : config.other_reads) = value.get<bool>();
    } else {
      return Error("the forge's JSON has an unknown key '" + key + "'");
    }
    if (!ok) return Error("the forge's JSON has a malformed '" + key + "'");
  }
  return config;
}

}  // namespace corral::netfilter::forge
