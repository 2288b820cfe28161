// The engine calls a session makes. Compat (Docker) endpoints serve both
// engines except create and wait, which use libpod's on Podman.
#include <curl/curl.h>

#include <cstdio>
#include <memory>

#include "launcher/engine.h"

namespace corral::launcher {
namespace {

constexpr const char* kLibpod = "/v4.0.0/libpod";

std::string Escape(const std::string& text) {
  std::unique_ptr<char, void (*)(void*)> out(curl_escape(text.c_str(), static_cast<int>(text.size())),
                                             curl_free);
  return out ? out.get() : text;
}

// The engine's own message from an error body ({"message": "..."}), else the body.
std::string EngineMessage(const HttpResponse& response) {
  auto json = nlohmann::json::parse(response.body, nullptr, false);
  if (json.is_object() && json.contains("message") && json["message"].is_string()) {
    return json["message"].get<std::string>();
  }
  std::string body = response.body.substr(0, 300);
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  return body;
}

Result<void> Expect(const Result<HttpResponse>& response, const std::string& what) {
  if (!response) return response.error().Context(what);
  if (response->status >= 300 && response->status != 304) {
    return Error(what + ": " + EngineMessage(*response) + " (HTTP " +
                 std::to_string(response->status) + ")");
  }
  return Ok();
}

}  // namespace

Result<HttpResponse> Engine::Call(const std::string& method, const std::string& path,
                                  const std::string& body, long timeout_ms) {
  std::string full = path.rfind("/v4.0.0/", 0) == 0 ? path : api_ + path;
  return HttpRequest(endpoint_, method, full, body, timeout_ms);
}

Result<bool> Engine::ImageExists(const std::string& image) {
  auto response = Call("GET", "/images/" + Escape(image) + "/json", "", 10000);
  if (!response) return response.error().Context("image inspect");
  if (response->status == 404) return false;
  if (auto ok = Expect(response, "image inspect " + image); !ok) return ok.error();
  return true;
}

Result<void> Engine::Pull(const std::string& image) {
  std::string name = image, tag = "latest";
  auto colon = image.rfind(':');
  if (colon != std::string::npos && image.find('/', colon) == std::string::npos) {
    name = image.substr(0, colon);
    tag = image.substr(colon + 1);
  }
  std::fprintf(stderr, "corral: pulling %s (once)\n", image.c_str());
  auto response = Call("POST", "/images/create?fromImage=" + Escape(name) + "&tag=" + Escape(tag));
  if (auto ok = Expect(response, "pull " + image); !ok) return ok;
  // The stream is JSON lines; an error arrives as {"error": ...} with status 200.
  std::size_t start = 0;
  const std::string& body = response->body;
  while (start < body.size()) {
    std::size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    auto line = nlohmann::json::parse(body.substr(start, end - start), nullptr, false);
    if (line.is_object() && line.contains("error")) {
      return Error("pull " + image + ": " + line["error"].dump());
    }
    start = end + 1;
  }
  return Ok();
}

Result<void> Engine::ImportRootfs(const std::string& tar_path, const std::string& reference) {
  std::string path;
  if (podman_) {
    path = std::string(kLibpod) + "/images/import?reference=" + Escape(reference);
  } else {
    auto colon = reference.rfind(':');
    std::string repo = colon == std::string::npos ? reference : reference.substr(0, colon);
    std::string tag = colon == std::string::npos ? "latest" : reference.substr(colon + 1);
    path = api_ + "/images/create?fromSrc=-&repo=" + Escape(repo) + "&tag=" + Escape(tag);
  }
  return Expect(HttpUploadFile(endpoint_, path, tar_path, "application/x-tar"),
                "import " + tar_path);
}

Result<std::string> Engine::Create(const SessionPlan& plan) {
  auto response = podman_ ? Call("POST", std::string(kLibpod) + "/containers/create",
                                 libpod::Render(plan).dump())
                          : Call("POST", "/containers/create?name=" + Escape(plan.container_name),
                                 docker::Render(plan).dump());
  if (auto ok = Expect(response, "create the box"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object() || !json.contains("Id")) return Error("create the box: no Id in answer");
  for (const auto& warning : json.value("Warnings", nlohmann::json::array())) {
    if (warning.is_string()) log::warn("engine: {}", warning.get<std::string>());
  }
  return json["Id"].get<std::string>();
}

Result<void> Engine::Start(const std::string& id) {
  return Expect(Call("POST", "/containers/" + id + "/start"), "start the box");
}

Result<RawConnection> Engine::Attach(const std::string& id) {
  return RawConnection::Open(endpoint_, "POST",
                             api_ + "/containers/" + id +
                                 "/attach?stream=1&stdin=1&stdout=1&stderr=1",
                             /*upgrade=*/true);
}

Result<RawConnection> Engine::OpenWaitNextExit(const std::string& id) {
  return RawConnection::Open(endpoint_, "POST",
                             api_ + "/containers/" + id + "/wait?condition=next-exit", false);
}

Result<int> Engine::Wait(const std::string& id) {
  auto response = podman_ ? Call("POST", std::string(kLibpod) + "/containers/" + id +
                                             "/wait?condition=stopped&condition=exited")
                          : Call("POST", "/containers/" + id + "/wait?condition=not-running");
  if (auto ok = Expect(response, "wait for the box"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (json.is_number_integer()) return json.get<int>();
  if (json.is_object() && json.contains("StatusCode")) return json["StatusCode"].get<int>();
  return Error("wait for the box: unexpected answer " + response->body);
}

Result<void> Engine::Resize(const std::string& id, unsigned rows, unsigned cols) {
  return Expect(Call("POST", "/containers/" + id + "/resize?h=" + std::to_string(rows) +
                                 "&w=" + std::to_string(cols)),
                "resize");
}

Result<void> Engine::Kill(const std::string& id, const std::string& signal) {
  auto response = Call("POST", "/containers/" + id + "/kill?signal=" + signal, "", 10000);
  if (response && (response->status == 404 || response->status == 409)) return Ok();
  return Expect(response, "stop the box");
}

Result<void> Engine::Remove(const std::string& id) {
  auto response = Call("DELETE", "/containers/" + id + "?force=true&v=false", "", 30000);
  if (response && response->status == 404) return Ok();
  return Expect(response, "remove the box");
}

Result<nlohmann::json> Engine::ListByLabel(const std::string& label, bool all) {
  std::string filters = nlohmann::json{{"label", {label}}}.dump();
  auto response = Call("GET", std::string("/containers/json?all=") + (all ? "1" : "0") +
                                  "&filters=" + Escape(filters), "", 10000);
  if (auto ok = Expect(response, "list boxes"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_array()) return Error("list boxes: unexpected answer");
  return json;
}

Result<int> ReadWaitBody(RawConnection& connection) {
  std::string body;
  char buffer[1024];
  for (;;) {
    auto open = body.find('{');
    auto close = body.rfind('}');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      auto json = nlohmann::json::parse(body.substr(open, close - open + 1), nullptr, false);
      if (json.is_object() && json.contains("StatusCode")) return json["StatusCode"].get<int>();
    }
    long n = connection.Recv(buffer, sizeof buffer);
    if (n == 0 || n == -1) return Error("the engine closed the wait before the box exited");
    if (n > 0) body.append(buffer, n);
    if (n == -2) connection.WaitReadable(-1);
  }
}

}  // namespace corral::launcher
