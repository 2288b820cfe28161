// Named volumes by name, for `corral cache`: listed by a part of their name,
// and removed only when no container uses them.
#include "launcher/engine/engine.h"
#include "launcher/engine/expect.h"

namespace corral::launcher {

ApiCall ListVolumesNamedCall(const std::string& part) {
  nlohmann::json filters = {{"name", {part}}};
  return {"GET", "/volumes?filters=" + Escape(filters.dump()), nullptr};
}

// Without force: Podman's force also removes the containers that use it.
ApiCall RemoveUnusedVolumeCall(const std::string& name) {
  return {"DELETE", "/volumes/" + Escape(name), nullptr};
}

Result<nlohmann::json> Engine::ListVolumesNamed(const std::string& part) {
  ApiCall call = ListVolumesNamedCall(part);
  return VolumesIn(Call(call.method, call.path, "", 30000));
}

Result<VolumeRemoval> Engine::RemoveUnusedVolume(const std::string& name) {
  ApiCall call = RemoveUnusedVolumeCall(name);
  auto response = Call(call.method, call.path, "", 30000);
  if (response && response->status == 404) return VolumeRemoval::kMissing;
  if (response && response->status == 409) return VolumeRemoval::kInUse;
  if (auto ok = Expect(response, "remove volume " + name); !ok) return ok.error();
  return VolumeRemoval::kRemoved;
}

}  // namespace corral::launcher
