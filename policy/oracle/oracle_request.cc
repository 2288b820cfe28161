#include "policy/oracle/oracle_request.h"

namespace corral::policy {
namespace {

// The usual line, or false to have nlohmann::json read it.
bool ReadUsual(std::string_view line, OracleRequest& request) {
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < line.size() && IsJsonSpace(line[i])) ++i;
  };
  auto take = [&](char c) {
    skip_space();
    if (i >= line.size() || line[i] != c) return false;
    ++i;
    return true;
  };
  if (!take('{')) return false;
  bool v = false, shell = false, command = false, cwd = false;
  std::string key;
  do {
    skip_space();
    if (!ReadPlainJsonString(line, i, key) || !take(':')) return false;
    skip_space();
    bool* seen = key == "v"         ? &v
                 : key == "shell"   ? &shell
                 : key == "command" ? &command
                 : key == "cwd"     ? &cwd
                                    : nullptr;
    if (seen == nullptr || *seen) return false;  // another key, or one twice
    *seen = true;
    if (seen == &v) {
      if (line.substr(i, 1) != "1") return false;
      ++i;
      if (i < line.size() && !IsJsonSpace(line[i]) && line[i] != ',' && line[i] != '}') {
        return false;  // 10, 1.5, 1e3: a number to read properly
      }
      continue;
    }
    std::string& value = seen == &shell ? request.shell
                         : seen == &command ? request.command
                                            : request.cwd;
    if (!ReadPlainJsonString(line, i, value)) return false;
  } while (take(','));
  if (!take('}')) return false;
  skip_space();
  if (i != line.size() || !v || !command) return false;
  request.kind = OracleRequest::Kind::kCommand;
  return true;
}

std::string StringOr(const nlohmann::json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

// `v` as nlohmann::json's value("v", 0) read it (a number or a boolean,
// converted), without its exception for other types: those are not 1.
bool VersionIsOne(const nlohmann::json& object) {
  auto found = object.find("v");
  if (found == object.end()) return false;
  if (found->is_number() || found->is_boolean()) return found->get<int>() == 1;
  return false;
}

}  // namespace

OracleRequest ReadOracleRequest(std::string_view line) {
  OracleRequest request;
  if (ReadUsual(line, request)) return request;
  request = OracleRequest();
  auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return request;
  if (json.contains("ask") && json["ask"] == "watching") {
    request.kind = OracleRequest::Kind::kWatching;
    return request;
  }
  auto command = json.find("command");
  if (!VersionIsOne(json) || command == json.end() || !command->is_string()) return request;
  request.kind = OracleRequest::Kind::kCommand;
  request.command = command->get<std::string>();
  request.shell = StringOr(json, "shell");
  request.cwd = StringOr(json, "cwd");
  if (json.contains("program")) request.program = json["program"];
  return request;
}

}  // namespace corral::policy
