// The folders corral knows, in one small JSON file in corral's state folder:
// read on every run's start (it must stay cheap), written rarely (corral
// allow, an attended session in a new folder) under a lock, replaced whole.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

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

Result<KnownFolders> Parse(const std::string& path, const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) {
    return Error(path + " is not the JSON object corral writes: fix or remove it "
                        "(corral allow DIR writes a new one)");
  }
  return KnownFolders{Strings(j, "allowed"), Strings(j, "attended")};
}

Result<KnownFolders> ReadFrom(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    if (errno == ENOENT) return KnownFolders{};
    return Error::FromErrno("cannot read " + path);
  }
  std::stringstream text;
  text << in.rdbuf();
  return Parse(path, text.str());
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
  return ReadFrom(KnownFoldersPath(state_dir));
}

Result<void> UpdateKnownFolders(const std::string& state_dir,
                                const std::function<bool(KnownFolders&)>& change) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) return Error("cannot create " + state_dir + ": " + ec.message());
  const std::string path = KnownFoldersPath(state_dir);
  const std::string lock_path = path + ".lock";
  UniqueFd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!lock.valid()) return Error::FromErrno("cannot open " + lock_path);
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return Error::FromErrno("cannot lock " + lock_path);
  }
  auto known = ReadFrom(path);
  if (!known) return known.error();
  if (!change(*known)) return Ok();
  nlohmann::json j = {{"allowed", known->allowed}, {"attended", known->attended}};
  // Written beside it and renamed: a reader sees the old file or the new one.
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << j.dump(2) << "\n";
    if (!out.flush()) return Error::FromErrno("cannot write " + temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) return Error::FromErrno("cannot replace " + path);
  return Ok();
}

}  // namespace corral::launcher
