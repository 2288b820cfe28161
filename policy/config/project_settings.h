// Private to policy/config/: `projects:` read and checked (project_settings.cc).
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "policy/config/config.h"

namespace corral::policy {

// FOLDER: {runtime: default|gvisor} for each absolute project folder; an
// error located at the entry (file:line:col) that is wrong.
Result<nlohmann::json> ProjectsFromYaml(const YAML::Node& node, const std::string& file);
// The same from a JSON object (CORRAL_... or --set), `from` naming where.
Result<nlohmann::json> ProjectsFromText(const std::string& text, const std::string& from);
std::map<std::string, ProjectSettings> ProjectsFromJson(const nlohmann::json& projects);

}  // namespace corral::policy
