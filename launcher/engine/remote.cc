// Whether the engine is on this machine: a boxed session bind-mounts this
// machine's folders, which an engine elsewhere cannot see. Decided from what
// the engine says about itself (host name, kernel, data root) or, for a
// socket, from the kernel's word on who serves it; never from the URL alone
// (ssh://localhost is this machine; unix:///x may be a forward to another).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

std::string Link(const std::string& path) {
  std::error_code ec;
  auto target = std::filesystem::read_symlink(path, ec);
  return ec ? "" : target.string();
}

}  // namespace

EngineHost ThisHost() {
  utsname names{};
  ::uname(&names);
  return EngineHost{names.nodename, names.release, ""};
}

Locality JudgeLocality(const EngineHost& engine, const EngineHost& here,
                       const std::function<bool(const std::string&)>& exists) {
  if (engine.hostname.empty() && engine.kernel.empty()) {
    return {true, "it did not say which machine it runs on"};
  }
  if (!engine.hostname.empty() && engine.hostname != here.hostname) {
    return {true, "it runs on host '" + engine.hostname + "', this is '" + here.hostname + "'"};
  }
  if (!engine.kernel.empty() && engine.kernel != here.kernel) {
    return {true, "it runs kernel " + engine.kernel + ", this machine " + here.kernel};
  }
  // The same name and kernel on two machines (cloned VMs) is possible, so a
  // data root missing here is the last word; its presence proves nothing.
  if (!engine.root_dir.empty() && !exists(engine.root_dir)) {
    return {true, "its data root " + engine.root_dir + " is not on this machine"};
  }
  return {false, "it runs on this host ('" + engine.hostname + "', kernel " + engine.kernel + ")"};
}

std::optional<Locality> SocketServedHere(const std::string& socket_path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  UniqueFd owned(fd);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof address.sun_path) return std::nullopt;
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return std::nullopt;
  }
  ucred peer{};
  socklen_t size = sizeof peer;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.pid <= 0) {
    return std::nullopt;
  }
  std::string proc = "/proc/" + std::to_string(peer.pid);
  std::string program = std::filesystem::path(Link(proc + "/exe")).filename().string();
  // A forwarder (ssh -L, socat) also serves a socket here: only the engine's
  // own program in this mount namespace proves the engine sees these folders.
  if (program != "podman" && program != "dockerd") return std::nullopt;
  std::string mine = Link("/proc/self/ns/mnt"), theirs = Link(proc + "/ns/mnt");
  if (mine.empty() || theirs != mine) return std::nullopt;
  return Locality{false, "its socket is served by " + program + " (pid " +
                             std::to_string(peer.pid) + ") in this machine's mount namespace"};
}

EngineHost HostFromInfo(const nlohmann::json& info, bool podman) {
  auto text = [&](const char* pointer) {
    auto value = info.value(nlohmann::json::json_pointer(pointer), nlohmann::json());
    return value.is_string() ? value.get<std::string>() : std::string();
  };
  if (!info.is_object()) return {};
  if (podman) return {text("/host/hostname"), text("/host/kernel"), text("/store/graphRoot")};
  return {text("/Name"), text("/KernelVersion"), text("/DockerRootDir")};
}

}  // namespace corral::launcher
