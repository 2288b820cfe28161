// Load: defaults < config file < environment < flags, into one Policy.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "policy/config_values.h"
#include "policy/policy_build.h"

namespace corral::policy {
namespace {

namespace fs = std::filesystem;
using Settings = std::map<std::string, Setting>;

Settings Defaults() {
  Settings settings;
  for (const KeySpec& key : Keys()) {
    settings[std::string(key.name)] = {nlohmann::json::parse(key.default_json), Origin::kDefault,
                                       "default"};
  }
  return settings;
}

std::vector<std::string_view> KeyNames() {
  std::vector<std::string_view> names;
  for (const KeySpec& key : Keys()) names.push_back(key.name);
  return names;
}

std::string UnknownKeyMessage(const std::string& name) {
  std::string message = "unknown key '" + name + "'";
  std::string near = Nearest(name, KeyNames());
  if (!near.empty()) return message + " (did you mean '" + near + "'?)";
  return message + " (`corral config show` lists every key)";
}

bool IsSection(const std::string& prefix) {
  for (const KeySpec& key : Keys()) {
    if (key.name.size() > prefix.size() && key.name.starts_with(prefix) &&
        key.name[prefix.size()] == '.') {
      return true;
    }
  }
  return false;
}

// Walks one YAML mapping, storing known keys and refusing anything else.
Result<void> ReadMapping(const YAML::Node& map, const std::string& prefix, const std::string& file,
                         Settings& settings) {
  std::set<std::string> seen;
  for (const auto& pair : map) {
    const YAML::Node key_node = pair.first;
    const YAML::Node value_node = pair.second;
    std::string where = Where(file, key_node.Mark());
    if (!key_node.IsScalar()) return Error(where + ": a key must be a plain name");
    std::string name = prefix + key_node.Scalar();
    if (!seen.insert(key_node.Scalar()).second) {
      return Error(where + ": key '" + name + "' appears twice; keep one");
    }
    if (const KeySpec* spec = FindKey(name)) {
      auto value = ValueFromYaml(*spec, value_node, file);
      if (!value && spec->type == KeyType::kRecipes) return value.error();  // located already
      if (!value) {
        return Error(Where(file, value_node.Mark()) + ": " + name + ": " + value.error().message);
      }
      settings[name] = {std::move(*value), Origin::kFile, where};
    } else if (IsSection(name)) {
      if (!value_node.IsMap()) {
        return Error(Where(file, value_node.Mark()) + ": " + name + ": expected a mapping of " +
                     name + ".* keys");
      }
      auto nested = ReadMapping(value_node, name + ".", file, settings);
      if (!nested) return nested;
    } else {
      return Error(where + ": " + UnknownKeyMessage(name));
    }
  }
  return Ok();
}

Result<void> ReadFile(const std::string& file, Settings& settings) {
  std::ifstream in(file);
  if (!in) return Error::FromErrno("cannot read config file " + file);
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    return Error(Where(file, e.mark) + ": " + e.msg + " (fix the YAML syntax there)");
  }
  if (!root || root.IsNull()) return Ok();  // an empty file sets nothing
  if (!root.IsMap()) {
    return Error(Where(file, root.Mark()) + ": the config must be a mapping of keys to values");
  }
  try {
    return ReadMapping(root, "", file, settings);
  } catch (const YAML::Exception& e) {
    return Error(Where(file, e.mark) + ": " + e.msg);
  }
}

// The config file to read, and whether it must exist.
std::pair<std::string, bool> ConfigPath(const LoadOptions& options,
                                        const std::function<const char*(const char*)>& env) {
  if (!options.config_path.empty()) return {options.config_path, true};
  if (const char* named = env("CORRAL_CONFIG"); named && *named) return {named, true};
  if (const char* xdg = env("XDG_CONFIG_HOME"); xdg && *xdg) {
    return {std::string(xdg) + "/corral/config.yaml", false};
  }
  if (const char* home = env("HOME"); home && *home) {
    return {std::string(home) + "/.config/corral/config.yaml", false};
  }
  return {"", false};
}

}  // namespace

std::string ResolveConfigPath(const LoadOptions& options) {
  auto env = options.getenv ? options.getenv : [](const char* name) { return std::getenv(name); };
  return ConfigPath(options, env).first;
}

Result<Policy> Load(const LoadOptions& options) {
  auto env = options.getenv ? options.getenv : [](const char* name) { return std::getenv(name); };
  Settings settings = Defaults();

  auto [path, required] = ConfigPath(options, env);
  std::error_code ec;
  bool exists = !path.empty() && fs::exists(path, ec);
  if (required && !exists) {
    return Error("config file " + path + " does not exist (create it, or drop --config/CORRAL_CONFIG)");
  }
  if (exists) {
    auto read = ReadFile(path, settings);
    if (!read) return read.error();
  }

  for (const KeySpec& key : Keys()) {
    if (key.env.empty()) continue;
    const char* text = env(std::string(key.env).c_str());
    if (!text) continue;
    auto value = ValueFromText(key, text);
    if (!value) return Error(std::string(key.env) + ": " + value.error().message);
    settings[std::string(key.name)] = {std::move(*value), Origin::kEnvironment, std::string(key.env)};
  }

  for (const auto& override : options.overrides) {
    const KeySpec* key = FindKey(override.key);
    if (!key) return Error(override.flag + ": " + UnknownKeyMessage(override.key));
    auto value = ValueFromText(*key, override.value);
    if (!value) return Error(override.flag + " " + override.key + ": " + value.error().message);
    settings[override.key] = {std::move(*value), Origin::kFlag, override.flag};
  }

  auto policy = BuildPolicy(std::move(settings));
  if (!policy) return policy.error();
  if (exists) policy->config_path = path;
  return policy;
}

}  // namespace corral::policy
