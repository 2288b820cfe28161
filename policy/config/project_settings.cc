// `projects:` in the user's file: settings for one project folder, never read
// from the project itself (DESIGN.md, Configuration). Today a project may set
// its box's `runtime` and whether its sessions run in review mode (`review`);
// each entry is checked where it is written.
#include "policy/config/project_settings.h"

#include "policy/config/config_values.h"

namespace corral::policy {
namespace {

constexpr const char* kFields = "runtime, review";

std::string CheckRuntime(const std::string& value) {
  return value == "default" || value == "gvisor" ? "" : "runtime: expected default or gvisor";
}

// A YAML scalar arrives as a string: "true"/"false" (also yes/no, on/off) or a bool.
std::optional<bool> Flag(const nlohmann::json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (!value.is_string()) return std::nullopt;
  std::string text = value.get<std::string>();
  if (text == "true" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "no" || text == "off") return false;
  return std::nullopt;
}

// One project's entry as JSON ({"runtime": "gvisor", "review": true}), or what
// is wrong with it.
Result<nlohmann::json> Entry(const std::string& folder, const nlohmann::json& fields) {
  if (folder.empty() || folder[0] != '/') {
    return Error("projects: '" + folder + "' is not an absolute folder");
  }
  if (!fields.is_object()) return Error("projects: " + folder + ": expected a mapping of settings");
  nlohmann::json entry = nlohmann::json::object();
  for (const auto& [name, value] : fields.items()) {
    if (name == "review") {
      auto flag = Flag(value);
      if (!flag) return Error("projects: " + folder + ": review: expected true or false");
      entry[name] = *flag;
      continue;
    }
    if (name != "runtime") {
      return Error("projects: " + folder + ": unknown key '" + name + "' (a project may set: " +
                   kFields + ")");
    }
    if (!value.is_string()) return Error("projects: " + folder + ": runtime: expected a string");
    if (std::string why = CheckRuntime(value.get<std::string>()); !why.empty()) {
      return Error("projects: " + folder + ": " + why);
    }
    entry[name] = value;
  }
  return entry;
}

nlohmann::json Scalars(const YAML::Node& map) {
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& pair : map) {
    fields[pair.first.Scalar()] = pair.second.IsScalar() ? nlohmann::json(pair.second.Scalar())
                                                        : nlohmann::json(nullptr);
  }
  return fields;
}

}  // namespace

Result<nlohmann::json> ProjectsFromYaml(const YAML::Node& node, const std::string& file) {
  if (!node.IsMap()) {
    return Error(Where(file, node.Mark()) + ": projects: expected a mapping of project folders");
  }
  nlohmann::json projects = nlohmann::json::object();
  for (const auto& pair : node) {
    std::string folder = pair.first.IsScalar() ? pair.first.Scalar() : "";
    if (!pair.second.IsMap()) {
      return Error(Where(file, pair.second.Mark()) + ": projects: " + folder +
                   ": expected a mapping of settings");
    }
    auto entry = Entry(folder, Scalars(pair.second));
    if (!entry) return Error(Where(file, pair.first.Mark()) + ": " + entry.error().message);
    projects[folder] = *entry;
  }
  return projects;
}

Result<nlohmann::json> ProjectsFromText(const std::string& text, const std::string& from) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) return Error(from + ": expected a JSON object of project folders");
  nlohmann::json projects = nlohmann::json::object();
  for (const auto& [folder, fields] : json.items()) {
    auto entry = Entry(folder, fields);
    if (!entry) return entry.error();
    projects[folder] = *entry;
  }
  return projects;
}

std::map<std::string, ProjectSettings> ProjectsFromJson(const nlohmann::json& projects) {
  std::map<std::string, ProjectSettings> result;
  for (const auto& [folder, fields] : projects.items()) {
    ProjectSettings settings;
    if (fields.contains("runtime")) {
      settings.runtime =
          fields["runtime"] == "gvisor" ? BoxRuntime::kGvisor : BoxRuntime::kDefault;
    }
    if (fields.contains("review") && fields["review"].is_boolean()) {
      settings.review = fields["review"].get<bool>();
    }
    std::string key = folder.size() > 1 && folder.back() == '/' ? folder.substr(0, folder.size() - 1)
                                                                 : folder;
    result[key] = settings;
  }
  return result;
}

Policy ForProject(const Policy& policy, const std::string& project_dir) {
  Policy result = policy;
  auto entry = policy.projects.find(project_dir);
  if (entry == policy.projects.end()) return result;
  auto runtime = policy.settings.find("runtime");
  bool given = runtime != policy.settings.end() &&
               (runtime->second.origin == Origin::kEnvironment ||
                runtime->second.origin == Origin::kFlag);
  if (entry->second.runtime && !given) result.runtime = *entry->second.runtime;
  return result;
}

}  // namespace corral::policy
