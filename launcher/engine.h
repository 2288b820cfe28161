// A container engine reached through its HTTP API: Docker, or Podman (found
// by the Libpod-Api-Version header of /_ping). Private to launcher/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/engine_http.h"
#include "launcher/launcher.h"

namespace corral::launcher {

// --engine, then the policy's `engine` (CORRAL_ENGINE), DOCKER_HOST,
// CONTAINER_HOST; when none is named, the usual sockets in turn.
struct EngineChoice {
  std::vector<Endpoint> candidates;
  bool named = false;  // the user named one: no other is tried
};
Result<EngineChoice> ChooseEndpoints(const std::string& flag, const std::string& configured,
                                     const std::function<const char*(const char*)>& getenv);

class Engine {
 public:
  // The first candidate that answers; an error naming each one tried and
  // how to fix it, within about 5 s when nothing answers at all.
  static Result<Engine> Connect(const EngineChoice& choice);

  bool podman() const { return podman_; }
  std::string name() const { return name_; }  // "docker 20.10.24", "podman 4.3.1"
  const Endpoint& endpoint() const { return endpoint_; }

  Result<bool> ImageExists(const std::string& image);
  Result<void> Pull(const std::string& image);
  Result<void> ImportRootfs(const std::string& tar_path, const std::string& reference);
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
  Endpoint endpoint_;
  std::string api_;  // "/v1.41"
  bool podman_ = false;
  std::string name_;
};

// The image on the engine: there already, or pulled; an error saying what to do.
Result<void> EnsureImage(Engine& engine, const std::string& image);

// The exit status from Docker's wait body ({"StatusCode": N}).
Result<int> ReadWaitBody(RawConnection& connection);

}  // namespace corral::launcher
