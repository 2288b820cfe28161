// Load: defaults < config file < environment < flags, into one Policy.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include "policy/config/config_values.h"
#include "policy/config/policy_build.h"

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

// Checks each item of a list, or a string's value, with the key's own
// check; `where(i)` says where item i was written.
void CheckValue(const KeySpec& spec, const nlohmann::json& value,
                const std::function<std::string(std::size_t)>& where, Problems& problems) {
  if (!spec.check) return;
  auto check = [&](const nlohmann::json& item, std::size_t i) {
    if (!item.is_string()) return;
    if (auto ok = spec.check(item.get<std::string>()); !ok) {
      problems.Add(where(i) + ": " + ok.error().message);
    }
  };
  if (!value.is_array()) return check(value, 0);
  for (std::size_t i = 0; i < value.size(); ++i) check(value[i], i);
}

// A key's value as written in the file, each problem noted where it is.
std::optional<nlohmann::json> ReadValue(const KeySpec& spec, const std::string& name,
                                        const YAML::Node& node, const std::string& file,
                                        Problems& problems) {
  auto value = ValueFromYaml(spec, node, file);
  if (!value && (spec.type == KeyType::kRecipes || spec.type == KeyType::kProjects)) {
    problems.Add(value.error());  // located already, one line per problem
    return std::nullopt;
  }
  if (!value) {
    problems.Add(Where(file, node.Mark()) + ": " + name + ": " + value.error().message);
    return std::nullopt;
  }
  CheckValue(spec, *value, [&](std::size_t i) {
    const YAML::Node at = node.IsSequence() ? node[i] : node;
    return Where(file, at.Mark()) + ": " + name;
  }, problems);
  return std::move(*value);
}

// Walks one YAML mapping, storing known keys and noting anything else.
void ReadMapping(const YAML::Node& map, const std::string& prefix, const std::string& file,
                 Settings& settings, Problems& problems) {
  std::set<std::string> seen;
  for (const auto& pair : map) {
    const YAML::Node key_node = pair.first;
    const YAML::Node value_node = pair.second;
    std::string where = Where(file, key_node.Mark());
    if (!key_node.IsScalar()) {
      problems.Add(where + ": a key must be a plain name");
      continue;
    }
    std::string name = prefix + key_node.Scalar();
    if (!seen.insert(key_node.Scalar()).second) {
      problems.Add(where + ": key '" + name + "' appears twice; keep one");
    } else if (const KeySpec* spec = FindKey(name)) {
      auto value = ReadValue(*spec, name, value_node, file, problems);
      if (value) settings[name] = {std::move(*value), Origin::kFile, where};
    } else if (!IsSection(name)) {
      problems.Add(where + ": " + UnknownKeyMessage(name));
    } else if (!value_node.IsMap()) {
      problems.Add(Where(file, value_node.Mark()) + ": " + name + ": expected a mapping of " +
                   name + ".* keys");
    } else {
      ReadMapping(value_node, name + ".", file, settings, problems);
    }
  }
}

void ReadFile(const std::string& file, Settings& settings, Problems& problems) {
  auto text = ReadWholeFile(file);
  if (!text) {
    return problems.Add(
        Error::FromErrno("cannot read config file " + file, text.error().code).message);
  }
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return problems.Add(Where(file, e.mark) + ": " + e.msg + " (fix the YAML syntax there)");
  }
  if (!root || root.IsNull()) return;  // an empty file sets nothing
  if (!root.IsMap()) {
    return problems.Add(Where(file, root.Mark()) +
                        ": the config must be a mapping of keys to values");
  }
  try {
    ReadMapping(root, "", file, settings, problems);
  } catch (const YAML::Exception& e) {
    problems.Add(Where(file, e.mark) + ": " + e.msg);
  }
}

void ReadEnvironment(const std::function<const char*(const char*)>& env, Settings& settings,
                     Problems& problems) {
  for (const KeySpec& key : Keys()) {
    if (key.env.empty()) continue;
    std::string variable(key.env);
    const char* text = env(variable.c_str());
    if (!text) continue;
    auto value = ValueFromText(key, text);
    if (!value) {
      problems.Add(variable + ": " + value.error().message);
      continue;
    }
    CheckValue(key, *value, [&](std::size_t) { return variable; }, problems);
    settings[std::string(key.name)] = {std::move(*value), Origin::kEnvironment, variable};
  }
}

void ReadOverrides(const std::vector<LoadOptions::Override>& overrides, Settings& settings,
                   Problems& problems) {
  for (const auto& override : overrides) {
    const KeySpec* key = FindKey(override.key);
    if (!key) {
      problems.Add(override.flag + ": " + UnknownKeyMessage(override.key));
      continue;
    }
    std::string flag = override.flag + " " + override.key;
    auto value = ValueFromText(*key, override.value);
    if (!value) {
      problems.Add(flag + ": " + value.error().message);
      continue;
    }
    CheckValue(*key, *value, [&](std::size_t) { return flag; }, problems);
    settings[override.key] = {std::move(*value), Origin::kFlag, override.flag};
  }
}

// One problem as it is; several under a line that counts them.
Error Reported(const Problems& problems) {
  Error all = problems.ToError();
  if (problems.size() == 1) return all;
  return Error(std::to_string(problems.size()) + " problems in the configuration:\n" + all.message);
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
  // Every problem is noted and reading goes on, so all are reported at once.
  Problems problems;
  if (exists) ReadFile(path, settings, problems);
  ReadEnvironment(env, settings, problems);
  ReadOverrides(options.overrides, settings, problems);
  auto policy = BuildPolicy(std::move(settings));
  if (!policy) problems.Add(policy.error());
  if (!problems.empty()) return Reported(problems);
  if (exists) policy->config_path = path;
  return policy;
}

}  // namespace corral::policy
