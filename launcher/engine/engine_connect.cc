// Finding the engine: which endpoints to try, and the first that answers;
// an engine still starting is waited for, and when none answers, a private
// Podman can serve the session (engine_embedded.cc).
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <thread>

#include "base/report.h"
#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

constexpr double kMinApi = 1.41;
constexpr double kMaxApi = 1.43;
constexpr long kPingTimeoutMs = 2000;

std::string Get(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* value = getenv ? getenv(name) : nullptr;
  return value ? value : "";
}

bool SocketMissing(const Endpoint& e) {
  struct stat st {};
  return !e.socket_path.empty() && ::stat(e.socket_path.c_str(), &st) != 0;
}

void AddTried(std::string& tried, const Endpoint& e, const std::string& what) {
  tried += (tried.empty() ? "" : "; ") + e.url + " (" + what + ")";
}

// Connected but silent (a socket-activated or starting daemon), or a 5xx.
bool Starting(const Result<HttpResponse>& ping) {
  return ping ? ping->status >= 500 : ping.error().code == ETIMEDOUT;
}

std::string Why(const Result<HttpResponse>& ping, int waited_seconds) {
  if (ping) return "answered " + std::to_string(ping->status);
  if (ping.error().code == ECONNREFUSED) return "nothing listens there";
  if (ping.error().code == ETIMEDOUT) {
    long seconds = std::max<long>(waited_seconds, kPingTimeoutMs / 1000);
    return "no answer within " + std::to_string(seconds) + " s";
  }
  return ping.error().message;
}

// The engine's /info: whether it runs without root (then a Podman box keeps
// the user's id through the user namespace) and which cgroup limits it can
// set. Podman's takes a second or two, so a socket owned by root (a rootful
// service's) is not asked unless `always`: nothing said, every limit taken
// as held.
EngineFacts AskFacts(const Endpoint& endpoint, bool podman, const std::string& api, bool always) {
  struct stat st {};
  if (podman && !always && !endpoint.ssh && !endpoint.socket_path.empty() &&
      ::stat(endpoint.socket_path.c_str(), &st) == 0 && st.st_uid == 0) {
    return EngineFacts{};
  }
  auto info = HttpRequest(endpoint, "GET", podman ? "/v4.0.0/libpod/info" : api + "/info", "",
                          10000);
  if (!info || info->status != 200) return EngineFacts{};
  auto json = nlohmann::json::parse(info->body, nullptr, false);
  EngineFacts facts = podman ? PodmanFacts(json) : DockerFacts(json);
  facts.host = HostFromInfo(json, podman);
  return facts;
}

// False only when this machine surely has no such path. A folder an ordinary
// user may not look into (root's /var/lib/containers: EACCES) proves nothing,
// and must not make this machine's own engine "remote".
bool MaybeHere(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

// The engines a user named, in order: the first one set is the only one tried.
Result<std::optional<Endpoint>> NamedEngine(const std::string& flag, const std::string& configured,
                                            const std::function<const char*(const char*)>& getenv) {
  std::string home = Get(getenv, "HOME");
  TlsSettings tls = TlsFromEnvironment(getenv, home);
  for (const auto& [url, source] :
       {std::pair{flag, "--engine"}, std::pair{configured, "engine (config or CORRAL_ENGINE)"},
        std::pair{Get(getenv, "DOCKER_HOST"), "DOCKER_HOST"},
        std::pair{Get(getenv, "CONTAINER_HOST"), "CONTAINER_HOST"}}) {
    if (url.empty()) continue;
    auto endpoint = ParseEndpoint(url, source, tls);
    if (!endpoint) return endpoint.error();
    return std::optional<Endpoint>(*endpoint);
  }
  auto docker = DockerContextEndpoint(getenv, home);
  if (!docker) return docker.error();
  auto podman = *docker ? docker
                        : PodmanConnectionEndpoint(getenv, ContainersConfFiles(getenv, home));
  if (!podman) return podman.error();
  if (!*podman) return std::optional<Endpoint>();
  const NamedEndpoint& named = **podman;
  // The flags (CORRAL_ENGINE_TLS_*) and DOCKER_TLS_VERIFY go before a context's own files.
  auto endpoint = ParseEndpoint(named.url, named.source, tls.on ? tls : named.tls);
  if (!endpoint) return endpoint.error();
  if (endpoint->ssh) endpoint->ssh->identity = named.identity;
  return std::optional<Endpoint>(*endpoint);
}

}  // namespace

std::string Engine::ModeLine() const {
  if (!locality_.remote) {
    return "mode: local box (engine " + endpoint_.url + ": " + locality_.why +
           "; the box bind-mounts this machine's folders)";
  }
  return "mode: network (engine " + endpoint_.url + " is on another machine: " + locality_.why +
         "; the box gets its files through a session volume and reaches corral through a "
         "proxy sidecar, docs/network-mode.md)";
}

