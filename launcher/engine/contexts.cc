// The engine a Docker context or a Podman connection names, read from their
// own files, so `docker context use` and `podman system connection default`
// choose corral's engine too.
#include <filesystem>

#include <toml++/toml.h>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

bool IsFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

std::string Get(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* value = getenv ? getenv(name) : nullptr;
  return value ? value : "";
}

}  // namespace

Result<std::optional<NamedEndpoint>> DockerContextEndpoint(
    const std::function<const char*(const char*)>& getenv, const std::string& home) {
  std::string dir = Get(getenv, "DOCKER_CONFIG");
  if (dir.empty()) dir = home + "/.docker";
  std::string name = Get(getenv, "DOCKER_CONTEXT"), from = "DOCKER_CONTEXT";
  if (name.empty()) {
    auto config =
        nlohmann::json::parse(ReadWholeFile(dir + "/config.json").value_or(""), nullptr, false);
    if (config.is_object() && config.contains("currentContext") &&
        config["currentContext"].is_string()) {
      name = config["currentContext"].get<std::string>();
      from = dir + "/config.json";
    }
  }
  if (name.empty() || name == "default") return std::optional<NamedEndpoint>();
  // meta/<sha256 of the name>/meta.json; the name is inside, so no hashing is needed.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/contexts/meta", ec)) {
    auto meta = nlohmann::json::parse(ReadWholeFile(entry.path() / "meta.json").value_or(""),
                                      nullptr, false);
    if (!meta.is_object() || meta.value("Name", nlohmann::json()) != name) continue;
    auto host = meta["/Endpoints/docker/Host"_json_pointer];
    if (!host.is_string() || host.get<std::string>().empty()) break;
    NamedEndpoint named;
    named.url = host.get<std::string>();
    named.source = "docker context '" + name + "' (" + from + ")";
    std::string tls = dir + "/contexts/tls/" + entry.path().filename().string() + "/docker/";
    if (IsFile(tls + "ca.pem") || IsFile(tls + "cert.pem")) {
      named.tls.on = true;
      if (IsFile(tls + "ca.pem")) named.tls.ca = tls + "ca.pem";
      if (IsFile(tls + "cert.pem")) named.tls.cert = tls + "cert.pem";
      if (IsFile(tls + "key.pem")) named.tls.key = tls + "key.pem";
    }
    return std::optional<NamedEndpoint>(named);
  }
  return Error("docker context '" + name + "' (" + from + ") has no endpoint in " + dir +
               "/contexts/meta: docker context ls lists the ones there");
}

std::vector<std::string> ContainersConfFiles(const std::function<const char*(const char*)>& getenv,
                                             const std::string& home) {
  if (std::string only = Get(getenv, "CONTAINERS_CONF"); !only.empty()) return {only};
  std::string config_home = Get(getenv, "XDG_CONFIG_HOME");
  if (config_home.empty()) config_home = home + "/.config";
  return {"/usr/share/containers/containers.conf", "/etc/containers/containers.conf",
          config_home + "/containers/containers.conf"};
}

Result<std::optional<NamedEndpoint>> PodmanConnectionEndpoint(
    const std::function<const char*(const char*)>& getenv, const std::vector<std::string>& files) {
  std::string name = Get(getenv, "CONTAINER_CONNECTION"), from = "CONTAINER_CONNECTION";
  std::map<std::string, std::pair<std::string, std::string>> destinations;  // uri, identity
  for (const std::string& file : files) {
    if (!IsFile(file)) continue;
    toml::table root;
    try {
      root = toml::parse(ReadWholeFile(file).value_or(""), file);
    } catch (const toml::parse_error& e) {
      return Error(file + ":" + std::to_string(e.source().begin.line) + ": " +
                   std::string(e.description()));
    }
    if (auto active = root["engine"]["active_service"].value<std::string>();
        active && Get(getenv, "CONTAINER_CONNECTION").empty()) {
      name = *active;
      from = file;
    }
    if (auto* services = root["engine"]["service_destinations"].as_table()) {
      for (const auto& [key, value] : *services) {
        const auto* service = value.as_table();
        if (!service) continue;
        destinations[std::string(key.str())] = {(*service)["uri"].value_or(std::string()),
                                                (*service)["identity"].value_or(std::string())};
      }
    }
  }
  if (name.empty()) return std::optional<NamedEndpoint>();
  auto found = destinations.find(name);
  if (found == destinations.end() || found->second.first.empty()) {
    return Error("podman connection '" + name + "' (" + from +
                 ") has no uri in [engine.service_destinations]: podman system connection list "
                 "lists the ones there");
  }
  NamedEndpoint named;
  named.url = found->second.first;
  named.identity = found->second.second;
  named.source = "podman connection '" + name + "' (" + from + ")";
  return std::optional<NamedEndpoint>(named);
}

}  // namespace corral::launcher
