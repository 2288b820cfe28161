#include "launcher/network_mode/network_mode.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace corral::launcher::network_mode {
namespace {

using nlohmann::json;

TEST(Layout, EveryObjectIsNamedAndLabelledWithTheSession) {
  Layout layout = LayoutFor("0123456789ab");
  EXPECT_EQ(layout.inside_network, "corral-0123456789ab-inside");
  EXPECT_EQ(layout.outside_network, "corral-0123456789ab-outside");
  EXPECT_EQ(layout.session_volume, "corral-0123456789ab-session");
  EXPECT_EQ(layout.sidecar, "corral-0123456789ab-proxy");
  EXPECT_EQ(layout.filler, "corral-0123456789ab-filler");
  EXPECT_EQ(layout.labels, (std::map<std::string, std::string>{{kLabelSession, "0123456789ab"}}));
}

// Each member's name, type, mode and owner, read back from the headers.
struct Member {
  std::string name;
  char type;
  unsigned long mode, uid, size;
};
std::vector<Member> Members(const std::string& tar) {
  std::vector<Member> members;
  for (std::size_t at = 0; at + 512 <= tar.size() && tar[at] != '\0';) {
    auto octal = [&](std::size_t off, std::size_t width) {
      return std::strtoul(tar.substr(at + off, width).c_str(), nullptr, 8);
    };
    Member m{tar.substr(at, 100).c_str(), tar[at + 156], octal(100, 7), octal(108, 7),
             octal(124, 11)};
    members.push_back(m);
    at += 512 + (m.size + 511) / 512 * 512;
  }
  return members;
}

TEST(SessionVolume, HoldsWhatTheSessionFolderHolds) {
  SessionFiles files{"SHIM",
                     "SHELL",
                     "{}",
                     "aws\n",
                     std::string("root:x:0:0\n"),
                     std::nullopt,
                     std::string("CERTS")};
  auto tar = SessionVolumeTar(files, 0);
  ASSERT_TRUE(tar);
  std::map<std::string, Member> by_name;
  for (const Member& m : Members(*tar)) by_name[m.name] = m;
  EXPECT_EQ(by_name["bin/corral-shim"].size, 4u);
  EXPECT_EQ(by_name["bin/corral-shim"].mode, 0555u);
  EXPECT_EQ(by_name["bin/sh"].type, '2');
  EXPECT_EQ(by_name["bin/bash"].type, '2');
  EXPECT_EQ(by_name["empty"].size, 0u);
  EXPECT_EQ(by_name["emptydir/"].type, '5');
  EXPECT_EQ(by_name["seccomp.json"].size, 2u);
  EXPECT_EQ(by_name["deny-list"].size, 4u);
  EXPECT_EQ(by_name["passwd"].size, 11u);
  EXPECT_FALSE(by_name.count("group"));
  EXPECT_EQ(by_name["ca.crt"].size, 5u);
  EXPECT_EQ(by_name["relay/"].uid, kSidecarUid) << "the sidecar's own, for the relay's socket";
  EXPECT_EQ(by_name["relay/"].mode, 0755u);
  EXPECT_EQ(by_name["oracle.sock"].type, '2') << "the shim's usual path, to the relay's socket";
  EXPECT_EQ(by_name["bin/corral-shim"].uid, 0u);
}

SessionPlan Plan() {
  SessionPlan plan;
  plan.session_id = "0123456789ab";
  plan.session_dir = "/run/user/1000/corral/sessions/0123456789ab";
  plan.allowed_domains = {"registry.npmjs.org", "github.com"};
  const std::string& dir = plan.session_dir;
  plan.mounts = {
      {MountKind::kBind, "/src/p", "/src/p", false, {}, "the project"},
      {MountKind::kBind, dir + "/emptydir", "/src/p/.git/hooks", true, {}, "hooks"},
      {MountKind::kBind, dir + "/empty", "/src/p/.env", true, {}, "masked"},
      {MountKind::kVolume, "corral-home-p", "/home/u", false, {}, "HOME"},
      {MountKind::kBind,
       "/etc/ssl/certs/ca-certificates.crt",
       "/etc/ssl/certs/ca-certificates.crt",
       true,
       {},
       "the host's trusted CA bundle"},
      {MountKind::kBind, dir, kSessionMountPoint, true, {}, "the session folder"},
      {MountKind::kBind, "/usr/lib/corral/corral-shim", kShimInBox, true, {}, "the shim"},
      {MountKind::kBind, "/usr/lib/corral/corral-shell", kShellInBox, true, {}, "the shell"},
      {MountKind::kBind, dir + "/passwd", "/etc/passwd", true, {}, "the image's /etc/passwd"},
  };
  plan.env = {"HTTPS_PROXY=http://127.0.0.1:3128", "http_proxy=http://127.0.0.1:3128",
              "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
              "GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt", "HOME=/home/u"};
  return plan;
}

TEST(SidecarBody, RunsTheSessionsListOnTheInsideNetworkLockedDown) {
  Layout layout = LayoutFor("0123456789ab");
  json body = SidecarBody(Plan(), layout, "corral:0.1.0");
  EXPECT_EQ(body["Image"], "corral:0.1.0");
  EXPECT_EQ(body["Cmd"], json({"proxy", "--listen", "0.0.0.0:3128", "--log", "-", "--allow",
                               "registry.npmjs.org", "--allow", "github.com"}));
  EXPECT_EQ(body["User"], "65534:65534");
  EXPECT_EQ(body["HostConfig"]["NetworkMode"], layout.inside_network);
  EXPECT_EQ(body["HostConfig"]["CapDrop"], json({"ALL"}));
  EXPECT_EQ(body["HostConfig"]["SecurityOpt"], json({"no-new-privileges"}));
  EXPECT_EQ(body["HostConfig"]["ReadonlyRootfs"], true);
  EXPECT_EQ(body["NetworkingConfig"]["EndpointsConfig"][layout.inside_network]["Aliases"],
            json({kProxyAlias}));
  EXPECT_EQ(body["Labels"]["corral.session"], "0123456789ab");
  EXPECT_EQ(body["Labels"][kLabelPart], "proxy");
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Source"], layout.session_volume);
  EXPECT_FALSE(body.dump().find("/run/user") != std::string::npos) << "no host path";
}

TEST(FillerBody, MountsTheVolumeAndIsNeverStarted) {
  Layout layout = LayoutFor("0123456789ab");
  json body = FillerBody(layout, "corral:0.1.0");
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Source"], layout.session_volume);
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Target"], kSessionMountPoint);
  EXPECT_EQ(body["HostConfig"]["NetworkMode"], "none");
}

TEST(AgentPlan, NoHostFolderButTheVisibleProject) {
  Layout layout = LayoutFor("0123456789ab");
  auto agent = AgentPlan(Plan(), layout, "http://corral-proxy:3128",
                         [](const std::string& p) { return p == "/src/p"; });
  ASSERT_TRUE(agent) << agent.error().message;
  EXPECT_EQ(agent->network_mode, layout.inside_network);
  std::map<std::string, Mount> by_target;
  for (const Mount& m : agent->mounts) by_target[m.target] = m;
  EXPECT_EQ(by_target.size(), 4u);
  EXPECT_EQ(by_target["/src/p"].kind, MountKind::kBind);
  EXPECT_EQ(by_target["/src/p/.git/hooks"].kind, MountKind::kTmpfs);
  EXPECT_TRUE(by_target["/src/p/.git/hooks"].read_only);
  EXPECT_EQ(by_target["/home/u"].kind, MountKind::kVolume);
  EXPECT_EQ(by_target[kSessionMountPoint].kind, MountKind::kVolume);
  EXPECT_EQ(by_target[kSessionMountPoint].source, layout.session_volume);
  EXPECT_TRUE(by_target[kSessionMountPoint].read_only);
  EXPECT_EQ(agent->masked_paths, std::vector<std::string>{"/src/p/.env"});
  EXPECT_EQ(agent->env,
            (std::vector<std::string>{"HTTPS_PROXY=http://corral-proxy:3128",
                                      "http_proxy=http://corral-proxy:3128",
                                      "SSL_CERT_FILE=/run/corral/ca.crt",
                                      "GIT_SSL_CAINFO=/run/corral/ca.crt", "HOME=/home/u"}));
  ASSERT_EQ(agent->notes.size(), 1u);
  EXPECT_NE(agent->notes[0].find("/etc/passwd"), std::string::npos);
}

TEST(AgentPlan, AFolderTheEngineCannotSeeIsAnError) {
  auto agent =
      AgentPlan(Plan(), LayoutFor("0123456789ab"), "http://10.0.0.2:3128",
                         [](const std::string&) { return false; });
  ASSERT_FALSE(agent);
  EXPECT_NE(agent.error().message.find("cannot see /src/p"), std::string::npos);
}

TEST(TearDownCalls, ContainersBeforeTheirNetworksAndVolume) {
  Layout layout = LayoutFor("0123456789ab");
  std::vector<std::string> paths;
  for (const ApiCall& call : TearDownCalls(layout)) {
    EXPECT_EQ(call.method, "DELETE");
    paths.push_back(call.path);
  }
  EXPECT_EQ(paths,
            (std::vector<std::string>{"/containers/corral-0123456789ab-proxy?force=true&v=false",
                                      "/containers/corral-0123456789ab-filler?force=true&v=false",
                                      "/containers/corral-0123456789ab-copier?force=true&v=false",
                                      "/networks/corral-0123456789ab-inside",
                                      "/networks/corral-0123456789ab-outside",
                                      "/volumes/corral-0123456789ab-session?force=true"}));
}

}  // namespace
}  // namespace corral::launcher::network_mode
