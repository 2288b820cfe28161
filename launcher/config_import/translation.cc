// The translation's bookkeeping, format detection and the printed form.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kSrt: return "srt";
    case Format::kSandboxJson: return "sandbox-json";
    case Format::kCodex: return "codex";
  }
  return "?";
}

std::string_view FormatTitle(Format format) {
  switch (format) {
    case Format::kSrt: return "sandbox-runtime settings";
    case Format::kSandboxJson: return "sandbox.json";
    case Format::kCodex: return "Codex config.toml";
  }
  return "?";
}

std::optional<Format> ParseFormat(std::string_view name) {
  for (Format format : {Format::kSrt, Format::kSandboxJson, Format::kCodex}) {
    if (name == FormatName(format)) return format;
  }
  return std::nullopt;
}

std::string_view NoteKindName(NoteKind kind) {
  switch (kind) {
    case NoteKind::kNoMeaning: return "no corral meaning";
    case NoteKind::kNotTranslated: return "not translated";
    case NoteKind::kUnknown: return "unknown";
  }
  return "?";
}

Format DetectFormat(const std::string& path, const std::string& text) {
  std::string name = path.substr(path.rfind('/') + 1);
  if (name.ends_with(".toml")) return Format::kCodex;
  if (name.find("srt") != std::string::npos) return Format::kSrt;
  if (name == "sandbox.json") return Format::kSandboxJson;
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '{') return Format::kCodex;
  // Only a sandbox.json has allowRead; the two shapes share the rest.
  return text.find("\"allowRead\"") != std::string::npos ? Format::kSandboxJson : Format::kSrt;
}

void Translation::Append(const std::string& key, const std::vector<std::string>& entries,
                         const std::string& from) {
  auto it = std::find_if(assignments.begin(), assignments.end(),
                         [&](const Assignment& a) { return a.key == key; });
  if (it == assignments.end()) {
    assignments.push_back({key, nlohmann::json::array(), {}});
    it = assignments.end() - 1;
  }
  for (const std::string& entry : entries) {
    if (std::find(it->value.begin(), it->value.end(), entry) == it->value.end()) {
      it->value.push_back(entry);
    }
  }
  if (std::find(it->from.begin(), it->from.end(), from) == it->from.end()) it->from.push_back(from);
}

void Translation::Set(const std::string& key, nlohmann::json value, const std::string& from) {
  assignments.push_back({key, std::move(value), {from}});
}

void Translation::Add(NoteKind kind, std::string setting, std::string where, std::string reason) {
  notes.push_back({kind, std::move(setting), std::move(where), std::move(reason)});
}

const Assignment* Translation::Find(const std::string& key) const {
  for (const Assignment& a : assignments) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

bool Translation::Complete() const {
  return std::none_of(notes.begin(), notes.end(),
                      [](const Note& n) { return n.kind != NoteKind::kNoMeaning; });
}

Result<Translation> Translate(const std::string& path, const std::string& text, Format format,
                              const ImportOptions& options) {
  switch (format) {
    case Format::kSrt: return ImportSrt(path, text, options);
    case Format::kSandboxJson: return ImportSandboxJson(path, text, options);
    case Format::kCodex: return ImportCodex(path, text, options);
  }
  return Error("unknown format");
}

YAML::Node ToYaml(const nlohmann::json& value) {
  if (value.is_array()) {
    YAML::Node list(YAML::NodeType::Sequence);
    for (const auto& item : value) list.push_back(ToYaml(item));
    return list;
  }
  if (value.is_boolean()) return YAML::Node(value.get<bool>());
  if (value.is_string()) return YAML::Node(value.get<std::string>());
  return YAML::Node(value.dump());
}

std::string RenderYaml(const std::vector<Assignment>& assignments) {
  if (assignments.empty()) return "";
  YAML::Node root(YAML::NodeType::Map);
  for (const Assignment& a : assignments) {
    YAML::Node node = ToYaml(a.value);
    std::string_view key = a.key;
    auto dot = key.find('.');
    if (dot == std::string_view::npos) {
      root[a.key] = node;
    } else {
      root[std::string(key.substr(0, dot))][std::string(key.substr(dot + 1))] = node;
    }
  }
  YAML::Emitter out;
  out.SetSeqFormat(YAML::Block);
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string RenderNotes(const Translation& translation) {
  std::ostringstream out;
  for (const Note& note : translation.notes) {
    out << "# " << NoteKindName(note.kind) << ": " << note.setting;
    if (!note.where.empty()) out << " (" << note.where << ")";
    out << ": " << note.reason << "\n";
  }
  return out.str();
}

}  // namespace corral::config_import
