// Making and removing one session's network-mode objects, in order: a
// checklist, each step undone by TearDown whatever happened before it.
#include "launcher/network_mode/network_mode.h"

#include <time.h>

#include <future>

namespace corral::launcher::network_mode {

// The sidecar is made, and the session's files are put into the volume
// through it before it starts (it has the volume at /run/corral), so no
// container is made only to fill the volume.
Result<void> MakeSidecar(Engine& engine, const SessionPlan& plan, const Layout& layout,
                         const SessionFiles& files, const std::string& image, bool fill,
                         const SidecarProxy& proxy) {
  auto sidecar = engine.CreateContainer(
      ForEngine(SidecarBody(plan, layout, image, kSidecarNetwork, engine.podman(), proxy), engine),
      layout.sidecar, "make the proxy sidecar");
  if (!sidecar) {
    // An engine with user namespaces shares no host namespace: a network of
    // the session's own, then.
    if (auto ok = engine.CreateNetwork(layout.network, /*internal=*/false, layout.labels); !ok) {
      return ok.error().Context("the sidecar's network (the host's was refused: " +
                                sidecar.error().message + ")");
    }
    sidecar = engine.CreateContainer(
        ForEngine(SidecarBody(plan, layout, image, layout.network, engine.podman(), proxy), engine),
        layout.sidecar, "make the proxy sidecar");
  }
  if (!sidecar) return sidecar.error();
  if (!fill) return Ok();
  auto tar = SessionVolumeTar(files, ::time(nullptr));
  if (!tar) return Error("the session's files do not fit a tar header");
  if (auto put = engine.PutArchive(*sidecar, kSessionFillPath, *tar); !put) {
    return put.error().Context("fill the session volume");
  }
  return Ok();
}

Result<std::string> MakeSessionVolume(Engine& engine, const Layout& layout) {
  auto relay = std::async(std::launch::async,
                          [&] { return engine.CreateVolume(layout.relay_volume, layout.labels); });
  auto session = engine.CreateVolume(layout.session_volume, layout.labels);
  if (auto made = relay.get(); !made) return made.error();
  return session;
}

Result<void> StartSidecar(Engine& engine, const Layout& layout) {
  if (auto ok = engine.Start(layout.sidecar); !ok) return ok.error().Context("start the proxy sidecar");
  return Ok();
}

Result<void> TearDown(Engine& engine, const Layout& layout) {
  // The containers at once, then what they used at once: each removal is a
  // request of its own, and the engine does them side by side.
  // Not the copier: a copy-back may be reading through it (it removes it).
  auto containers = {layout.sidecar};
  std::vector<std::future<Result<void>>> removals;
  for (const std::string& name : containers) {
    removals.push_back(std::async(std::launch::async, [&engine, name] { return engine.Remove(name); }));
  }
  Result<void> first = Ok();
  auto keep = [&](Result<void> step) {
    if (!step && first) first = std::move(step);
  };
  for (auto& removal : removals) keep(removal.get());
  // The project volume stays: only a copy-back removes it.
  auto network = std::async(std::launch::async,
                            [&] { return engine.RemoveNetwork(layout.network); });
  auto relay = std::async(std::launch::async,
                          [&] { return engine.RemoveVolume(layout.relay_volume); });
  keep(engine.RemoveVolume(layout.session_volume));
  keep(relay.get());
  keep(network.get());
  return first;
}

std::vector<ApiCall> TearDownCalls(const Layout& layout) {
  auto remove = [](const std::string& name) {
    return ApiCall{"DELETE", "/containers/" + name + "?force=true&v=false", nullptr};
  };
  // Not the project volume: after a kill it holds the box's work until
  // `corral stop` copies it back.
  return {remove(layout.sidecar), remove(layout.copier), RemoveNetworkCall(layout.network),
          RemoveVolumeCall(layout.session_volume), RemoveVolumeCall(layout.relay_volume)};
}

}  // namespace corral::launcher::network_mode
