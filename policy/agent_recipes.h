// Reading `agents.recipes` (the user's agent recipes). Private to policy/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "policy/config_values.h"

namespace corral::policy {

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
