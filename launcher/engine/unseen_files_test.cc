#include <gtest/gtest.h>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

// Each engine's own answer to a create whose bind source it does not have,
// as the test engines gave it (docker 20.10.24: HTTP 400; podman 4.3.1: HTTP 500).
constexpr const char* kDocker =
    "invalid mount config for type \"bind\": bind source path does not exist: /srv/work/proj";
constexpr const char* kPodman = "statfs /srv/work/proj: no such file or directory";

TEST(UnseenFiles, TheMissingPathIsReadFromEachEnginesMessage) {
  EXPECT_EQ(MissingBindSource(kDocker), "/srv/work/proj");
  EXPECT_EQ(MissingBindSource(kPodman), "/srv/work/proj");
  EXPECT_EQ(MissingBindSource("No such image: corral-test:latest"), "");
  EXPECT_EQ(MissingBindSource("statfs /x: permission denied"), "");
}

TEST(UnseenFiles, OneLineNamingTheNetworkModeWhenThisMachineHasThePath) {
  auto here = [](const std::string& path) { return path == "/srv/work/proj"; };
  for (const char* message : {kDocker, kPodman}) {
    std::string line = CannotSeeFilesLine("unix:///run/e.sock", message, here);
    EXPECT_EQ(line,
              "the engine at unix:///run/e.sock cannot see this machine's files (it has no "
              "/srv/work/proj): run with CORRAL_ENGINE_MODE=network CORRAL_PROJECT_SHARED=0, which "
              "copy the project to the engine through a volume and back (docs/network-mode.md)");
    EXPECT_EQ(line.find('\n'), std::string::npos);
  }
  // Gone here too: not a question of what the engine sees; its own message stands.
  auto nowhere = [](const std::string&) { return false; };
  EXPECT_EQ(CannotSeeFilesLine("unix:///run/e.sock", kDocker, nowhere), "");
  EXPECT_EQ(CannotSeeFilesLine("unix:///run/e.sock", "conflict: name in use", here), "");
}

}  // namespace
}  // namespace corral::launcher
