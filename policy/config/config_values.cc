#include "policy/config/config_values.h"

#include <algorithm>
#include <optional>

#include "policy/config/agent_recipes.h"
#include "policy/config/project_settings.h"

namespace corral::policy {
namespace {

std::string ChoicesText(const KeySpec& key) {
  std::string text;
  for (auto choice : key.choices) text += (text.empty() ? "" : ", ") + std::string(choice);
  return text;
}

Result<nlohmann::json> CheckChoice(const KeySpec& key, const std::string& value) {
  if (std::string_view(key.name) == "agents.settings" && value == "shared") {
    return Error(kSharedSettingsGone);
  }
  if (std::find(key.choices.begin(), key.choices.end(), value) == key.choices.end()) {
    return Error("'" + value + "' is not one of " + ChoicesText(key));
  }
  return nlohmann::json(value);
}

Result<nlohmann::json> ParseBool(const std::string& text) {
  std::string t(Trim(text));
  if (t == "true" || t == "1" || t == "yes" || t == "on") return nlohmann::json(true);
  if (t == "false" || t == "0" || t == "no" || t == "off") return nlohmann::json(false);
  return Error("'" + text + "' is not true or false");
}

Result<nlohmann::json> ParseInt(const std::string& text) {
  std::string t(Trim(text));
  if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), ::isdigit)) {
    return Error("'" + text + "' is not a whole number from 0 to 999999999");
  }
  return nlohmann::json(std::stol(t));
}

// An unquoted "[2001:db8::10]" item is, to YAML, a list holding one plain
// scalar; the user wrote a bracketed host, so it is read back as that text.
std::optional<std::string> BracketedText(const YAML::Node& item) {
  if (!item.IsSequence() || item.Style() != YAML::EmitterStyle::Flow || item.size() != 1) {
    return std::nullopt;
  }
  const YAML::Node inner = item[0];
  if (!inner.IsScalar() || inner.Tag() != "?") return std::nullopt;  // "?": plain, not quoted
  return "[" + inner.Scalar() + "]";
}

// A list given as text: a JSON array of strings, or comma-separated items.
// Text starting with '[' that is not JSON is an item list too
// ("[2001:db8::10]:443, example.com"), unless its quotes show it was meant as JSON.
Result<nlohmann::json> ListFromText(const std::string& text) {
  std::string t(Trim(text));
  if (!t.empty() && t.front() == '[') {
    auto parsed = nlohmann::json::parse(t, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded() || t.find('"') != std::string::npos) {
      bool strings = parsed.is_array() &&
                     std::all_of(parsed.begin(), parsed.end(),
                                 [](const nlohmann::json& v) { return v.is_string(); });
      if (!strings) return Error("expected a JSON array of strings or comma-separated text");
      return parsed;
    }
  }
  nlohmann::json list = nlohmann::json::array();
  std::size_t start = 0;
  while (start <= t.size()) {
    std::size_t comma = t.find(',', start);
    if (comma == std::string::npos) comma = t.size();
    std::string item(Trim(std::string_view(t).substr(start, comma - start)));
    if (!item.empty()) list.push_back(item);
    start = comma + 1;
  }
  return list;
}

}  // namespace

void Problems::Add(const Error& error) {
  std::size_t start = 0;
  while (start <= error.message.size()) {
    std::size_t end = std::min(error.message.find('\n', start), error.message.size());
    if (end > start) lines_.push_back(error.message.substr(start, end - start));
    start = end + 1;
  }
}

Error Problems::ToError() const {
  std::string text;
  for (const std::string& line : lines_) text += (text.empty() ? "" : "\n") + line;
  return Error(text);
}

std::string Where(const std::string& file, const YAML::Mark& mark) {
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

const KeySpec* FindKey(std::string_view name) {
  for (const KeySpec& key : Keys()) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

Result<nlohmann::json> ValueFromYaml(const KeySpec& key, const YAML::Node& node,
                                     const std::string& file) {
  if (key.type == KeyType::kRecipes) return RecipesFromYaml(node, file);
  if (key.type == KeyType::kProjects) return ProjectsFromYaml(node, file);
  if (key.type == KeyType::kStringList) {
    if (!node.IsSequence()) return Error("expected a list of strings");
    nlohmann::json list = nlohmann::json::array();
    for (const YAML::Node& item : node) {
      if (auto text = BracketedText(item)) {
        list.push_back(*text);
        continue;
      }
      if (!item.IsScalar()) {
        return Error("item at line " + std::to_string(item.Mark().line + 1) +
                     " is not a string");
      }
      list.push_back(item.Scalar());
    }
    return list;
  }
  if (!node.IsScalar()) {
    return Error(key.type == KeyType::kBool   ? "expected true or false"
                 : key.type == KeyType::kInt  ? "expected a whole number"
                                              : "expected a string");
  }
  const std::string& text = node.Scalar();
  switch (key.type) {
    case KeyType::kString: return nlohmann::json(text);
    case KeyType::kEnum: return CheckChoice(key, text);
    case KeyType::kBool: return ParseBool(text);
    case KeyType::kInt: return ParseInt(text);
    case KeyType::kStringList:
    case KeyType::kRecipes:
    case KeyType::kProjects: break;
  }
  return Error("unsupported key type");
}

Result<nlohmann::json> ValueFromText(const KeySpec& key, const std::string& text) {
  switch (key.type) {
    case KeyType::kRecipes: return RecipesFromText(text, std::string(key.name));
    case KeyType::kProjects: return ProjectsFromText(text, std::string(key.name));
    case KeyType::kString: return nlohmann::json(text);
    case KeyType::kEnum: return CheckChoice(key, std::string(Trim(text)));
    case KeyType::kBool: return ParseBool(text);
    case KeyType::kInt: return ParseInt(text);
    case KeyType::kStringList: return ListFromText(text);
  }
  return Error("unsupported key type");
}

}  // namespace corral::policy
