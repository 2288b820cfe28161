// The engine calls a session makes. Compat (Docker) endpoints serve both
// engines except create and wait, which use libpod's on Podman.

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include "base/report.h"
#include "launcher/engine/engine.h"
#include "launcher/engine/expect.h"
#include "launcher/render/render.h"

namespace corral::launcher {
namespace {

constexpr const char* kLibpod = "/v4.0.0/libpod";

// 409 while another caller (the reaper, `corral stop`) removes the same box:
// Docker says "removal of container X is already in progress".
bool RemovalInProgress(const HttpResponse& response) {
  if (response.status != 409) return false;
  std::string message = EngineMessage(response);
  return message.find("already in progress") != std::string::npos ||
         message.find("being removed") != std::string::npos;
}

}  // namespace

Result<HttpResponse> Engine::Call(const std::string& method, const std::string& path,
                                  const std::string& body, long timeout_ms) {
  std::string full = path.rfind("/v4.0.0/", 0) == 0 ? path : api_ + path;
  const bool keep_id_create = podman_ && rootless() && method == "POST" &&
                              full.find("/containers/create") != std::string::npos;
  if (!keep_id_create) return HttpRequest(endpoint_, method, full, body, timeout_ms);
  // A rootless Podman's creates go one at a time from here, and one that
  // lost the race to another program's is tried again (SubidRace).
  static std::mutex creates;
  std::lock_guard lock(creates);
  for (int attempt = 1;; ++attempt) {
    auto response = HttpRequest(endpoint_, method, full, body, timeout_ms);
    if (!response || attempt == 5 || !SubidRace(*response)) return response;
    std::this_thread::sleep_for(std::chrono::milliseconds(25 * attempt));
  }
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
  report::Line("corral: pulling " + image + " (once)");
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

Result<void> Engine::Build(int context_tar, const std::string& tag,
                           const std::function<void(const nlohmann::json&)>& on_message,
                           const BuildOptions& options) {
  std::string query = "?t=" + Escape(tag) + "&rm=1&forcerm=1&dockerfile=Dockerfile";
  if (!options.args.empty()) query += "&buildargs=" + Escape(nlohmann::json(options.args).dump());
  if (options.host_network) query += "&networkmode=host";
  std::string error;
  auto response = HttpStreamLines(
      endpoint_, api_ + "/build" + query,
      context_tar, "application/x-tar", [&](std::string_view line) {
        auto message = nlohmann::json::parse(line, nullptr, false);
        if (!message.is_object()) return;
        if (message.contains("error") && error.empty()) {
          error = message["error"].is_string() ? message["error"].get<std::string>()
                                               : message["error"].dump();
        }
        on_message(message);
      });
  if (auto ok = Expect(response, "build " + tag); !ok) return ok;
  while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
  if (!error.empty()) return Error("build " + tag + ": " + error);
  return Ok();
}

nlohmann::json CreateBody(const SessionPlan& plan, bool podman, bool rootless) {
  if (!podman) return docker::Render(plan);
  if (!rootless || !plan.userns.empty()) return libpod::Render(plan);
  SessionPlan keep_id = plan;
  keep_id.userns = "keep-id";  // the user's uid is the same inside: files stay theirs
  return libpod::Render(keep_id);
}

Result<std::string> Engine::CreateUnstarted(const nlohmann::json& body, const std::string& what) {
  auto created = Call("POST", "/containers/create", body.dump(), 30000);
  if (auto ok = Expect(created, what); !ok) return ok.error();
  auto json = nlohmann::json::parse(created->body, nullptr, false);
  if (!json.is_object() || !json["Id"].is_string()) return Error(what + ": no Id");
  return json["Id"].get<std::string>();
}

Result<std::vector<std::optional<std::string>>> Engine::ImageFiles(
    const std::string& image, const std::vector<std::string>& paths) {
  std::string what = "read files from " + image;
  nlohmann::json body = {{"Image", image},
                         {"Cmd", {"/corral-reads-a-file"}},  // never started
                         {"NetworkDisabled", true},
                         {"Labels", {{"corral.purpose", "read files"}}}};
  auto created = CreateUnstarted(body, what);
  if (!created) return created.error();
  const std::string& id = *created;
  std::vector<std::optional<std::string>> files;
  for (const std::string& path : paths) {
    auto archive = Call("GET", "/containers/" + id + "/archive?path=" + Escape(path), "", 30000);
    if (archive && archive->status == 404) {
      files.emplace_back();
      continue;
    }
    if (auto ok = Expect(archive, what); !ok) {
      (void)Remove(id);
      return ok.error();
    }
    files.emplace_back(std::move(archive->body));
  }
  (void)Remove(id);
  return files;
}

Result<void> Engine::UnpackIntoVolumes(const SessionPlan& plan, const std::string& tar) {
  std::string what = "give the volumes to the box's user";
  nlohmann::json mounts = nlohmann::json::array();
  for (const Mount& m : plan.mounts) {
    if (m.kind != MountKind::kVolume) continue;
    mounts.push_back({{"Type", "volume"}, {"Source", m.source}, {"Target", m.target},
                      {"VolumeOptions", {{"Labels", {{kLabelSession, "volume"}}}}}});
  }
  nlohmann::json body = {{"Image", plan.image},
                         {"Entrypoint", {"/corral-sets-owners"}},  // never started
                         {"Cmd", nlohmann::json::array()},
                         {"NetworkDisabled", true},
                         {"Labels", {{"corral.purpose", "volume owners"}}},
                         {"HostConfig", {{"Mounts", mounts}, {"NetworkMode", "none"}}}};
  auto created = CreateUnstarted(body, what);
  if (!created) return created.error();
  const std::string& id = *created;
  auto put = HttpRequest(endpoint_, "PUT", api_ + "/containers/" + id + "/archive?path=%2F", tar,
                         30000, "application/x-tar");
  auto ok = Expect(put, what);
  (void)Remove(id);
  return ok;
}

Result<std::optional<std::string>> Engine::VolumeCreatedAt(const std::string& name) {
  auto response = Call("GET", "/volumes/" + Escape(name), "", 10000);
  if (response && response->status == 404) return std::optional<std::string>();
  if (auto ok = Expect(response, "volume inspect " + name); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object() || !json["CreatedAt"].is_string()) return std::optional<std::string>("");
  return std::optional<std::string>(json["CreatedAt"].get<std::string>());
}

Result<std::string> Engine::Create(const SessionPlan& plan) {
  // A bind of this machine's session folder names a path the engine's own
  // machine does not have: such a box is for a local engine only.
  if (locality_.remote && !plan.session_dir.empty()) {
    for (const Mount& m : plan.mounts) {
      if (m.kind == MountKind::kBind && m.source.rfind(plan.session_dir, 0) == 0) {
        return Error("engine " + endpoint_.url + " is on another machine (" + locality_.why +
                     "): a box that binds this machine's " + m.source + " cannot start there");
      }
    }
  }
  std::string body = CreateBody(plan, podman_, facts_.rootless).dump();
  auto response = podman_ ? Call("POST", std::string(kLibpod) + "/containers/create", body)
                          : Call("POST", "/containers/create?name=" + Escape(plan.container_name),
                                 body);
  if (response && response->status >= 300) {
    std::string unseen = CannotSeeFilesLine(endpoint_.url, EngineMessage(*response), PathHere);
    if (!unseen.empty()) return Error(unseen);
  }
  if (auto ok = Expect(response, "create the box"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object() || !json.contains("Id")) return Error("create the box: no Id in answer");
  for (const auto& warning : json.value("Warnings", nlohmann::json::array())) {
    if (warning.is_string()) log::warn("engine: " + warning.get<std::string>());
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
                                             "/wait?condition=stopped&condition=exited&interval=20ms")
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
  if (response && (response->status == 404 || RemovalInProgress(*response))) return Ok();
  // Podman 4.3 answers 500 for a box it has already taken out of its records
  // when a mount of the box's storage is still held in another mount
  // namespace ("unlinkat .../userdata/shm: device or resource busy"; seen
  // while a rootless Podman started beside it). A box the engine no longer
  // knows is removed: asked, not retried.
  if (response && response->status >= 500) {
    auto still = Call("GET", "/containers/" + id + "/json", "", 10000);
    if (still && still->status == 404) return Ok();
  }
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

Result<nlohmann::json> Engine::Inspect(const std::string& id) {
  auto response = Call("GET", "/containers/" + Escape(id) + "/json", "", 10000);
  if (auto ok = Expect(response, "inspect the box " + id); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object()) return Error("inspect the box " + id + ": unexpected answer");
  return json;
}

Result<void> Engine::Import(int tar, const std::string& tag) {
  std::string path;
  if (podman_) {
    path = std::string(kLibpod) + "/images/import?reference=" + Escape(tag);
  } else {
    auto colon = tag.rfind(':');
    path = api_ + "/images/create?fromSrc=-&repo=" + Escape(tag.substr(0, colon)) +
           "&tag=" + Escape(colon == std::string::npos ? "latest" : tag.substr(colon + 1));
  }
  std::string error;
  auto response = HttpStreamLines(endpoint_, path, tar, "application/x-tar",
                                  [&](std::string_view line) {
                                    auto message = nlohmann::json::parse(line, nullptr, false);
                                    if (message.is_object() && message.contains("error")) {
                                      error = message["error"].dump();
                                    }
                                  });
  if (auto ok = Expect(response, "import " + tag); !ok) return ok;
  if (!error.empty()) return Error("import " + tag + ": " + error);
  return Ok();
}

Result<nlohmann::json> Engine::ListImages() {
  auto response = Call("GET", "/images/json", "", 30000);
  if (auto ok = Expect(response, "list images"); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_array()) return Error("list images: unexpected answer");
  return json;
}

Result<bool> Engine::RemoveImage(const std::string& image) {
  auto response = Call("DELETE", "/images/" + Escape(image), "", 60000);
  if (response && response->status == 404) return false;
  if (auto ok = Expect(response, "remove " + image); !ok) return ok.error();
  return true;
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
