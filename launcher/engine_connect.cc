// Finding the engine: which endpoints to try, and the first that answers.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "launcher/engine.h"

namespace corral::launcher {
namespace {

constexpr double kMinApi = 1.41;
constexpr double kMaxApi = 1.43;
constexpr int kStartingWaitSeconds = 60;

std::string Get(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* value = getenv ? getenv(name) : nullptr;
  return value ? value : "";
}

bool SocketMissing(const Endpoint& e) {
  struct stat st {};
  return !e.socket_path.empty() && ::stat(e.socket_path.c_str(), &st) != 0;
}

}  // namespace

Result<EngineChoice> ChooseEndpoints(const std::string& flag, const std::string& configured,
                                     const std::function<const char*(const char*)>& getenv) {
  EngineChoice choice;
  std::string tls = Get(getenv, "DOCKER_TLS_VERIFY"), certs = Get(getenv, "DOCKER_CERT_PATH");
  for (const auto& [url, source] :
       {std::pair{flag, "--engine"}, std::pair{configured, "engine (config or CORRAL_ENGINE)"},
        std::pair{Get(getenv, "DOCKER_HOST"), "DOCKER_HOST"},
        std::pair{Get(getenv, "CONTAINER_HOST"), "CONTAINER_HOST"}}) {
    if (url.empty()) continue;
    auto endpoint = ParseEndpoint(url, source, tls, certs);
    if (!endpoint) return endpoint.error();
    choice.candidates.push_back(*endpoint);
    choice.named = true;
    return choice;
  }
  std::string runtime = Get(getenv, "XDG_RUNTIME_DIR");
  std::vector<std::string> sockets = {"/var/run/docker.sock"};
  if (!runtime.empty()) sockets.push_back(runtime + "/podman/podman.sock");
  sockets.push_back("/run/podman/podman.sock");
  for (const auto& socket : sockets) choice.candidates.push_back(*ParseEndpoint("unix://" + socket, "default"));
  return choice;
}

Result<Engine> Engine::Connect(const EngineChoice& choice) {
  std::string tried;
  for (const Endpoint& candidate : choice.candidates) {
    if (SocketMissing(candidate)) {
      tried += (tried.empty() ? "" : "; ") + candidate.url + " (no socket there)";
      continue;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kStartingWaitSeconds);
    bool said_waiting = false;
    for (;;) {
      auto ping = HttpRequest(candidate, "GET", "/_ping", "", 2000);
      if (ping && ping->status == 200) {
        Engine engine;
        engine.endpoint_ = candidate;
        engine.podman_ = ping->headers.count("libpod-api-version") > 0;
        // The API version comes with /_ping (Podman's /version takes seconds).
        std::string api = ping->headers.count("api-version") ? ping->headers["api-version"] : "";
        double number = api.empty() ? 0 : std::strtod(api.c_str(), nullptr);
        if (number < kMinApi) {
          return Error("the engine at " + candidate.url + " speaks API '" + api +
                       "', older than 1.41 (Docker 20.10): upgrade it");
        }
        engine.api_ = number > kMaxApi ? "/v1.43" : "/v" + api;
        std::string server = ping->headers.count("server") ? ping->headers["server"] : "";
        engine.name_ = engine.podman_ ? "podman " + ping->headers["libpod-api-version"]
                       : server.rfind("Docker/", 0) == 0
                           ? "docker " + server.substr(7, server.find(' ') - 7)
                           : "docker (API " + api + ")";
        return engine;
      }
      // Connected but not ready (a 5xx while starting): wait, saying so.
      bool starting = ping && ping->status >= 500;
      if (!starting || std::chrono::steady_clock::now() > deadline) {
        tried += (tried.empty() ? "" : "; ") + candidate.url + " (" +
                 (ping ? "answered " + std::to_string(ping->status) : ping.error().message) + ")";
        break;
      }
      if (!said_waiting) {
        std::fprintf(stderr, "corral: waiting for the engine at %s to answer (up to %d s)\n",
                     candidate.url.c_str(), kStartingWaitSeconds);
        said_waiting = true;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  return Error("no container engine answered: tried " + tried +
               ". Start Docker or Podman (systemctl start docker, or podman system service), "
               "or name one with --engine unix:///path/to/socket");
}

}  // namespace corral::launcher
