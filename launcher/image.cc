// The session's image: there already, or pulled once. (Building corral's own
// images from images/ belongs here too.)
#include "launcher/engine.h"

namespace corral::launcher {

Result<void> EnsureImage(Engine& engine, const std::string& image) {
  auto exists = engine.ImageExists(image);
  if (!exists) return exists.error();
  if (*exists) return Ok();
  if (auto pulled = engine.Pull(image); !pulled) {
    return pulled.error().Context("the image " + image + " is not on this engine and could not "
                                  "be pulled; build or pull it, or choose another with --image");
  }
  return Ok();
}

}  // namespace corral::launcher
