// A private `podman system service` for one session: started when no engine
// answers but podman is installed, stopped when the session ends. Private to
// launcher/.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "base/base.h"
#include "launcher/engine_http.h"

namespace corral::launcher {

class EmbeddedPodman {
 public:
  // Starts `podman system service` on unix://DIR/podman.sock (CONTAINERS_CONF
  // and the rest of the environment pass through), says so in one line, and
  // waits until it answers (bounded). A keeper process owns it: it stops the
  // service when this object goes, or when corral dies, once `session_dir`
  // is gone (the reaper removes it after the box), within a minute.
  static Result<std::shared_ptr<EmbeddedPodman>> Start(const std::string& podman,
                                                       const std::string& dir,
                                                       const std::string& session_dir,
                                                       const std::string& tried);
  const Endpoint& endpoint() const { return endpoint_; }
  ~EmbeddedPodman();  // stops the service and waits for it

  EmbeddedPodman(const EmbeddedPodman&) = delete;
  EmbeddedPodman& operator=(const EmbeddedPodman&) = delete;

 private:
  EmbeddedPodman() = default;
  Endpoint endpoint_;
  std::string dir_;
  pid_t keeper_ = -1;
  UniqueFd done_;  // the keeper reads 'd' (stop now) or EOF (corral died)
};

}  // namespace corral::launcher
