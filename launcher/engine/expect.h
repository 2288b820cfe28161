// Private to launcher/engine/: what every engine call shares: a path
// segment escaped, and an answer judged (the engine's own message on error).
#pragma once

#include <string>

#include "launcher/engine/engine.h"

namespace corral::launcher {

// RFC 3986's percent-encoding: all but letters, digits and -._~ (as curl_escape).
inline std::string Escape(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The engine's own message from an error body ({"message": "..."}), else the body.
inline std::string EngineMessage(const HttpResponse& response) {
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  if (json.is_object() && json.contains("message") && json["message"].is_string()) {
    return json["message"].get<std::string>();
  }
  std::string body = response.body.substr(0, 300);
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  return body;
}

// Podman 4 reads the user's subordinate ids through shadow's libsubid, which
// keeps its open file in globals: two keep-id creates at once in one rootless
// service can fail with "keep-id requires additional UIDs or GIDs defined in
// /etc/subuid and /etc/subgid" although the user has both (eight creates at
// once on this machine: 3 of 120 failed so). Such a create may be tried again.
inline bool SubidRace(const HttpResponse& response) {
  return response.status == 500 &&
         EngineMessage(response).find("keep-id requires additional UIDs or GIDs") !=
             std::string::npos;
}

inline Result<void> Expect(const Result<HttpResponse>& response, const std::string& what) {
  if (!response) return response.error().Context(what);
  if (response->status >= 300 && response->status != 304) {
    return Error(what + ": " + EngineMessage(*response) + " (HTTP " +
                 std::to_string(response->status) + ")");
  }
  return Ok();
}

// The volumes in a GET /volumes answer (Docker's and Podman's compat API:
// {"Volumes": [...] or null, "Warnings": ...}); none for null.
inline Result<nlohmann::json> VolumesIn(const Result<HttpResponse>& response) {
  if (auto ok = Expect(response, "list volumes"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object()) return Error("list volumes: the answer is not JSON");
  const auto& volumes = json.value("Volumes", nlohmann::json());
  return volumes.is_array() ? volumes : nlohmann::json::array();
}

}  // namespace corral::launcher
