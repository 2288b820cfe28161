// Writing a merged config: beside the old one first, checked with corral's own
// loader, the old file copied aside, then renamed into place.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

namespace fs = std::filesystem;

Result<void> WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
  if (!fd.valid()) return Error::FromErrno("cannot write " + path);
  if (!WriteAll(fd.get(), text.data(), text.size()) || ::fsync(fd.get()) != 0) {
    return Error::FromErrno("cannot write " + path);
  }
  return Ok();
}

// FILE.bak, else FILE.bak.1, .2, ...: an older backup is never overwritten.
std::string FreeBackupName(const std::string& path) {
  std::error_code ec;
  std::string name = path + ".bak";
  for (int n = 1; fs::exists(name, ec); ++n) name = path + ".bak." + std::to_string(n);
  return name;
}

// Every key the import does not touch must read the same after the rewrite
// (yaml-cpp re-emits the whole file).
Result<void> SameOtherKeys(const policy::Policy& before, const policy::Policy& after,
                           const MergeResult& merge) {
  for (const auto& [key, setting] : before.settings) {
    bool imported = std::any_of(merge.written.begin(), merge.written.end(),
                                [&](const Assignment& a) { return a.key == key; });
    if (!imported && after.settings.at(key).value != setting.value) {
      return Error("rewriting the file would change " + key + "; nothing was written: add the "
                   "keys printed above by hand");
    }
  }
  return Ok();
}

}  // namespace

Result<void> WriteMerge(MergeResult& merge) {
  const std::string& path = merge.config_path;
  std::error_code ec;
  bool exists = fs::exists(path, ec);
  mode_t mode = 0600;
  struct stat st {};
  if (exists && ::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;
  fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::exists(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec) return Error("cannot make " + folder.string() + ": " + ec.message());
  }

  std::string temp = path + ".import-" + std::to_string(::getpid());
  if (auto ok = WriteFile(temp, merge.merged_text, mode); !ok) return ok.error();
  auto remove_temp = [&] { fs::remove(temp, ec); };
  auto after = LoadFileOnly(temp);
  if (!after) {
    remove_temp();
    return after.error().Context("the merged config did not load; nothing was written");
  }
  if (exists) {
    auto before = LoadFileOnly(path);
    if (!before) {
      remove_temp();
      return before.error().Context("cannot merge into " + path);
    }
    if (auto same = SameOtherKeys(*before, *after, merge); !same) {
      remove_temp();
      return same.error();
    }
    merge.backup_path = FreeBackupName(path);
    fs::copy_file(path, merge.backup_path, ec);
    if (ec) {
      remove_temp();
      return Error("cannot keep a backup of " + path + " at " + merge.backup_path + ": " +
                   ec.message() + "; nothing was written");
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    auto error = Error::FromErrno("cannot replace " + path);
    remove_temp();
    return error;
  }
  return Ok();
}

}  // namespace corral::config_import
