// The network mode's engine calls: networks, named volumes, a tar put into a
// container, a container made from a Docker-shaped body. Docker's compat
// endpoints, which Podman serves too.
#include "launcher/engine/engine.h"
#include "launcher/engine/expect.h"

namespace corral::launcher {
namespace {

nlohmann::json LabelsJson(const std::map<std::string, std::string>& labels) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [key, value] : labels) json[key] = value;
  return json;
}

// Gone already is done: the reaper or `corral stop` may have been first.
Result<void> ExpectRemoved(const Result<HttpResponse>& response, const std::string& what) {
  if (response && response->status == 404) return Ok();
  return Expect(response, what);
}

}  // namespace

ApiCall CreateNetworkCall(const std::string& name, bool internal,
                          const std::map<std::string, std::string>& labels) {
  // Internal: the engine gives the network no route out (no gateway, no NAT).
  return {"POST",
          "/networks/create",
          {{"Name", name},
           {"Driver", "bridge"},
           {"Internal", internal},
           {"CheckDuplicate", true},
           {"Labels", LabelsJson(labels)}}};
}

ApiCall ConnectNetworkCall(const std::string& network, const std::string& container,
                           const std::vector<std::string>& aliases) {
  return {"POST",
          "/networks/" + Escape(network) + "/connect",
          {{"Container", container}, {"EndpointConfig", {{"Aliases", aliases}}}}};
}

ApiCall RemoveNetworkCall(const std::string& name) {
  return {"DELETE", "/networks/" + Escape(name), nullptr};
}

ApiCall CreateVolumeCall(const std::string& name,
                         const std::map<std::string, std::string>& labels,
                         const std::map<std::string, std::string>& driver_opts) {
  nlohmann::json body = {{"Name", name}, {"Labels", LabelsJson(labels)}};
  if (!driver_opts.empty()) {
    body["Driver"] = "local";
    body["DriverOpts"] = driver_opts;
  }
  return {"POST", "/volumes/create", body};
}

ApiCall RemoveVolumeCall(const std::string& name) {
  return {"DELETE", "/volumes/" + Escape(name) + "?force=true", nullptr};
}

ApiCall PutArchiveCall(const std::string& container, const std::string& path) {
  return {"PUT", "/containers/" + Escape(container) + "/archive?path=" + Escape(path), nullptr};
}

void TakeFrames(std::string& buffer,
                const std::function<void(int stream, std::string_view data)>& on_frame) {
  std::size_t at = 0;
  while (buffer.size() - at >= 8) {
    const auto* head = reinterpret_cast<const unsigned char*>(buffer.data() + at);
    std::size_t length = (std::size_t{head[4]} << 24) | (std::size_t{head[5]} << 16) |
                         (std::size_t{head[6]} << 8) | std::size_t{head[7]};
    if (buffer.size() - at - 8 < length) break;
    on_frame(head[0], std::string_view(buffer).substr(at + 8, length));
    at += 8 + length;
  }
  buffer.erase(0, at);
}

ApiCall GetArchiveCall(const std::string& container, const std::string& path) {
  return {"GET", "/containers/" + Escape(container) + "/archive?path=" + Escape(path), nullptr};
}

ApiCall ListVolumesCall(const std::string& label) {
  nlohmann::json filters = {{"label", {label}}};
  return {"GET", "/volumes?filters=" + Escape(filters.dump()), nullptr};
}

namespace {
std::string BodyText(const ApiCall& call) { return call.body.is_null() ? "" : call.body.dump(); }
}  // namespace

Result<void> Engine::CreateNetwork(const std::string& name, bool internal,
                                   const std::map<std::string, std::string>& labels) {
  ApiCall call = CreateNetworkCall(name, internal, labels);
  return Expect(Call(call.method, call.path, BodyText(call), 30000), "create network " + name);
}

Result<void> Engine::ConnectNetwork(const std::string& network, const std::string& container,
                                    const std::vector<std::string>& aliases) {
  ApiCall call = ConnectNetworkCall(network, container, aliases);
  return Expect(Call(call.method, call.path, BodyText(call), 30000),
                "connect " + container + " to network " + network);
}

Result<void> Engine::RemoveNetwork(const std::string& name) {
  ApiCall call = RemoveNetworkCall(name);
  return ExpectRemoved(Call(call.method, call.path, "", 30000), "remove network " + name);
}

Result<std::string> Engine::CreateVolume(const std::string& name,
                                         const std::map<std::string, std::string>& labels,
                                         const std::map<std::string, std::string>& driver_opts) {
  ApiCall call = CreateVolumeCall(name, labels, driver_opts);
  auto response = Call(call.method, call.path, BodyText(call), 30000);
  if (auto ok = Expect(response, "create volume " + name); !ok) return ok.error();
  // Both engines answer with the volume, its Mountpoint included: no inspect.
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (json.is_object() && json["Mountpoint"].is_string()) return json["Mountpoint"].get<std::string>();
  return VolumeMountpoint(name);
}

Result<void> Engine::RemoveVolume(const std::string& name) {
  ApiCall call = RemoveVolumeCall(name);
  return ExpectRemoved(Call(call.method, call.path, "", 30000), "remove volume " + name);
}

Result<void> Engine::PutArchive(const std::string& container, const std::string& path,
                                const std::string& tar, long timeout_ms) {
  ApiCall call = PutArchiveCall(container, path);
  auto response =
      HttpRequest(endpoint_, call.method, api_ + call.path, tar, timeout_ms, "application/x-tar");
  return Expect(response, "copy files into " + container + ":" + path);
}

Result<std::string> Engine::Logs(const std::string& container, bool out, bool err) {
  auto response = Call("GET", "/containers/" + Escape(container) + "/logs?stdout=" +
                                  (out ? "1" : "0") + "&stderr=" + (err ? "1" : "0"),
                       "", 60000);
  if (auto ok = Expect(response, "read the logs of " + container); !ok) return ok.error();
  std::string text;
  TakeFrames(response->body, [&](int, std::string_view data) { text.append(data); });
  return text;
}

Result<std::string> Engine::VolumeMountpoint(const std::string& name) {
  auto response = Call("GET", "/volumes/" + Escape(name), "", 30000);
  if (auto ok = Expect(response, "inspect volume " + name); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object() || !json["Mountpoint"].is_string()) {
    return Error("inspect volume " + name + ": no Mountpoint in the answer");
  }
  return json["Mountpoint"].get<std::string>();
}

Result<std::string> Engine::GetArchive(const std::string& container, const std::string& path) {
  ApiCall call = GetArchiveCall(container, path);
  // A project can be large: no time limit beyond the connection's own.
  auto response = Call(call.method, call.path, "", 0);
  if (auto ok = Expect(response, "copy files out of " + container + ":" + path); !ok) {
    return ok.error();
  }
  return std::move(response->body);
}

Result<nlohmann::json> Engine::ListVolumes(const std::string& label) {
  ApiCall call = ListVolumesCall(label);
  return VolumesIn(Call(call.method, call.path, "", 30000));
}

Result<std::string> Engine::CreateContainer(const nlohmann::json& body, const std::string& name,
                                            const std::string& what) {
  auto created = Call("POST", "/containers/create?name=" + Escape(name), body.dump(), 30000);
  if (auto ok = Expect(created, what); !ok) return ok.error();
  auto json = nlohmann::json::parse(created->body, nullptr, false);
  if (!json.is_object() || !json["Id"].is_string()) return Error(what + ": no Id in the answer");
  return json["Id"].get<std::string>();
}

}  // namespace corral::launcher
