// Telling an engine on this machine from one elsewhere.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <gtest/gtest.h>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

bool Everywhere(const std::string&) { return true; }
bool Nowhere(const std::string&) { return false; }

TEST(JudgeLocality, SameNameKernelAndDataRootIsHere) {
  EngineHost here{"vm", "6.1.0", ""};
  auto local = JudgeLocality({"vm", "6.1.0", "/var/lib/docker"}, here, Everywhere);
  EXPECT_FALSE(local.remote) << local.why;
  EXPECT_NE(local.why.find("'vm'"), std::string::npos);
}

TEST(JudgeLocality, AnotherNameKernelOrMissingDataRootIsElsewhere) {
  EngineHost here{"vm", "6.1.0", ""};
  auto name = JudgeLocality({"builder", "6.1.0", "/var/lib/docker"}, here, Everywhere);
  EXPECT_TRUE(name.remote);
  EXPECT_EQ(name.why, "it runs on host 'builder', this is 'vm'");
  auto kernel = JudgeLocality({"vm", "5.10.0", ""}, here, Everywhere);
  EXPECT_TRUE(kernel.remote);
  EXPECT_NE(kernel.why.find("kernel 5.10.0"), std::string::npos);
  // Cloned machines share name and kernel; the data root tells them apart.
  auto root = JudgeLocality({"vm", "6.1.0", "/srv/docker"}, here, Nowhere);
  EXPECT_TRUE(root.remote);
  EXPECT_NE(root.why.find("/srv/docker"), std::string::npos);
}

TEST(JudgeLocality, AnEngineThatSaysNothingIsTakenAsRemote) {
  auto silent = JudgeLocality({}, {"vm", "6.1.0", ""}, Everywhere);
  EXPECT_TRUE(silent.remote) << "fail closed: its boxes might not see this machine's folders";
}

TEST(HostFromInfo, DockerAndPodmanFields) {
  auto docker = HostFromInfo(nlohmann::json::parse(
                                 R"({"Name":"b","KernelVersion":"6.1","DockerRootDir":"/d"})"),
                             false);
  EXPECT_EQ(docker.hostname, "b");
  EXPECT_EQ(docker.kernel, "6.1");
  EXPECT_EQ(docker.root_dir, "/d");
  auto podman = HostFromInfo(
      nlohmann::json::parse(
          R"({"host":{"hostname":"p","kernel":"6.2"},"store":{"graphRoot":"/g"}})"),
      true);
  EXPECT_EQ(podman.hostname, "p");
  EXPECT_EQ(podman.kernel, "6.2");
  EXPECT_EQ(podman.root_dir, "/g");
  EXPECT_EQ(HostFromInfo(nlohmann::json::parse("[]"), true).hostname, "");
}

TEST(SocketServedHere, AForwarderIsNotProofOfThisMachine) {
  // This test program serves the socket: not dockerd or podman, so it cannot say.
  char dir[] = "/tmp/corral-remote-XXXXXX";
  ASSERT_TRUE(::mkdtemp(dir));
  std::string path = std::string(dir) + "/s.sock";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, path.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  EXPECT_FALSE(SocketServedHere(path));
  ::close(fd);
  ::unlink(path.c_str());
  ::rmdir(dir);
  EXPECT_FALSE(SocketServedHere(path)) << "nobody listens";
}

}  // namespace
}  // namespace corral::launcher
