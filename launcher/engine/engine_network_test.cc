#include <gtest/gtest.h>

#include <cstdlib>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

using nlohmann::json;

TEST(NetworkCalls, TheAgentsNetworkIsInternal) {
  ApiCall call = CreateNetworkCall("corral-abc-inside", true, {{"corral.session", "abc"}});
  EXPECT_EQ(call.method, "POST");
  EXPECT_EQ(call.path, "/networks/create");
  EXPECT_EQ(call.body["Name"], "corral-abc-inside");
  EXPECT_EQ(call.body["Internal"], true);
  EXPECT_EQ(call.body["Driver"], "bridge");
  EXPECT_EQ(call.body["CheckDuplicate"], true);
  EXPECT_EQ(call.body["Labels"], json({{"corral.session", "abc"}}));
  EXPECT_EQ(CreateNetworkCall("out", false, {}).body["Internal"], false);
  EXPECT_EQ(CreateNetworkCall("out", false, {}).body["Labels"], json::object());
}

TEST(NetworkCalls, ConnectNamesTheContainerAndItsAliases) {
  ApiCall call = ConnectNetworkCall("corral-abc-out", "f00", {"corral-proxy"});
  EXPECT_EQ(call.method, "POST");
  EXPECT_EQ(call.path, "/networks/corral-abc-out/connect");
  EXPECT_EQ(call.body,
            json({{"Container", "f00"}, {"EndpointConfig", {{"Aliases", {"corral-proxy"}}}}}));
}

TEST(NetworkCalls, RemovalsAndArchiveEscapeTheirNames) {
  EXPECT_EQ(RemoveNetworkCall("a b").path, "/networks/a%20b");
  EXPECT_EQ(RemoveNetworkCall("n").method, "DELETE");
  EXPECT_TRUE(RemoveNetworkCall("n").body.is_null());
  EXPECT_EQ(RemoveVolumeCall("v").path, "/volumes/v?force=true");
  ApiCall put = PutArchiveCall("f00", "/run/corral");
  EXPECT_EQ(put.method, "PUT");
  EXPECT_EQ(put.path, "/containers/f00/archive?path=%2Frun%2Fcorral");
}

TEST(NetworkCalls, ArchiveOutAndVolumesByLabel) {
  ApiCall get = GetArchiveCall("f00", "/corral-project");
  EXPECT_EQ(get.method, "GET");
  EXPECT_EQ(get.path, "/containers/f00/archive?path=%2Fcorral-project");
  EXPECT_TRUE(get.body.is_null());
  ApiCall list = ListVolumesCall("corral.part=project");
  EXPECT_EQ(list.method, "GET");
  EXPECT_EQ(list.path, "/volumes?filters=%7B%22label%22%3A%5B%22corral.part%3Dproject%22%5D%7D");
}

TEST(NetworkCalls, CacheVolumesByNameAndRemovedWithoutForce) {
  ApiCall list = ListVolumesNamedCall("corral-cache-");
  EXPECT_EQ(list.method, "GET");
  EXPECT_EQ(list.path, "/volumes?filters=%7B%22name%22%3A%5B%22corral-cache-%22%5D%7D");
  // Podman's force would remove the containers that use it too.
  ApiCall remove = RemoveUnusedVolumeCall("corral-cache-npm-u1");
  EXPECT_EQ(remove.method, "DELETE");
  EXPECT_EQ(remove.path, "/volumes/corral-cache-npm-u1");
}

TEST(NetworkCalls, VolumeCarriesItsLabels) {
  ApiCall call = CreateVolumeCall("corral-abc-session", {{"corral.session", "abc"}});
  EXPECT_EQ(call.path, "/volumes/create");
  EXPECT_EQ(call.body,
            json({{"Name", "corral-abc-session"}, {"Labels", {{"corral.session", "abc"}}}}));
}

unsigned long Octal(const std::string& header, std::size_t at, std::size_t width) {
  return std::strtoul(header.substr(at, width).c_str(), nullptr, 8);
}

TEST(WriteTar, FilesFoldersAndLinks) {
  auto tar = WriteTar({{TarEntry::kFolder, "/bin", "", 0555, 0, 0},
                       {TarEntry::kFile, "bin/corral-shim", std::string(513, 'x'), 0555, 0, 0},
                       {TarEntry::kSymlink, "bin/sh", "corral-shell", 0777, 0, 0}},
                      1700000000);
  ASSERT_TRUE(tar);
  // folder, file header + two blocks of content, link, end.
  ASSERT_EQ(tar->size(), 512 + 512 + 1024 + 512 + 1024u);
  EXPECT_EQ(std::string(tar->c_str()), "bin/");
  EXPECT_EQ((*tar)[156], '5');
  std::string file = tar->substr(512, 512);
  EXPECT_EQ(std::string(file.c_str()), "bin/corral-shim");
  EXPECT_EQ(file[156], '0');
  EXPECT_EQ(Octal(file, 124, 11), 513u);
  EXPECT_EQ(Octal(file, 100, 7), 0555u);
  EXPECT_EQ(tar->substr(1024, 513), std::string(513, 'x'));
  EXPECT_EQ((*tar)[1024 + 513], '\0');  // padding
  std::string link = tar->substr(2048, 512);
  EXPECT_EQ(link[156], '2');
  EXPECT_EQ(std::string(link.c_str() + 157), "corral-shell");
  EXPECT_EQ(Octal(link, 124, 11), 0u);
  // A target too long for ustar goes in a pax header before the link's own.
  auto long_link = WriteTar({{TarEntry::kSymlink, "l", std::string(101, 'a'), 0777, 0, 0}}, 0);
  ASSERT_TRUE(long_link);
  EXPECT_EQ((*long_link)[156], 'x');
  EXPECT_NE(long_link->find("115 linkpath=" + std::string(101, 'a') + "\n"), std::string::npos);
  EXPECT_EQ(WriteTar({{TarEntry::kFile, "/", "", 0644, 0, 0}}, 0), std::nullopt);
}

}  // namespace
}  // namespace corral::launcher
