// Engine URLs and the order in which the places that name an engine are read.
#include <gtest/gtest.h>

#include <map>

#include "launcher/engine/engine.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

std::function<const char*(const char*)> Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  };
}

TEST(ParseEndpoint, SshInDockersAndPodmansForms) {
  auto docker = ParseEndpoint("ssh://builder", "DOCKER_HOST");
  ASSERT_TRUE(docker) << docker.error().message;
  ASSERT_TRUE(docker->ssh);
  EXPECT_EQ(docker->ssh->host, "builder");
  EXPECT_EQ(docker->ssh->user, "");
  EXPECT_EQ(docker->ssh->port, "");
  EXPECT_EQ(docker->ssh->socket, "") << "no path: docker system dial-stdio there";

  auto podman = ParseEndpoint("ssh://core@10.0.0.5:2222/run/user/1000/podman/podman.sock", "x");
  ASSERT_TRUE(podman) << podman.error().message;
  EXPECT_EQ(podman->ssh->user, "core");
  EXPECT_EQ(podman->ssh->host, "10.0.0.5");
  EXPECT_EQ(podman->ssh->port, "2222");
  EXPECT_EQ(podman->ssh->socket, "/run/user/1000/podman/podman.sock");
  EXPECT_TRUE(podman->socket_path.empty()) << "the tunnel's socket is set when it opens";

  auto v6 = ParseEndpoint("ssh://me@[::1]:22/run/podman/podman.sock", "x");
  ASSERT_TRUE(v6) << v6.error().message;
  EXPECT_EQ(v6->ssh->host, "::1");
  EXPECT_EQ(v6->ssh->port, "22");
}

TEST(ParseEndpoint, SshRefusesWhatSshWouldMisread) {
  for (const char* url : {"ssh://", "ssh://-oProxyCommand=sh", "ssh://-l@host", "ssh://@host",
                          "ssh://host:22x", "ssh://host:/", "ssh://[::1", "ssh://host/"}) {
    auto parsed = ParseEndpoint(url, "DOCKER_HOST");
    EXPECT_FALSE(parsed) << url;
    if (!parsed) {
      EXPECT_NE(parsed.error().message.find("DOCKER_HOST"), std::string::npos) << url;
    }
  }
}

TEST(ParseEndpoint, TcpIsHttpsOnlyWithTls) {
  auto plain = ParseEndpoint("tcp://127.0.0.1:2375", "x");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->base, "http://127.0.0.1:2375");
  TlsSettings tls{true, "/c/ca.pem", "/c/cert.pem", "/c/key.pem"};
  auto secure = ParseEndpoint("tcp://docker:2376", "x", tls);
  ASSERT_TRUE(secure);
  EXPECT_EQ(secure->base, "https://docker:2376");
  EXPECT_EQ(secure->ca, "/c/ca.pem");
  EXPECT_EQ(secure->key, "/c/key.pem");
  EXPECT_FALSE(ParseEndpoint("tcp://", "x"));
  EXPECT_FALSE(ParseEndpoint("npipe:////./pipe/docker_engine", "x"));
}

TEST(TlsFromEnvironment, DockerVariablesThenCorralsFlags) {
  EXPECT_FALSE(TlsFromEnvironment(Env({}), "/home/u").on);
  EXPECT_FALSE(TlsFromEnvironment(Env({{"DOCKER_TLS_VERIFY", "0"}}), "/home/u").on);
  auto docker = TlsFromEnvironment(Env({{"DOCKER_TLS_VERIFY", "1"}}), "/home/u");
  EXPECT_TRUE(docker.on);
  EXPECT_EQ(docker.ca, "/home/u/.docker/ca.pem") << "DOCKER_CERT_PATH's default";
  auto flags = TlsFromEnvironment(Env({{"DOCKER_TLS_VERIFY", "1"},
                                       {"DOCKER_CERT_PATH", "/certs"},
                                       {"CORRAL_ENGINE_TLS_CA", "/mine/ca.pem"}}),
                                  "/home/u");
  EXPECT_EQ(flags.ca, "/mine/ca.pem");
  EXPECT_EQ(flags.cert, "/certs/cert.pem");
  auto ca_only = TlsFromEnvironment(Env({{"CORRAL_ENGINE_TLS_CA", "/mine/ca.pem"}}), "/home/u");
  EXPECT_TRUE(ca_only.on) << "a flag alone turns TLS on";
  EXPECT_EQ(ca_only.cert, "");
}

