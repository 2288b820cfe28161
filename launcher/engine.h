// A container engine reached through its HTTP API: Docker, or Podman (found
// by the Libpod-Api-Version header of /_ping). Private to launcher/.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/engine_http.h"
#include "launcher/launcher.h"

namespace corral::launcher {

// --engine, then the policy's `engine` (CORRAL_ENGINE), DOCKER_HOST,
// CONTAINER_HOST; when none is named, the usual sockets in turn.
// CORRAL_ENGINE_SOCKETS (colon-separated) replaces the usual sockets.
struct EngineChoice {
  std::vector<Endpoint> candidates;
  bool named = false;  // the user named one: no other is tried
  // When set, none was named and none answers, but podman is installed:
  // a private `podman system service` in this folder serves the session.
  std::string embed_dir;
  // The session folder: when corral dies, the private service stops once
  // the reaper has removed it (its last step), within a minute.
  std::string session_dir;
  void EmbedFor(const std::string& session_folder) {
    session_dir = session_folder;
    embed_dir = session_folder + "-engine";  // beside it: never inside the box
  }
};
Result<EngineChoice> ChooseEndpoints(const std::string& flag, const std::string& configured,
                                     const std::function<const char*(const char*)>& getenv);

class EmbeddedPodman;

class Engine {
 public:
  // The first candidate that answers; an error naming each one tried and
  // how to fix it, within about 5 s when nothing answers at all.
  // Waits up to 60 s for one that is starting (connected, no answer yet, or
  // 5xx), saying so once. Falls back to a private Podman (EngineChoice).
  static Result<Engine> Connect(const EngineChoice& choice);

  bool podman() const { return podman_; }
  bool rootless() const { return rootless_; }
  std::string name() const { return name_; }  // "docker 20.10.24", "podman 4.3.1"
  const Endpoint& endpoint() const { return endpoint_; }

  Result<bool> ImageExists(const std::string& image);
  Result<void> Pull(const std::string& image);
  // POST /build of the tar read from `context_tar`, tagged `tag`; each JSON
  // message of the answer goes to `on_message` as it arrives. An error
  // message in the stream is the error.
  Result<void> Build(int context_tar, const std::string& tag,
                     const std::function<void(const nlohmann::json&)>& on_message);
  // The tar the engine gives for each of `paths` in `image` (through one
  // container created and removed without starting), or nullopt for a path
  // the image does not have.
  Result<std::vector<std::optional<std::string>>> ImageFiles(const std::string& image,
                                                             const std::vector<std::string>& paths);
  // Unpacks `tar` at / in a container that has the plan's volumes mounted
  // (created from the plan's image and removed without starting): Docker
  // applies each folder entry's owner and mode to the folder it names.
  Result<void> UnpackIntoVolumes(const SessionPlan& plan, const std::string& tar);
  // A named volume's CreatedAt, or nullopt when there is no such volume.
  Result<std::optional<std::string>> VolumeCreatedAt(const std::string& name);
  Result<std::string> Create(const SessionPlan& plan);  // the container id
  Result<void> Start(const std::string& id);
  Result<RawConnection> Attach(const std::string& id);
  Result<RawConnection> OpenWaitNextExit(const std::string& id);  // Docker, before start
  Result<int> Wait(const std::string& id);  // after start
  Result<void> Resize(const std::string& id, unsigned rows, unsigned cols);
  Result<void> Kill(const std::string& id, const std::string& signal);
  Result<void> Remove(const std::string& id);
  Result<nlohmann::json> ListByLabel(const std::string& label, bool all);

 private:
  Result<HttpResponse> Call(const std::string& method, const std::string& path,
                            const std::string& body = "", long timeout_ms = 0);
  // Creates a container that is never started (to read or write its files);
  // its id. `what` names the step in an error.
  Result<std::string> CreateUnstarted(const nlohmann::json& body, const std::string& what);
  static Result<std::optional<Engine>> Ping(const Endpoint& endpoint, std::string& tried);
  Endpoint endpoint_;
  std::string api_;  // "/v1.41"
  bool podman_ = false;
  bool rootless_ = false;  // Podman without root: the box runs with keep-id
  std::string name_;
  std::shared_ptr<EmbeddedPodman> embedded_;  // stops with the last copy
};

// The body of the create call: Docker's, or libpod's for Podman, where a
// rootless engine keeps the user's id in the box (userns keep-id).
nlohmann::json CreateBody(const SessionPlan& plan, bool podman, bool rootless);

// The image on the engine: there already, built from `build_context` (a
// folder with a Dockerfile) when one is given, else pulled; an error saying
// what to do. A build shows its progress on stderr.
Result<void> EnsureImage(Engine& engine, const std::string& image,
                         const std::string& build_context = "");

// The exit status from Docker's wait body ({"StatusCode": N}).
Result<int> ReadWaitBody(RawConnection& connection);

}  // namespace corral::launcher
