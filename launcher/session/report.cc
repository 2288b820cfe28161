// corral report: a session's record (docs/events.md) summed up for a person
// or a CI job: commands run and refused, hosts reached and refused, files
// changed.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "launcher/launcher.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

namespace fs = std::filesystem;

// The record of `session` (an id or its prefix), or the newest one.
Result<std::string> FindRecord(const std::string& state_dir, const std::string& session) {
  std::string folder = state_dir + "/sessions";
  std::error_code ec;
  std::vector<fs::path> matches;
  fs::path newest;
  fs::file_time_type newest_time{};
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    fs::path path = entry.path();
    if (path.extension() != ".jsonl") continue;
    std::string id = path.stem().string();
    if (!session.empty()) {
      if (id.rfind(session, 0) == 0) matches.push_back(path);
      continue;
    }
    auto time = entry.last_write_time(ec);
    if (!ec && (newest.empty() || time > newest_time)) {
      newest = path;
      newest_time = time;
    }
  }
  if (session.empty()) {
    if (newest.empty()) return Error("no session has been recorded yet (in " + folder + ")");
    return newest.string();
  }
  if (matches.empty()) {
    return Error("no session " + session + " is recorded in " + folder +
                 " (corral report without a session shows the last one)");
  }
  if (matches.size() > 1) {
    return Error("more than one session starts with " + session + ": give more of its id");
  }
  return matches.front().string();
}

nlohmann::json Counted(const std::map<std::string, std::uint64_t>& counts) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, count] : counts) list.push_back({{"host", name}, {"count", count}});
  return list;
}

// A command line as one line of a report: newlines shown as "; ", cut at
// 120 characters (the record and --json keep it whole).
std::string OneLine(const std::string& command) {
  std::string line;
  for (char c : command) {
    if (c == '\n') {
      if (!line.empty() && line.back() != ' ') line += "; ";
    } else {
      line += c;
    }
    if (line.size() > 120) return line.substr(0, 117) + "...";
  }
  return line;
}

}  // namespace

Result<nlohmann::json> ReportSession(const std::string& state_dir, const std::string& session) {
  auto path = FindRecord(state_dir, session);
  if (!path) return path.error();
  std::ifstream in(*path);
  if (!in) return Error::FromErrno("cannot read " + *path);
  nlohmann::json report = {{"record", *path}, {"complete", false}};
  std::uint64_t run = 0, refused = 0;
  nlohmann::json refused_commands = nlohmann::json::array();
  std::map<std::string, std::uint64_t> reached, refused_hosts, stand_ins_refused;
  nlohmann::json forge_refused = nlohmann::json::array();  // each request a forge rule refused
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    auto event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object()) continue;  // a line torn by a killed corral
    std::string kind = event.value("event", "");
    if (kind == "session_started") {
      for (const char* key : {"session", "agent", "project", "command", "boxed", "why", "image",
                              "engine", "endpoint"}) {
        if (event.contains(key)) report[key] = event[key];
      }
      report["started"] = event.value("time", "");
    } else if (kind == "command") {
      if (event.value("decision", "") == "deny") {
        ++refused;
        refused_commands.push_back({{"time", event.value("time", "")},
                                    {"command", event.value("command", "")},
                                    {"entry", event.contains("entry") ? event["entry"] : nullptr},
                                    {"reason", event.value("reason", "")}});
      } else {
        ++run;
      }
    } else if (kind == "network") {
      std::string host = event.value("host", "");
      if (host.empty()) continue;
      if (event.value("decision", "") == "allow") ++reached[host];
      if (event.contains("rule") && event.value("decision", "") == "deny") {
        forge_refused.push_back({{"time", event.value("time", "")},
                                 {"host", host},
                                 {"method", event.value("method", "")},
                                 {"path", event.value("path", "")},
                                 {"repository", event.value("repository", "")},
                                 {"rule", event.value("rule", "")},
                                 {"reason", event.value("reason", "")}});
      } else if (event.contains("credential")) {
        ++stand_ins_refused[host];  // the host may well be allowed: not a refused host
      } else if (event.value("decision", "") == "deny" && event.value("status", 0) == 403) {
        ++refused_hosts[host];
      }
    } else if (kind == "session_ended") {
      report["complete"] = true;
      report["ended"] = event.value("time", "");
      for (const char* key : {"exit_status", "duration_ms", "files_changed", "error"}) {
        if (event.contains(key)) report[key] = event[key];
      }
    }
  }
  if (!report.contains("session")) {
    return Error(*path + " has no session_started event: it is not a session record");
  }
  report["commands"] = {{"run", run}, {"refused", refused}};
  report["refused_commands"] = std::move(refused_commands);
  report["hosts_reached"] = Counted(reached);
  report["hosts_refused"] = Counted(refused_hosts);
  report["forge_refused"] = std::move(forge_refused);
  report["stand_ins_refused"] = Counted(stand_ins_refused);
  return report;
}

std::string DescribeReport(const nlohmann::json& report) {
  auto text = [&](const char* key) {
    return report.contains(key) && report[key].is_string() ? report[key].get<std::string>()
                                                           : std::string("?");
  };
  std::string out = "session " + text("session") + ": " + text("agent") + " in " +
                    text("project") + " (" +
                    (report.value("boxed", false) ? "boxed" : "unboxed") + ": " + text("why") +
                    ")\n";
  out += "  started " + text("started");
  if (report.value("complete", false)) {
    long ms = report.value("duration_ms", 0L);
    out += ", ran " + std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) +
           " s, exit status " + std::to_string(report.value("exit_status", -1));
  } else {
    out += ", no end recorded (still running, or corral was killed)";
  }
  out += "\n";
  if (report.contains("error")) out += "  error: " + text("error") + "\n";
  const auto& commands = report["commands"];
  out += "  commands: " + std::to_string(commands.value("run", 0)) + " run, " +
         std::to_string(commands.value("refused", 0)) + " refused\n";
  for (const auto& refused : report["refused_commands"]) {
    out += "    refused: " + OneLine(refused.value("command", "")) + "  (" +
           refused.value("reason", "") + ")\n";
  }
  auto hosts = [](const nlohmann::json& list) {
    std::string line;
    for (const auto& host : list) {
      line += (line.empty() ? "" : ", ") + host.value("host", "") + " (" +
              std::to_string(host.value("count", 0)) + ")";
    }
    return line.empty() ? std::string("none") : line;
  };
  out += "  hosts reached: " + hosts(report["hosts_reached"]) + "\n";
  out += "  hosts refused: " + hosts(report["hosts_refused"]) + "\n";
  if (!report["stand_ins_refused"].empty()) {
    out += "  logins' stand-ins refused (sent to a host they do not belong to): " +
           hosts(report["stand_ins_refused"]) + "\n";
  }
  if (report.contains("forge_refused") && !report["forge_refused"].empty()) {
    out += "  refused by the forge's rules (docs/forge.md):\n";
    for (const auto& r : report["forge_refused"]) {
      out += "    " + r.value("time", "") + "  " + r.value("method", "") + " " + r.value("host", "") +
             r.value("path", "") + "  " + r.value("rule", "") + ": " + r.value("reason", "") + "\n";
    }
  }
  if (report.contains("files_changed") && report["files_changed"].is_array()) {
    const auto& files = report["files_changed"];
    out += "  files changed (git): " + std::to_string(files.size()) + "\n";
    for (const auto& file : files) out += "    " + file.get<std::string>() + "\n";
  } else {
    out += "  files changed: unknown (not a git work tree, or the session did not end)\n";
  }
  out += "  record: " + text("record") + "\n";
  return out;
}

}  // namespace corral::launcher
