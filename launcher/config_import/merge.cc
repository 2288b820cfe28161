// Merging a translation into the user's config file: the import only adds.
// Lists are merged into what corral uses now (the file's list, else the
// built-in default); a value the file already sets is kept and reported.
#include <algorithm>
#include <filesystem>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

namespace fs = std::filesystem;

const policy::KeySpec* FindSpec(const std::string& key) {
  for (const policy::KeySpec& spec : policy::Keys()) {
    if (spec.name == key) return &spec;
  }
  return nullptr;
}

// Where the file keeps `key`: a dotted top-level key when it uses one, else nested.
void SetNode(YAML::Node& root, const std::string& key, const YAML::Node& value) {
  auto dot = key.find('.');
  const YAML::Node& lookup = root;  // const: a lookup must not add the key
  if (dot == std::string::npos || lookup[key]) {
    root[key] = value;
    return;
  }
  YAML::Node section = root[key.substr(0, dot)];
  section[key.substr(dot + 1)] = value;
}

std::string Entries(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " entry" : " entries");
}

void MergeList(const Assignment& a, const policy::Setting& now, YAML::Node& root,
               MergeResult& result) {
  auto base = now.value.get<std::vector<std::string>>();
  std::vector<std::string> added;
  for (const auto& entry : a.value) {
    auto text = entry.get<std::string>();
    if (std::find(base.begin(), base.end(), text) == base.end() &&
        std::find(added.begin(), added.end(), text) == added.end()) {
      added.push_back(text);
    }
  }
  bool in_file = now.origin == policy::Origin::kFile;
  std::string whose = in_file ? "the file's list (" + now.where + ")" : "corral's default list";
  std::vector<std::string> merged = base;
  merged.insert(merged.end(), added.begin(), added.end());
  if (added.empty()) {
    result.outcomes.push_back(
        {a.key, KeyOutcome::kAlreadySet, "already has every entry: " + whose});
  } else {
    SetNode(root, a.key, ToYaml(merged));
    result.changed = true;
    result.outcomes.push_back(
        {a.key, in_file ? KeyOutcome::kAdded : KeyOutcome::kNew,
         Entries(added.size()) + " added to " + whose + " (" + Entries(base.size()) + ")"});
  }
  result.written.push_back({a.key, merged, a.from});
}

void MergeValue(const Assignment& a, const policy::Setting& now, YAML::Node& root,
                MergeResult& result) {
  if (now.origin != policy::Origin::kFile) {
    SetNode(root, a.key, ToYaml(a.value));
    result.changed = true;
    result.outcomes.push_back({a.key, KeyOutcome::kNew, "set to " + a.value.dump()});
    result.written.push_back(a);
    return;
  }
  if (now.value == a.value) {
    result.outcomes.push_back({a.key, KeyOutcome::kAlreadySet,
                               "already " + a.value.dump() + " (" + now.where + ")"});
  } else {
    result.conflicts = true;
    result.outcomes.push_back({a.key, KeyOutcome::kKeptExisting,
                               "already set to " + now.value.dump() + " (" + now.where +
                                   "); kept: the import says " + a.value.dump() +
                                   ", change it by hand if you want that"});
  }
  result.written.push_back({a.key, now.value, {now.where}});
}

}  // namespace

Result<policy::Policy> LoadFileOnly(const std::string& path) {
  policy::LoadOptions options;
  options.config_path = path;
  options.getenv = [](const char*) -> const char* { return nullptr; };
  return policy::Load(options);
}

Result<MergeResult> PlanMerge(const Translation& translation, const std::string& config_path) {
  if (config_path.empty()) {
    return Error("no config file can be named (HOME is not set): name one with --config FILE");
  }
  MergeResult result;
  result.config_path = config_path;
  std::error_code ec;
  bool exists = fs::exists(config_path, ec);
  if (exists && config_path.ends_with(".json")) {
    return Error(config_path + " is JSON, and --write writes YAML: copy the keys printed "
                 "above into it by hand, or name a YAML file with --config");
  }
  auto now = LoadFileOnly(exists ? config_path : "/dev/null");
  if (!now) {
    return now.error().Context("cannot merge into " + config_path +
                               " while corral cannot read it; fix it first (corral config check)");
  }
  YAML::Node root(YAML::NodeType::Map);
  if (exists) {
    try {
      YAML::Node loaded = YAML::Load(ReadWholeFile(config_path).value_or(""));
      if (loaded && loaded.IsMap()) root = loaded;
    } catch (const YAML::Exception& e) {
      return Error(config_path + ": " + e.msg);  // Load above read it; this is unexpected
    }
  }
  for (const Assignment& a : translation.assignments) {
    const policy::KeySpec* spec = FindSpec(a.key);
    if (!spec) return Error("internal: the import names no corral key '" + a.key + "'");
    const policy::Setting& setting = now->settings.at(a.key);
    if (spec->type == policy::KeyType::kStringList) MergeList(a, setting, root, result);
    else MergeValue(a, setting, root, result);
  }
  YAML::Emitter out;
  out.SetSeqFormat(YAML::Block);
  out << root;
  result.merged_text = std::string(out.c_str()) + "\n";
  return result;
}

}  // namespace corral::config_import
