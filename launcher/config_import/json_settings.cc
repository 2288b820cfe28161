// The reader for JSON settings files (srt's and sandbox.json): strict JSON
// through nlohmann (as the tools themselves parse it), positions of keys
// through yaml-cpp (JSON is YAML, and yaml-cpp keeps a mark on every node).
#include <yaml-cpp/yaml.h>

#include <set>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

// 1-based line and column of a byte offset.
std::pair<std::size_t, std::size_t> LineColumn(const std::string& text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

std::string ParseErrorMessage(const std::string& path, const std::string& text,
                              const nlohmann::json::parse_error& e) {
  auto [line, column] = LineColumn(text, e.byte == 0 ? 0 : e.byte - 1);
  std::string what = e.what();
  // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 3, column 5: ".
  for (std::string_view cut : {"column ", "] "}) {
    auto at = what.find(cut);
    if (at == std::string::npos) continue;
    auto colon = what.find(": ", at);
    if (colon != std::string::npos) {
      what = what.substr(colon + 2);
      break;
    }
  }
  return path + ":" + std::to_string(line) + ":" + std::to_string(column) +
         ": not valid JSON: " + what;
}

// The mark of `key` in a YAML mapping, as "line:column" parts (1-based).
std::optional<YAML::Mark> KeyMark(const YAML::Node& map, const std::string& key) {
  if (!map || !map.IsMap()) return std::nullopt;
  for (const auto& pair : map) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key) return pair.first.Mark();
  }
  return std::nullopt;
}

struct Located {
  std::string where;     // "line 3"
  std::string location;  // "path:3:5", for errors
};

Located Locate(const std::string& path, const std::optional<YAML::Mark>& mark) {
  if (!mark || mark->line < 0) return {"", path};
  std::string line = std::to_string(mark->line + 1);
  return {"line " + line, path + ":" + line + ":" + std::to_string(mark->column + 1)};
}

std::string_view TypeName(JsonType type) {
  switch (type) {
    case JsonType::kStringList: return "a list of strings";
    case JsonType::kBool: return "true or false";
    case JsonType::kInt: return "a whole number";
    case JsonType::kObject: return "an object";
  }
  return "?";
}

bool HasType(const nlohmann::ordered_json& value, JsonType type) {
  switch (type) {
    case JsonType::kStringList:
      if (!value.is_array()) return false;
      for (const auto& item : value) {
        if (!item.is_string()) return false;
      }
      return true;
    case JsonType::kBool: return value.is_boolean();
    case JsonType::kInt: return value.is_number_integer();
    case JsonType::kObject: return value.is_object();
  }
  return false;
}

}  // namespace

std::string ShortValue(const nlohmann::ordered_json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

JsonRule NoMeaningRule(std::string_view key, JsonType type, std::string reason) {
  return {key, type, [reason](const JsonSetting& s, JsonContext& c) {
            c.out.Add(NoteKind::kNoMeaning, s.key + " = " + ShortValue(s.value), s.where, reason);
          }};
}

Result<Translation> TranslateJson(const std::string& path, const std::string& text, Format format,
                                  const std::vector<JsonRule>& rules, std::string_view schema,
                                  const ImportOptions& options) {
  nlohmann::ordered_json root;
  try {
    root = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Error(ParseErrorMessage(path, text, e));
  }
  YAML::Node marks;
  try {
    marks = YAML::Load(text);
  } catch (const YAML::Exception&) {
    // Valid JSON yaml-cpp cannot read: errors then name the key without a line.
  }
  if (!root.is_object()) {
    return Error(path + ":1:1: the settings must be a JSON object ({...}), found " +
                 std::string(root.type_name()));
  }

  // Sections are the first part of the rules' dotted keys ("network").
  std::set<std::string> sections;
  for (const JsonRule& rule : rules) {
    auto dot = rule.key.find('.');
    if (dot != std::string_view::npos) sections.insert(std::string(rule.key.substr(0, dot)));
  }

  Translation out;
  out.format = format;
  JsonContext context{options, out, {}};
  auto apply = [&](const std::string& key, const nlohmann::ordered_json& value,
                   const Located& at) -> Result<void> {
    for (const JsonRule& rule : rules) {
      if (rule.key != key) continue;
      if (!HasType(value, rule.type)) {
        return Error(at.location + ": " + key + ": expected " + std::string(TypeName(rule.type)) +
                     ", found " + ShortValue(value));
      }
      rule.apply({key, value, at.where}, context);
      return Ok();
    }
    out.Add(NoteKind::kUnknown, key, at.where,
            "not a " + std::string(FormatTitle(format)) + " setting the importer knows (" +
                std::string(schema) + "); left out");
    return Ok();
  };

  for (const auto& [name, value] : root.items()) {
    Located at = Locate(path, KeyMark(marks, name));
    if (!sections.count(name)) {
      if (auto ok = apply(name, value, at); !ok) return ok.error();
      continue;
    }
    if (!value.is_object()) {
      return Error(at.location + ": " + name + ": expected an object of " + name +
                   " settings, found " + ShortValue(value));
    }
    const YAML::Node& const_marks = marks;  // const: a lookup must not add the key
    YAML::Node section_marks = marks && marks.IsMap() ? const_marks[name] : YAML::Node();
    for (const auto& [inner, inner_value] : value.items()) {
      Located inner_at = Locate(path, KeyMark(section_marks, inner));
      if (auto ok = apply(name + "." + inner, inner_value, inner_at); !ok) return ok.error();
    }
  }
  FinishDenyPaths(context.outside, out);
  return out;
}

}  // namespace corral::config_import
