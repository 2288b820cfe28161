// The folders corral knows, in one small JSON file in corral's state folder:
// read on every run's start (it must stay cheap), written rarely (corral
// allow, an attended session in a new folder) under a lock, replaced whole (state_json.cc).
#include <algorithm>

#include "base/paths.h"
#include "launcher/hold/hold.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

std::vector<std::string> Strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key) || !j[key].is_array()) return out;
  for (const auto& item : j[key]) {
    if (item.is_string() && !item.get<std::string>().empty()) out.push_back(item);
  }
  return out;
}

Result<KnownFolders> Parse(const std::string& path, const nlohmann::json& j) {
  if (j.is_null()) return KnownFolders{};  // none yet
  if (!j.is_object()) {
    return Error(path + " is not the JSON object corral writes: fix or remove it "
                        "(corral allow DIR writes a new one)");
  }
  return KnownFolders{Strings(j, "allowed"), Strings(j, "attended")};
}

}  // namespace

bool IsKnown(const KnownFolders& known, const std::string& folder) {
  for (const auto& dir : known.allowed) {
    if (IsWithin(folder, dir)) return true;
  }
  return std::find(known.attended.begin(), known.attended.end(), folder) != known.attended.end();
}

std::string KnownFoldersPath(const std::string& state_dir) {
  return state_dir + "/known-folders.json";
}

Result<KnownFolders> ReadKnownFolders(const std::string& state_dir) {
  const std::string path = KnownFoldersPath(state_dir);
  auto j = ReadStateJson(path);
  if (!j) return j.error();
  return Parse(path, *j);
}

Result<void> UpdateKnownFolders(const std::string& state_dir,
                                const std::function<bool(KnownFolders&)>& change) {
  const std::string path = KnownFoldersPath(state_dir);
  return UpdateStateJson(path, [&](nlohmann::json& j) -> Result<bool> {
    auto known = Parse(path, j);
    if (!known) return known.error();
    if (!change(*known)) return false;
    j = {{"allowed", known->allowed}, {"attended", known->attended}};
    return true;
  });
}

}  // namespace corral::launcher