Result<EngineChoice> ChooseEndpoints(const std::string& flag, const std::string& configured,
                                     const std::function<const char*(const char*)>& getenv) {
  EngineChoice choice;
  auto named = NamedEngine(flag, configured, getenv);
  if (!named) return named.error();
  if (*named) {
    choice.candidates.push_back(**named);
    choice.named = true;
    return choice;
  }
  std::vector<std::string> sockets;
  if (const char* list = getenv ? getenv("CORRAL_ENGINE_SOCKETS") : nullptr) {
    std::istringstream in(list);
    for (std::string socket; std::getline(in, socket, ':');) {
      if (!socket.empty()) sockets.push_back(socket);
    }
  } else {
    std::string runtime = Get(getenv, "XDG_RUNTIME_DIR");
    sockets.push_back("/var/run/docker.sock");
    if (!runtime.empty()) sockets.push_back(runtime + "/podman/podman.sock");
    sockets.push_back("/run/podman/podman.sock");
  }
  for (const auto& socket : sockets) {
    auto endpoint = ParseEndpoint("unix://" + socket, "CORRAL_ENGINE_SOCKETS");
    if (!endpoint) return endpoint.error();
    choice.candidates.push_back(*endpoint);
  }
  return choice;
}

// One endpoint: the engine when it answers /_ping (waiting while it starts);
// nothing when it does not (why is added to `tried`); an error when it
// answers but cannot serve.
Result<std::optional<Engine>> Engine::Ping(const Endpoint& named, const EngineChoice& choice,
                                           std::string& tried) {
  Endpoint candidate = named;
  std::shared_ptr<SshTunnel> tunnel;
  if (candidate.ssh) {
    auto opened = SshTunnel::Open(candidate, choice.session_dir);
    if (!opened) {
      AddTried(tried, candidate, opened.error().message);
      return std::optional<Engine>();
    }
    tunnel = std::move(*opened);
    candidate.socket_path = tunnel->socket();
  }
  if (SocketMissing(candidate)) {
    AddTried(tried, candidate, "no socket there");
    return std::optional<Engine>();
  }
  int wait_seconds = choice.starting_wait_seconds;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(wait_seconds);
  bool said_waiting = false;
  auto ping = HttpRequest(candidate, "GET", "/_ping", "", kPingTimeoutMs);
  while (!ping || ping->status != 200) {
    if (!Starting(ping) || std::chrono::steady_clock::now() > deadline) {
      std::string ssh_said = tunnel ? tunnel->LastWords() : "";
      AddTried(tried, candidate,
               Why(ping, wait_seconds) + (ssh_said.empty() ? "" : "; ssh said: " + ssh_said));
      return std::optional<Engine>();
    }
    if (!said_waiting) {
      report::Line("corral: the engine at " + candidate.url + " is starting; waiting for it (up to " +
                   std::to_string(wait_seconds) + " s)");
      said_waiting = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ping = HttpRequest(candidate, "GET", "/_ping", "", kPingTimeoutMs);
  }
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
  engine.facts_ = AskFacts(candidate, engine.podman_, engine.api_, choice.all_facts);
  engine.tunnel_ = std::move(tunnel);
  auto here = candidate.ssh ? std::nullopt : SocketServedHere(candidate.socket_path);
  if (!here && engine.facts_.host.hostname.empty()) {  // a root-owned Podman's, skipped above
    engine.facts_ = AskFacts(candidate, engine.podman_, engine.api_, /*always=*/true);
  }
  engine.locality_ = here ? *here : JudgeLocality(engine.facts_.host, ThisHost(), MaybeHere);
  return std::optional<Engine>(std::move(engine));
}

Result<Engine> Engine::Connect(const EngineChoice& choice) {
  std::string tried;
  for (const Endpoint& candidate : choice.candidates) {
    auto engine = Ping(candidate, choice, tried);
    if (!engine) return engine.error();
    if (*engine) return std::move(**engine);
  }
  std::string podman = choice.named || choice.embed_dir.empty() ? "" : FindInPath("podman");
  if (!podman.empty()) {
    auto embedded = EmbeddedPodman::Start(podman, choice.embed_dir, choice.session_dir, tried);
    if (!embedded) return embedded.error();
    std::string why;
    auto engine = Ping((*embedded)->endpoint(), choice, why);
    if (!engine) return engine.error();
    if (!*engine) return Error("the session's own podman system service stopped answering: " + why);
    (*engine)->embedded_ = std::move(*embedded);
    return std::move(**engine);
  }
  bool local_socket = choice.candidates.size() == 1 && !choice.candidates[0].ssh &&
                      !choice.candidates[0].socket_path.empty();
  return Error("no container engine answered: tried " + tried + ". " +
               (!choice.named || local_socket ? kNoEngineFix
                                              : "Check the address, that the engine runs there, "
                                                "and that you can reach it yourself (docker -H URL "
                                                "info, or ssh to the host)"));
}

}  // namespace corral::launcher
