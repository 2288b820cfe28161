// Reading `agents.recipes` (the user's agent recipes). Private to policy/config/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "policy/config/config_values.h"

namespace corral::policy {

// Why `agents.settings: shared` (the user's folders read-write in the box)
// is refused, and what to write instead.
inline constexpr const char* kSharedSettingsGone =
    "'shared' is no longer offered: a box that writes your agent's settings can plant hooks "
    "and helpers that run on this machine later. Write copy (the default: the box's own "
    "folders, filled from yours without what runs programs) or own (the box's own, empty)";

// A mapping of agent names to recipes, each field checked (a recipe's hosts
// by the proxy's rules); the error names every problem, one per line, each
// with its file, line and column.
Result<nlohmann::json> RecipesFromYaml(const YAML::Node& node, const std::string& file);
// The same from JSON or YAML text (an environment variable or a flag);
// `from` names it in errors.
Result<nlohmann::json> RecipesFromText(const std::string& text, const std::string& from);
// The checked JSON as typed recipes.
std::map<std::string, AgentRecipeConfig> RecipesFromJson(const nlohmann::json& recipes);

}  // namespace corral::policy
