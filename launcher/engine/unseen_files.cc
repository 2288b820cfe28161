// An engine that cannot see this machine's files (in another machine, a VM,
// or its own mount namespace) answers a box's bind mount with "no such
// path": said in one line that names the network mode, not as its raw error.
#include <sys/stat.h>

#include "launcher/engine/engine.h"

namespace corral::launcher {

std::string MissingBindSource(std::string_view message) {
  // Docker: `invalid mount config for type "bind": bind source path does not exist: P`.
  constexpr std::string_view kDocker = "bind source path does not exist: ";
  if (auto at = message.find(kDocker); at != std::string_view::npos) {
    std::string_view path = message.substr(at + kDocker.size());
    return std::string(path.substr(0, path.find('\n')));
  }
  // Podman: `statfs P: no such file or directory`.
  constexpr std::string_view kPodman = "statfs ";
  constexpr std::string_view kMissing = ": no such file or directory";
  if (auto at = message.find(kPodman); at != std::string_view::npos) {
    std::string_view rest = message.substr(at + kPodman.size());
    if (auto end = rest.find(kMissing); end != std::string_view::npos && end > 0) {
      return std::string(rest.substr(0, end));
    }
  }
  return "";
}

std::string CannotSeeFilesLine(const std::string& url, std::string_view message,
                               const std::function<bool(const std::string&)>& here) {
  std::string path = MissingBindSource(message);
  // A path this machine lacks too is another matter: the engine's own message says it.
  if (path.empty() || !here(path)) return "";
  return "the engine at " + url + " cannot see this machine's files (it has no " + path +
         "): run with CORRAL_ENGINE_MODE=network CORRAL_PROJECT_SHARED=0, which copy the "
         "project to the engine through a volume and back (docs/network-mode.md)";
}

bool PathHere(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace corral::launcher
