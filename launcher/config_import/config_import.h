// launcher/config_import/: another tool's sandbox settings as corral keys
// (`corral config import`): sandbox-runtime's ~/.srt-settings.json, a
// sandbox.json, Codex's config.toml. One file per source format; the merge
// into the user's config file is merge.cc. Private to launcher/.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "base/base.h"
#include "policy/config/config.h"

namespace corral::config_import {

enum class Format { kSrt, kSandboxJson, kCodex };
std::string_view FormatName(Format format);   // "srt", "sandbox-json", "codex"
std::string_view FormatTitle(Format format);  // "sandbox-runtime settings", ...
std::optional<Format> ParseFormat(std::string_view name);
// From the file's name, else from its text: TOML is Codex's; JSON with
// filesystem.allowRead is a sandbox.json, other JSON srt's.
Format DetectFormat(const std::string& path, const std::string& text);

// One corral key the import sets, and the settings it came from.
struct Assignment {
  std::string key;                // "network.allowed_domains"
  nlohmann::json value;           // a list of strings, a string or a bool
  std::vector<std::string> from;  // "network.allowedDomains (line 3)"
};

enum class NoteKind {
  kNoMeaning,      // nothing to carry over: corral's box already does it, or the
                   // setting is the tool's own business
  kNotTranslated,  // it concerns the sandbox, but corral cannot say it: the box differs
  kUnknown,        // not a setting of that tool the importer knows: never guessed
};
std::string_view NoteKindName(NoteKind kind);

struct Note {
  NoteKind kind;
  std::string setting;  // "filesystem.denyWrite", with the value when short
  std::string where;    // "line 7" ("" when the parser gives no position)
  std::string reason;
};

struct Translation {
  Format format = Format::kSrt;
  std::vector<Assignment> assignments;
  std::vector<Note> notes;

  // Adds list entries to `key` (made when absent), skipping duplicates.
  void Append(const std::string& key, const std::vector<std::string>& entries,
              const std::string& from);
  void Set(const std::string& key, nlohmann::json value, const std::string& from);
  void Add(NoteKind kind, std::string setting, std::string where, std::string reason);
  const Assignment* Find(const std::string& key) const;
  // Nothing was left out that concerns the sandbox (no kNotTranslated, no kUnknown).
  bool Complete() const;
};

// What the importers need from the machine; tests give their own.
struct ImportOptions {
  std::string home;  // for "~/x"
  std::function<bool(const std::string& path)> exists;  // defaults to the file system
};

// Reads `text` (the contents of `path`) as `format`. A file that is not valid
// JSON/TOML, or a known key of the wrong type, is an error naming the file,
// line, column and key; what cannot be translated is a note, not an error.
Result<Translation> Translate(const std::string& path, const std::string& text, Format format,
                              const ImportOptions& options);

// The importers (one file each).
Result<Translation> ImportSrt(const std::string& path, const std::string& text,
                              const ImportOptions& options);
Result<Translation> ImportSandboxJson(const std::string& path, const std::string& text,
                                      const ImportOptions& options);
Result<Translation> ImportCodex(const std::string& path, const std::string& text,
                                const ImportOptions& options);

// A JSON value (string, bool, list) as a YAML node, lists in block style.
YAML::Node ToYaml(const nlohmann::json& value);

// Keys as YAML for corral's config file; the notes as one comment line each.
std::string RenderYaml(const std::vector<Assignment>& assignments);
std::string RenderNotes(const Translation& translation);

// ---------------------------------------------------------------- merge

// What happened to one key when merged into the user's config file.
struct KeyOutcome {
  std::string key;
  enum Kind { kNew, kAdded, kAlreadySet, kKeptExisting } kind;
  std::string detail;  // one line, for people
};

struct MergeResult {
  std::string config_path;
  std::vector<KeyOutcome> outcomes;
  bool changed = false;      // the file would be (or was) written
  bool conflicts = false;    // a value already set was kept over the import's
  std::string backup_path;   // the old file's copy ("" when none was needed)
  std::string merged_text;   // the file's new contents
  // The imported keys as the file will hold them (merged lists, kept values).
  std::vector<Assignment> written;
};

// Merges the translation into the YAML config at `config_path` (which may not
// exist yet): lists get the new entries appended, a value already set is kept
// and reported. Refuses a config corral cannot load, or a JSON one.
Result<MergeResult> PlanMerge(const Translation& translation, const std::string& config_path);

// Writes the plan: the old file is copied to FILE.bak (or FILE.bak.N) first,
// the new one is renamed into place, and it must load with corral's own
// loader, else the old file is put back.
Result<void> WriteMerge(MergeResult& merge);

// The config file alone, without the environment: what the import merges into.
Result<policy::Policy> LoadFileOnly(const std::string& path);

// ---------------------------------------------------------------- shared by the importers

// A path the other tool lets the box write or read, as corral sees it.
enum class PathUse { kWrite, kRead };
void TranslateHostPath(const std::string& setting, const std::string& where,
                       const std::string& path, PathUse use, const ImportOptions& options,
                       Translation& out);

// An entry of a deny-read list: inside the project it becomes a
// filesystem.deny_read pattern; outside it, the box does not see it unless the
// import mounts it (checked by FinishDenyPaths, once every key is read).
struct OutsidePath {
  std::string setting, where, path;  // path expanded
  bool deny_write = false;
};
void TranslateDenyRead(const std::string& setting, const std::string& where,
                       const std::string& path, const ImportOptions& options, Translation& out,
                       std::vector<OutsidePath>& outside);
void TranslateDenyWrite(const std::string& setting, const std::string& where,
                        const std::string& path, const ImportOptions& options, Translation& out,
                        std::vector<OutsidePath>& outside);
void FinishDenyPaths(const std::vector<OutsidePath>& outside, Translation& out);

// network.allowedDomains/deniedDomains entries, each checked by corral's own rules.
void TranslateDomains(const std::string& setting, const std::string& where,
                      const std::vector<std::string>& domains, bool denied, Translation& out);

// srt's settings and a sandbox.json are JSON of nearly one shape: a table of
// rules per format, read by one reader (json_settings.cc).
struct JsonSetting {
  std::string key;  // "network.allowedDomains"
  nlohmann::ordered_json value;  // in the file's order
  std::string where;  // "line 3"
};
struct JsonContext {
  const ImportOptions& options;
  Translation& out;
  std::vector<OutsidePath> outside;
};
enum class JsonType { kStringList, kBool, kInt, kObject };
struct JsonRule {
  std::string_view key;
  JsonType type;
  std::function<void(const JsonSetting&, JsonContext&)> apply;
};
// `schema` says where the tool's settings are documented, for unknown keys.
Result<Translation> TranslateJson(const std::string& path, const std::string& text, Format format,
                                  const std::vector<JsonRule>& rules, std::string_view schema,
                                  const ImportOptions& options);
// The rules srt and sandbox.json share (network and filesystem), and one for
// a setting that has no corral meaning.
std::vector<JsonRule> SharedSandboxRules();
JsonRule NoMeaningRule(std::string_view key, JsonType type, std::string reason);
// "true"/"false", a string quoted, a list shortened: for a note's setting.
std::string ShortValue(const nlohmann::ordered_json& value);

}  // namespace corral::config_import
