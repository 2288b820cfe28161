// `agents.recipes` in the config: the user's own agent recipes, or fields
// over a built-in one. Read from YAML with each field checked where it is
// written (file:line:col); the launcher's agents room merges them.
#include "policy/config/agent_recipes.h"
#include "policy/network/network.h"

#include <algorithm>
#include <cctype>

namespace corral::policy {
namespace {

bool NameChar(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
         c == '-' || c == '_';
}

// An agent's name becomes part of an image name, so it is written as one.
bool ValidAgentName(const std::string& name) {
  return !name.empty() && name.size() <= 40 && NameChar(name[0]) && name[0] != '-' &&
         name[0] != '_' && std::all_of(name.begin(), name.end(), NameChar);
}

bool ValidVariable(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool ValidVersion(const std::string& version) {
  return version.size() <= 100 && std::all_of(version.begin(), version.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
                  c == '+' || c == '_';
         });
}

bool NoBlanks(const std::string& text) {
  return !text.empty() && std::none_of(text.begin(), text.end(), [](char c) {
    return std::isspace(static_cast<unsigned char>(c));
  });
}

// What each field may hold, as one line for the error; "" when it is fine.
std::string CheckString(const std::string& field, const std::string& value) {
  if (field == "version" && !ValidVersion(value)) {
    return "a version is letters, digits and . - + _ (or \"\" for the host's, else the latest)";
  }
  if (field == "folder_variable" && !value.empty() && !ValidVariable(value)) {
    return "expected the name of an environment variable";
  }
  if (field == "settings" && value == "shared") return kSharedSettingsGone;
  if (field == "settings" && value != "copy" && value != "own") return "expected copy or own";
  if (field == "logins" && value != "proxy" && value != "pass") return "expected proxy or pass";
  if (field == "binary" && !value.empty() && !NoBlanks(value)) return "a program name has no blanks";
  return "";
}

std::string CheckItem(const std::string& field, const std::string& item) {
  if (field == "folders" && !(item.starts_with("~/") || item.starts_with("/"))) {
    return "'" + item + "' is not a path from ~/ or /";
  }
  if (field == "variables" && !ValidVariable(item)) {
    return "'" + item + "' is not the name of an environment variable";
  }
  if (field == "shell" && !(item.starts_with("$") ? ValidVariable(item.substr(1))
                                                  : item.starts_with("/") || NoBlanks(item))) {
    return "'" + item + "' is not $VARIABLE, a /path or a program name";
  }
  if (field == "env") {
    auto eq = item.find('=');
    if (eq == std::string::npos || !ValidVariable(item.substr(0, eq))) {
      return "'" + item + "' is not NAME=VALUE";
    }
  }
  if (field == "hosts") {  // joins the proxy's list: its own rules
    if (auto entry = ParseDomainEntry(item); !entry) return entry.error().message;
  }
  if ((field == "run_without_asking" || field == "bypass" || field == "unboxed") && item.empty()) {
    return "an empty argument";
  }
  return "";
}

const RecipeFieldSpec* FindField(const std::string& name) {
  for (const RecipeFieldSpec& field : RecipeFields()) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

std::vector<std::string_view> FieldNames() {
  std::vector<std::string_view> names;
  for (const RecipeFieldSpec& field : RecipeFields()) names.push_back(field.name);
  return names;
}

// A field's value; each problem in it is noted where it is written.
nlohmann::json FieldValue(const RecipeFieldSpec& spec, const YAML::Node& node,
                          const std::string& file, Problems& problems) {
  std::string field(spec.name);
  auto at = [&](const YAML::Node& n) { return Where(file, n.Mark()) + ": " + field + ": "; };
  switch (spec.type) {
    case RecipeFieldType::kBool: {
      std::string text = node.IsScalar() ? node.Scalar() : "";
      if (text == "true" || text == "yes") return true;
      if (text == "false" || text == "no") return false;
      problems.Add(at(node) + (node.IsScalar() ? "'" + text + "' is not true or false"
                                               : "expected true or false"));
      return nullptr;
    }
    case RecipeFieldType::kString: {
      if (!node.IsScalar()) {
        problems.Add(at(node) + "expected a string");
        return nullptr;
      }
      std::string why = CheckString(field, node.Scalar());
      if (!why.empty()) problems.Add(at(node) + why);
      return node.Scalar();
    }
    case RecipeFieldType::kList: {
      if (!node.IsSequence()) {
        problems.Add(at(node) + "expected a list of strings");
        return nullptr;
      }
      nlohmann::json list = nlohmann::json::array();
      for (const YAML::Node& item : node) {
        if (!item.IsScalar()) {
          problems.Add(at(item) + "expected a string");
          continue;
        }
        std::string why = CheckItem(field, item.Scalar());
        if (!why.empty()) problems.Add(at(item) + why);
        list.push_back(item.Scalar());
      }
      return list;
    }
  }
  problems.Add(at(node) + "unsupported field type");
  return nullptr;
}

// One agent's recipe: its fields, each checked.
nlohmann::json RecipeFromYaml(const std::string& name, const YAML::Node& node,
                              const std::string& file, Problems& problems) {
  nlohmann::json recipe = nlohmann::json::object();
  if (!node.IsMap()) {
    problems.Add(Where(file, node.Mark()) + ": agents.recipes." + name +
                 ": expected a mapping of recipe fields");
    return recipe;
  }
  for (const auto& field : node) {
    std::string field_where = Where(file, field.first.Mark());
    std::string field_name = field.first.IsScalar() ? field.first.Scalar() : "";
    const RecipeFieldSpec* spec = FindField(field_name);
    if (!spec) {
      std::string near = Nearest(field_name, FieldNames());
      problems.Add(field_where + ": agents.recipes." + name + ": unknown field '" + field_name +
                   "'" + (near.empty() ? " (corral agents --help lists them)"
                                       : " (did you mean '" + near + "'?)"));
    } else if (recipe.contains(field_name)) {
      problems.Add(field_where + ": field '" + field_name + "' appears twice; keep one");
    } else {
      recipe[field_name] = FieldValue(*spec, field.second, file, problems);
    }
  }
  return recipe;
}

}  // namespace

const std::vector<RecipeFieldSpec>& RecipeFields() {
  using T = RecipeFieldType;
  static const std::vector<RecipeFieldSpec> kFields = {
      {"package", T::kString, "npm package the image installs (\"\" when an installer is used)"},
      {"installer", T::kString, "shell command run as root in the image build, for agents "
                                "with no npm package"},
      {"binary", T::kString, "the program's name (default: the agent's name)"},
      {"version", T::kString, "version to install (default: the host's, else the latest)"},
      {"folders", T::kList, "settings and login folders (~/.x/ for a folder, ~/.x.json for a file)"},
      {"folder_variable", T::kString, "variable naming the one settings folder instead, when set"},
      {"variables", T::kList, "login variables passed by name when set"},
      {"hosts", T::kList, "API and login hosts, allowed through the proxy for this agent"},
      {"run_without_asking", T::kList, "arguments added when boxed (the box is the sandbox)"},
      {"bypass", T::kList, "the agent's own sandbox-bypass switches, refused when unboxed"},
      {"unboxed", T::kList, "arguments added when unboxed (the agent's own sandbox)"},
      {"env", T::kList, "NAME=VALUE set in the box for this agent (VALUE ~ or ~/x: the box's HOME)"},
      {"shell", T::kList, "how it finds its shell: $VARIABLE, /path or a name in PATH (each "
                          "resolves to corral-shell in the box)"},
      {"ask_first", T::kBool, "keep asking when boxed (overrides agents.ask_first)"},
      {"settings", T::kString, "copy or own (overrides agents.settings)"},
      {"logins", T::kString, "proxy or pass (overrides agents.logins)"},
  };
  return kFields;
}

Result<nlohmann::json> RecipesFromYaml(const YAML::Node& node, const std::string& file) {
  if (!node.IsMap()) {
    return Error(Where(file, node.Mark()) + ": agents.recipes: expected a mapping of agent "
                 "names to recipes");
  }
  Problems problems;
  nlohmann::json recipes = nlohmann::json::object();
  for (const auto& pair : node) {
    std::string where = Where(file, pair.first.Mark());
    std::string name = pair.first.IsScalar() ? pair.first.Scalar() : "";
    if (!ValidAgentName(name)) {
      problems.Add(where + ": agents.recipes: '" + name + "' is not an agent name (lower-case "
                   "letters, digits, - and _)");
    } else if (recipes.contains(name)) {
      problems.Add(where + ": agent '" + name + "' appears twice; keep one");
    } else {
      recipes[name] = RecipeFromYaml(name, pair.second, file, problems);
    }
  }
  if (!problems.empty()) return problems.ToError();
  return recipes;
}

Result<nlohmann::json> RecipesFromText(const std::string& text, const std::string& from) {
  YAML::Node node;
  try {
    node = YAML::Load(text);  // JSON is YAML too
  } catch (const YAML::Exception& e) {
    return Error("expected a JSON or YAML mapping of agent names to recipes: " + e.msg);
  }
  try {
    return RecipesFromYaml(node, from);
  } catch (const YAML::Exception& e) {
    return Error(e.msg);
  }
}

std::map<std::string, AgentRecipeConfig> RecipesFromJson(const nlohmann::json& recipes) {
  std::map<std::string, AgentRecipeConfig> out;
  for (const auto& [name, fields] : recipes.items()) {
    AgentRecipeConfig& recipe = out[name];
    for (const auto& [field, value] : fields.items()) {
      if (value.is_boolean()) recipe.flags[field] = value.get<bool>();
      else if (value.is_string()) recipe.strings[field] = value.get<std::string>();
      else if (value.is_array()) recipe.lists[field] = value.get<std::vector<std::string>>();
    }
  }
  return out;
}

}  // namespace corral::policy
