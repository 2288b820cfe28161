// Making and removing one session's network-mode objects, in order: a
// checklist, each step undone by TearDown whatever happened before it.
#include "launcher/network_mode/network_mode.h"

#include <time.h>

namespace corral::launcher::network_mode {
namespace {

Result<void> FillSessionVolume(Engine& engine, const Layout& layout, const SessionFiles& files,
                               const std::string& image) {
  auto tar = SessionVolumeTar(files, ::time(nullptr));
  if (!tar) return Error("the session's files do not fit a tar header");
  auto filler = engine.CreateContainer(FillerBody(layout, image), layout.filler,
                                       "make the container that fills the session volume");
  if (!filler) return filler.error();
  auto put = engine.PutArchive(*filler, kSessionMountPoint, *tar);
  (void)engine.Remove(*filler);
  if (!put) return put.error().Context("fill the session volume");
  return Ok();
}

Result<void> StartSidecar(Engine& engine, const SessionPlan& plan, const Layout& layout,
                          const std::string& image) {
  auto sidecar = engine.CreateContainer(SidecarBody(plan, layout, image), layout.sidecar,
                                        "make the proxy sidecar");
  if (!sidecar) return sidecar.error();
  if (auto ok = engine.Start(*sidecar); !ok) return ok.error().Context("start the proxy sidecar");
  return Ok();
}

Result<std::string> Steps(Engine& engine, const SessionPlan& plan, const Layout& layout,
                          const SessionFiles& files, const std::string& image) {
  if (auto ok = engine.CreateNetwork(layout.network, /*internal=*/false, layout.labels); !ok) {
    return ok.error();
  }
  if (auto ok = engine.CreateVolume(layout.session_volume, layout.labels); !ok) return ok.error();
  if (auto ok = FillSessionVolume(engine, layout, files, image); !ok) return ok.error();
  auto mountpoint = engine.VolumeMountpoint(layout.session_volume);
  if (!mountpoint) return mountpoint.error();
  if (auto ok = StartSidecar(engine, plan, layout, image); !ok) return ok.error();
  return *mountpoint;
}

}  // namespace

Result<std::string> BringUp(Engine& engine, const SessionPlan& plan, const Layout& layout,
                            const SessionFiles& files, const std::string& corral_image) {
  auto volume = Steps(engine, plan, layout, files, corral_image);
  if (!volume) {
    (void)TearDown(engine, layout);
    return volume.error().Context("set up the network mode");
  }
  return volume;
}

Result<void> TearDown(Engine& engine, const Layout& layout) {
  Result<void> first = Ok();
  auto keep = [&](Result<void> step) {
    if (!step && first) first = std::move(step);
  };
  keep(engine.Remove(layout.sidecar));
  keep(engine.Remove(layout.filler));
  keep(engine.Remove(layout.copier));  // the project volume stays: only a copy-back removes it
  keep(engine.RemoveNetwork(layout.network));
  keep(engine.RemoveVolume(layout.session_volume));
  return first;
}

std::vector<ApiCall> TearDownCalls(const Layout& layout) {
  auto remove = [](const std::string& name) {
    return ApiCall{"DELETE", "/containers/" + name + "?force=true&v=false", nullptr};
  };
  // Not the project volume: after a kill it holds the box's work until
  // `corral stop` copies it back.
  return {remove(layout.sidecar), remove(layout.filler), remove(layout.copier),
          RemoveNetworkCall(layout.network), RemoveVolumeCall(layout.session_volume)};
}

}  // namespace corral::launcher::network_mode
