#include "launcher/network_mode/network_mode.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace corral::launcher::network_mode {
namespace {

using nlohmann::json;

TEST(Layout, EveryObjectIsNamedAndLabelledWithTheSession) {
  Layout layout = LayoutFor("0123456789ab");
  EXPECT_EQ(layout.network, "corral-0123456789ab-network");
  EXPECT_EQ(layout.session_volume, "corral-0123456789ab-session");
  EXPECT_EQ(layout.sidecar, "corral-0123456789ab-proxy");
  EXPECT_EQ(layout.labels, (std::map<std::string, std::string>{{kLabelSession, "0123456789ab"}}));
}

// Each member's name, type, mode and owner, read back from the headers.
struct Member {
  std::string name;
  char type;
  unsigned long mode, uid, size, gid;
};
std::vector<Member> Members(const std::string& tar) {
  std::vector<Member> members;
  for (std::size_t at = 0; at + 512 <= tar.size() && tar[at] != '\0';) {
    auto octal = [&](std::size_t off, std::size_t width) {
      return std::strtoul(tar.substr(at + off, width).c_str(), nullptr, 8);
    };
    Member m{tar.substr(at, 100).c_str(), tar[at + 156], octal(100, 7), octal(108, 7),
             octal(124, 11), octal(116, 7)};
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
                     std::string("CERTS"),
                     1000};
  auto tar = SessionVolumeTar(files, 0);
  ASSERT_TRUE(tar);
  std::map<std::string, Member> by_name;
  for (const Member& m : Members(*tar)) by_name[m.name] = m;
  EXPECT_EQ(by_name["corral/bin/corral-shim"].size, 4u);
  EXPECT_EQ(by_name["corral/bin/corral-shim"].mode, 0555u);
  EXPECT_EQ(by_name["corral/bin/sh"].type, '2');
  EXPECT_EQ(by_name["corral/bin/bash"].type, '2');
  EXPECT_EQ(by_name["corral/empty"].size, 0u);
  EXPECT_EQ(by_name["corral/emptydir/"].type, '5');
  EXPECT_EQ(by_name["corral/seccomp.json"].size, 2u);
  EXPECT_EQ(by_name["corral/deny-list"].size, 4u);
  EXPECT_EQ(by_name["corral/passwd"].size, 11u);
  EXPECT_FALSE(by_name.count("corral/group"));
  EXPECT_EQ(by_name["corral/ca.crt"].size, 5u);
  EXPECT_EQ(by_name["corral/relay/"].uid, kSidecarUid) << "the sidecar's own, for the relay's socket";
  EXPECT_EQ(by_name["corral/relay/"].mode, 0755u);
  for (const char* socket : {"oracle.sock", "proxy.sock", "watchdog.sock"}) {
    EXPECT_EQ(by_name[std::string("corral/") + socket].type, '2') << socket << ": the shim's usual path, into relay/";
  }
  EXPECT_EQ(by_name["corral/bin/corral-shim"].uid, 0u);
  // The volume's root, named from the mount's parent: the box user's alone.
  EXPECT_EQ(Members(*tar).front().name, "corral/");
  EXPECT_EQ(by_name["corral/"].uid, 1000u);
  EXPECT_EQ(by_name["corral/"].mode, 0700u);
}

// Through the copier (PUT at "/"): named from its mount, and without the
// programs when the engine copies them in from the corral image.
TEST(SessionVolume, ThroughTheCopierWithoutThePrograms) {
  SessionFiles files{"SHIM", "SHELL", "{}", "aws\n", std::nullopt, std::nullopt, std::nullopt, 1000};
  auto tar = SessionVolumeTar(files, 0, kCopierSessionMount, /*programs=*/false);
  ASSERT_TRUE(tar);
  std::map<std::string, Member> by_name;
  for (const Member& m : Members(*tar)) by_name[m.name] = m;
  EXPECT_EQ(Members(*tar).front().name, "corral-session/");
  EXPECT_EQ(by_name["corral-session/"].mode, 0700u);
  EXPECT_FALSE(by_name.count("corral-session/bin/corral-shim"));
  EXPECT_FALSE(by_name.count("corral-session/bin/corral-shell"));
  EXPECT_EQ(by_name["corral-session/bin/sh"].type, '2') << "the shell names still link to it";
  EXPECT_EQ(by_name["corral-session/deny-list"].size, 4u);
}

TEST(SessionVolume, TheDenyListAloneIsNamedInsideTheMount) {
  auto tar = DenyListTar("aws\nfrobnicate\n", 0);
  ASSERT_TRUE(tar);
  auto members = Members(*tar);
  ASSERT_EQ(members.size(), 1u);
  EXPECT_EQ(members[0].name, "deny-list");
  EXPECT_EQ(members[0].size, 15u);
  EXPECT_EQ(members[0].mode, 0444u);
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

TEST(SidecarBody, RunsTheSessionsListOnItsSocketInTheVolumeLockedDown) {
  Layout layout = LayoutFor("0123456789ab");
  json body = SidecarBody(Plan(), layout, "corral:0.1.0", "host", /*podman=*/false);
  EXPECT_EQ(body["Image"], "corral:0.1.0");
  EXPECT_EQ(body["Cmd"], json({"proxy", "--listen", "unix:/corral-relay/proxy.sock",
                               "--socket-mode", "0666", "--log", "-", "--allow",
                               "registry.npmjs.org", "--allow", "github.com"}));
  EXPECT_EQ(body["User"], "65534:65534");
  EXPECT_EQ(body["HostConfig"]["NetworkMode"], "host");
  EXPECT_EQ(body["HostConfig"]["CapDrop"], json({"ALL"}));
  EXPECT_EQ(body["HostConfig"]["SecurityOpt"], json({"no-new-privileges"}));
  EXPECT_EQ(body["HostConfig"]["ReadonlyRootfs"], true);
  EXPECT_EQ(body["Labels"]["corral.session"], "0123456789ab");
  EXPECT_EQ(body["Labels"][kLabelPart], "proxy");
  // Docker: /run a mount of its own, so the fill can name the volume's root from it.
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Type"], "tmpfs");
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Target"], kSessionFillPath);
  EXPECT_EQ(body["HostConfig"]["Mounts"][1]["Source"], layout.session_volume);
  EXPECT_EQ(body["HostConfig"]["Mounts"][1]["Target"], kSessionMountPoint);
  EXPECT_EQ(body["HostConfig"]["Mounts"][2]["Source"], layout.relay_volume);
  EXPECT_EQ(body["HostConfig"]["Mounts"][2]["Target"], kRelayMount);
  EXPECT_FALSE(body.dump().find("/run/user") != std::string::npos) << "no host path";
  // Podman: none (it would copy the fill it keeps in the container's /run into it).
  json on_podman = SidecarBody(Plan(), layout, "corral:0.1.0", "host", /*podman=*/true);
  ASSERT_EQ(on_podman["HostConfig"]["Mounts"].size(), 2u);
  EXPECT_EQ(on_podman["HostConfig"]["Mounts"][0]["Source"], layout.session_volume);
}

TEST(FillerBody, MountsTheVolumeAndIsNeverStarted) {
  Layout layout = LayoutFor("0123456789ab");
  json body = FillerBody(layout, "corral:0.1.0");
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Source"], layout.session_volume);
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Target"], kCopierSessionMount)
      << "where the corral image holds the shim and the shell, for Docker to copy in";
  EXPECT_EQ(body["HostConfig"]["NetworkMode"], "none");
}

TEST(AgentPlan, NoHostFolderButTheVisibleProject) {
  Layout layout = LayoutFor("0123456789ab");
  const std::string volume = "/var/lib/docker/volumes/corral-0123456789ab-session/_data";
  auto agent = AgentPlan(Plan(), layout, volume, [](const std::string& p) { return p == "/src/p"; });
  ASSERT_TRUE(agent) << agent.error().message;
  EXPECT_EQ(agent->network_mode, "none") << "no network, as locally: the shim bridges the proxy";
  EXPECT_EQ(agent->seccomp_path, volume + "/seccomp.json");
  std::map<std::string, Mount> by_target;
  for (const Mount& m : agent->mounts) by_target[m.target] = m;
  EXPECT_EQ(by_target.size(), 10u);
  EXPECT_EQ(by_target["/src/p"].kind, MountKind::kBind);
  EXPECT_EQ(by_target["/src/p"].source, "/src/p");
  EXPECT_EQ(by_target["/home/u"].kind, MountKind::kVolume);
  EXPECT_EQ(by_target[kSessionMountPoint].kind, MountKind::kVolume);
  EXPECT_EQ(by_target[kSessionMountPoint].source, layout.session_volume);
  EXPECT_TRUE(by_target[kSessionMountPoint].read_only);
  const std::string relay = std::string(kSessionMountPoint) + "/" + kRelayFolder;
  EXPECT_EQ(by_target[relay].kind, MountKind::kVolume);
  EXPECT_EQ(by_target[relay].source, layout.relay_volume);
  EXPECT_TRUE(by_target[relay].read_only) << "the agent connects, never binds";
  // Everything else of this machine is bound from the volume on the engine's host.
  std::map<std::string, std::string> from_volume = {
      {"/src/p/.git/hooks", "emptydir"},
      {"/src/p/.env", "empty"},
      {"/etc/ssl/certs/ca-certificates.crt", "ca.crt"},
      {kShimInBox, "bin/corral-shim"},
      {kShellInBox, "bin/corral-shell"},
      {"/etc/passwd", "passwd"}};
  for (const auto& [target, name] : from_volume) {
    EXPECT_EQ(by_target[target].kind, MountKind::kBind) << target;
    EXPECT_EQ(by_target[target].source, volume + "/" + name) << target;
    EXPECT_TRUE(by_target[target].read_only) << target;
    EXPECT_STREQ(BindPropagation(by_target[target]), "rslave") << "Docker's rule in its root";
  }
  std::vector<std::string> env = Plan().env;
  env.push_back("CORRAL_WATCHDOG_WAIT_MS=" + std::to_string(kRelayWaitMs));
  EXPECT_EQ(agent->env, env)
      << "the box finds everything where it does locally, and waits for the relay";
  for (const Mount& m : agent->mounts) {
    EXPECT_NE(m.source.rfind("/run/user/", 0), 0u) << "no path of this machine: " << m.source;
  }
}

TEST(AgentPlan, AFolderTheEngineCannotSeeIsAnError) {
  auto agent =
      AgentPlan(Plan(), LayoutFor("0123456789ab"), "/v/seccomp.json",
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
                                      "/containers/corral-0123456789ab-copier?force=true&v=false",
                                      "/networks/corral-0123456789ab-network",
                                      "/volumes/corral-0123456789ab-session?force=true",
                                      "/volumes/corral-0123456789ab-relay?force=true"}));
}

}  // namespace
}  // namespace corral::launcher::network_mode
