// Small JSON files in corral's state folder that several corral processes
// update (known folders, per-project hosts, refused hosts): read whole,
// changed under a lock, replaced whole.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "launcher/plan/plan.h"

namespace corral::launcher {

Result<nlohmann::json> ReadStateJson(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) return IsMissing(text.error()) ? Result<nlohmann::json>(nullptr) : text.error();
  return nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
}

Result<void> UpdateStateJson(const std::string& path,
                             const std::function<Result<bool>(nlohmann::json&)>& change) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) return Error("cannot create the folder of " + path + ": " + ec.message());
  // One writer at a time: two corral processes must not lose each other's entries.
  auto lock = OpenLocked(path + ".lock");
  if (!lock) return lock.error();
  auto value = ReadStateJson(path);
  if (!value) return value.error();
  auto changed = change(*value);
  if (!changed) return changed.error();
  if (!*changed) return Ok();
  return ReplaceFile(path, value->dump(2) + "\n");
}

}  // namespace corral::launcher