// A home with a Docker context "remote" in use and a Podman connection "pod"
// as the active service, as `docker context use` and `podman system
// connection default` leave them.
struct Homes {
  TempTree tree;
  std::string home = tree.Dir("home");
  std::string conf;
  Homes() {
    tree.File("home/.docker/config.json", R"({"currentContext": "remote"})");
    tree.File("home/.docker/contexts/meta/0123abcd/meta.json",
              R"({"Name":"remote","Endpoints":{"docker":{"Host":"ssh://ci@builder"}}})");
    tree.File("home/.docker/contexts/meta/4567ef/meta.json",
              R"({"Name":"tls","Endpoints":{"docker":{"Host":"tcp://dind:2376"}}})");
    tree.File("home/.docker/contexts/tls/4567ef/docker/ca.pem", "x");
    conf = tree.File("containers.conf",
                     "[engine]\nactive_service = \"pod\"\n"
                     "[engine.service_destinations.pod]\n"
                     "uri = \"ssh://core@vm:2222/run/user/1000/podman/podman.sock\"\n"
                     "identity = \"/keys/vm\"\n");
  }
  std::map<std::string, std::string> Vars(std::map<std::string, std::string> more = {}) const {
    more["HOME"] = home;
    more.emplace("CONTAINERS_CONF", conf);
    return more;
  }
};

std::string Chosen(const Result<EngineChoice>& choice) {
  if (!choice) return "error: " + choice.error().message;
  if (!choice->named) return "none named";
  return choice->candidates.at(0).url + " from " + choice->candidates.at(0).source;
}

TEST(ChooseEndpoints, DocumentedOrder) {
  Homes h;
  auto vars = h.Vars({{"DOCKER_HOST", "unix:///d.sock"}, {"CONTAINER_HOST", "unix:///c.sock"}});
  EXPECT_EQ(Chosen(ChooseEndpoints("unix:///flag.sock", "", Env(vars))),
            "unix:///flag.sock from --engine");
  EXPECT_EQ(Chosen(ChooseEndpoints("", "unix:///conf.sock", Env(vars))),
            "unix:///conf.sock from engine (config or CORRAL_ENGINE)");
  EXPECT_EQ(Chosen(ChooseEndpoints("", "", Env(vars))), "unix:///d.sock from DOCKER_HOST");
  vars.erase("DOCKER_HOST");
  EXPECT_EQ(Chosen(ChooseEndpoints("", "", Env(vars))), "unix:///c.sock from CONTAINER_HOST");
  vars.erase("CONTAINER_HOST");
  EXPECT_EQ(Chosen(ChooseEndpoints("", "", Env(vars))),
            "ssh://ci@builder from docker context 'remote' (" + h.home + "/.docker/config.json)");
  vars["DOCKER_CONTEXT"] = "tls";
  auto tls = ChooseEndpoints("", "", Env(vars));
  ASSERT_TRUE(tls) << tls.error().message;
  EXPECT_EQ(tls->candidates[0].base, "https://dind:2376") << "the context's own tls/ files";
  EXPECT_EQ(tls->candidates[0].ca, h.home + "/.docker/contexts/tls/4567ef/docker/ca.pem");
  vars["DOCKER_CONTEXT"] = "default";
  auto pod = ChooseEndpoints("", "", Env(vars));
  EXPECT_EQ(Chosen(pod), "ssh://core@vm:2222/run/user/1000/podman/podman.sock from podman "
                         "connection 'pod' (" + h.conf + ")");
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->candidates[0].ssh->identity, "/keys/vm");
  vars["CONTAINERS_CONF"] = h.tree.root() + "/none.conf";
  EXPECT_EQ(Chosen(ChooseEndpoints("", "", Env(vars))), "none named");
}

TEST(ChooseEndpoints, AContextThatIsNotThereIsAnError) {
  Homes h;
  auto vars = h.Vars({{"DOCKER_CONTEXT", "gone"}});
  auto choice = ChooseEndpoints("", "", Env(vars));
  ASSERT_FALSE(choice);
  EXPECT_NE(choice.error().message.find("docker context 'gone' (DOCKER_CONTEXT)"),
            std::string::npos)
      << choice.error().message;
  vars = h.Vars({{"DOCKER_CONTEXT", "default"}, {"CONTAINER_CONNECTION", "nope"}});
  choice = ChooseEndpoints("", "", Env(vars));
  ASSERT_FALSE(choice);
  EXPECT_NE(choice.error().message.find("podman connection 'nope'"), std::string::npos);
}

TEST(ChooseEndpoints, ABrokenContainersConfNamesItsLine) {
  TempTree tree;
  std::string conf = tree.File("containers.conf", "[engine]\nactive_service = \n");
  auto choice = ChooseEndpoints("", "", Env({{"HOME", tree.Dir("h")}, {"CONTAINERS_CONF", conf}}));
  ASSERT_FALSE(choice);
  EXPECT_NE(choice.error().message.find(conf + ":2"), std::string::npos)
      << choice.error().message;
}

}  // namespace
}  // namespace corral::launcher
