// Turning text and YAML nodes into typed setting values. Private to policy/config/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "policy/config/config.h"

namespace corral::policy {

// Everything wrong with the configuration, one line each ("where: what: fix"),
// so the user sees every problem at once, not only the first.
class Problems {
 public:
  void Add(std::string line) { lines_.push_back(std::move(line)); }
  // Each line of the message: a reader that goes on past a problem (agent
  // recipes, the policy's own checks) returns all it found as one error.
  void Add(const Error& error);
  bool empty() const { return lines_.empty(); }
  std::size_t size() const { return lines_.size(); }
  Error ToError() const;  // the lines, one per line

 private:
  std::vector<std::string> lines_;
};

// "file:line:col" for a YAML node (yaml-cpp marks are 0-based).
std::string Where(const std::string& file, const YAML::Mark& mark);

// A YAML node as the key's type; the error says what was expected (and,
// for agent recipes, where in `file`).
Result<nlohmann::json> ValueFromYaml(const KeySpec& key, const YAML::Node& node,
                                     const std::string& file);

// Text from the environment or a flag as the key's type. Lists are
// comma-separated, or a JSON array.
Result<nlohmann::json> ValueFromText(const KeySpec& key, const std::string& text);

// The key named `name`, or nullptr.
const KeySpec* FindKey(std::string_view name);

}  // namespace corral::policy
