// The record a waiting run leaves in <state>/held/<id>.json, so `corral held`,
// the inbox and `corral allow` can name it. A run killed while waiting
// leaves its record behind; readers drop records whose process is gone.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launcher/hold/hold.h"

namespace corral::launcher {
namespace {

std::string HeldDir(const std::string& state_dir) { return state_dir + "/held"; }

std::optional<HeldRun> Parse(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("folder") || !j["folder"].is_string() ||
      !j.contains("pid") || !j["pid"].is_number_integer()) {
    return std::nullopt;
  }
  HeldRun run;
  run.id = j.value("id", "");
  run.folder = j["folder"].get<std::string>();
  run.pid = j["pid"].get<int>();
  run.since = j.value("since", std::int64_t{0});
  run.pid_start = j.value("pid_start", "");
  if (j.contains("command") && j["command"].is_array()) {
    for (const auto& word : j["command"]) {
      if (word.is_string()) run.command.push_back(word);
    }
  }
  return run;
}

std::string Clock(std::int64_t when, std::int64_t now) {
  std::time_t t = when, n = now;
  std::tm at{}, today{};
  ::localtime_r(&t, &at);
  ::localtime_r(&n, &today);
  char buf[32];
  bool same_day = at.tm_year == today.tm_year && at.tm_yday == today.tm_yday;
  std::strftime(buf, sizeof buf, same_day ? "%H:%M" : "%Y-%m-%d %H:%M", &at);
  return buf;
}

}  // namespace

// Field 22 of /proc/PID/stat (after the parenthesised name, which may hold spaces).
std::string ProcessStart(int pid) {
  std::string stat = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat").value_or("");
  std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  return field;
}

std::string HeldRecordPath(const std::string& state_dir, const std::string& id) {
  return HeldDir(state_dir) + "/" + id + ".json";
}

Result<void> WriteHeldRecord(const std::string& state_dir, const HeldRun& run) {
  std::error_code ec;
  std::filesystem::create_directories(HeldDir(state_dir), ec);
  if (ec) return Error("cannot create " + HeldDir(state_dir) + ": " + ec.message());
  nlohmann::json j = {{"id", run.id},   {"folder", run.folder}, {"command", run.command},
                      {"since", run.since}, {"pid", run.pid},   {"pid_start", run.pid_start}};
  std::string path = HeldRecordPath(state_dir, run.id);
  std::ofstream out(path, std::ios::trunc);
  out << j.dump(2) << "\n";
  if (!out.flush()) return Error::FromErrno("cannot write " + path);
  return Ok();
}

Result<std::vector<HeldRun>> ListHeld(const std::string& state_dir) {
  std::vector<HeldRun> runs;
  std::string dir = HeldDir(state_dir);
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT) return runs;
    return Error::FromErrno("cannot read " + dir);
  }
  while (dirent* entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    std::string path = dir + "/" + name;
    auto run = Parse(ReadWholeFile(path).value_or(""));
    if (!run) continue;  // being written, or not ours
    if (run->pid <= 0 || ProcessStart(run->pid) != run->pid_start) {
      ::unlink(path.c_str());  // its run is gone (killed while waiting)
      continue;
    }
    runs.push_back(std::move(*run));
  }
  ::closedir(d);
  std::sort(runs.begin(), runs.end(), [](const HeldRun& a, const HeldRun& b) {
    return a.since != b.since ? a.since < b.since : a.id < b.id;
  });
  return runs;
}

std::string Tilde(const std::string& path, const std::string& home) {
  if (home.size() > 1 && path.size() > home.size() && path.compare(0, home.size(), home) == 0 &&
      path[home.size()] == '/') {
    return "~" + path.substr(home.size());
  }
  return path;
}

std::string DescribeHeld(const HeldRun& run, const std::string& home, std::int64_t now) {
  std::string command = "corral run";
  for (const auto& word : run.command) {
    bool plain = !word.empty() && word.find_first_of(" \t\n'\"\\$`;&|<>()*?") == std::string::npos;
    command += " " + (plain ? word : "'" + word + "'");
  }
  return command + " in " + Tilde(run.folder, home) + ", since " + Clock(run.since, now);
}

}  // namespace corral::launcher
