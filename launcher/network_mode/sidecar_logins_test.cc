#include <gtest/gtest.h>

#include <map>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

using nlohmann::json;

netfilter::Login Anthropic() {
  netfilter::Login login;
  login.name = "ANTHROPIC_API_KEY";
  login.hosts = {"api.anthropic.com:443"};
  login.header = "x-api-key";
  login.value = "sk-ant-api03-REALREALREAL";
  login.stand_in = "sk-ant-api03-standinstand";
  return login;
}

std::function<const char*(const char*)> Env(std::map<std::string, std::string> values) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [held](const char* name) -> const char* {
    auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

TEST(ProxyLoginsJson, ReadsBackWhatItWrote) {
  ProxyLogins logins{{Anthropic()}, {"CERT", "KEY"}, "UPSTREAM", {}};
  auto back = ParseProxyLogins(ProxyLoginsJson(logins), nullptr);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->logins.size(), 1u);
  const netfilter::Login& login = back->logins[0];
  EXPECT_EQ(login.name, "ANTHROPIC_API_KEY");
  EXPECT_EQ(login.hosts, std::vector<std::string>{"api.anthropic.com:443"});
  EXPECT_EQ(login.header, "x-api-key");
  EXPECT_EQ(login.value, "sk-ant-api03-REALREALREAL");
  EXPECT_EQ(login.stand_in, "sk-ant-api03-standinstand");
  EXPECT_EQ(back->ca.cert, "CERT");
  EXPECT_EQ(back->ca.key, "KEY");
  EXPECT_EQ(back->upstream_ca, "UPSTREAM");
}

TEST(ProxyLoginsJson, KeepsEachLoginsForm) {
  netfilter::Login git = Anthropic();
  git.name = "GH_TOKEN";
  git.header = "Authorization";
  git.prefix = "Basic ";
  git.basic = true;
  netfilter::Login refresh = Anthropic();
  refresh.name = "refresh";
  refresh.header = "";
  refresh.in_body = true;
  auto back = ParseProxyLogins(ProxyLoginsJson({{git, refresh, Anthropic()}, {}, "", {}}), nullptr);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->logins.size(), 3u);
  EXPECT_TRUE(back->logins[0].basic);
  EXPECT_FALSE(back->logins[0].in_body);
  EXPECT_TRUE(back->logins[1].in_body);
  EXPECT_EQ(back->logins[1].header, "");
  EXPECT_FALSE(back->logins[2].basic || back->logins[2].in_body);
}

TEST(ProxyLoginsJson, CarriesTheForgeToTheSidecar) {
  netfilter::forge::ForgeConfig forge;
  forge.forges.push_back({"github.com:443", "api.github.com:443", false, {"me/proj", "me/docs"}});
  forge.protected_branches = {"release"};
  forge.other_reads = false;
  auto back = ParseProxyLogins(ProxyLoginsJson({{}, {"CERT", "KEY"}, "", forge}), nullptr);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->forge.forges.size(), 1u);
  EXPECT_EQ(back->forge.forges[0].git_host, "github.com:443");
  EXPECT_EQ(back->forge.forges[0].api_host, "api.github.com:443");
  EXPECT_EQ(back->forge.forges[0].repositories, (std::vector<std::string>{"me/proj", "me/docs"}));
  EXPECT_EQ(back->forge.protected_branches, std::vector<std::string>{"release"});
  EXPECT_FALSE(back->forge.other_reads);
  EXPECT_TRUE(back->forge.history);
  // A forge without logins still gets a session CA: the sidecar ends TLS for it.
  auto made = MakeSidecarLogins({}, "", forge);
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_NE(made->ca_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_NE(made->blob.find("\"forge\""), std::string::npos);
  // A forge's JSON with a key it does not know is refused, naming it.
  std::string bad = R"({"logins":[],"forge":{"forges":[],"color":"red"}})";
  auto refused = ParseProxyLogins(bad, nullptr);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("color"), std::string::npos) << refused.error().message;
}

TEST(ProxyLoginsJson, ByNameHoldsNoValueAndTakesItFromTheProxysEnvironment) {
  ProxyLogins logins{{Anthropic()}, {}, "", {}};
  std::string text = ProxyLoginsJson(logins, /*values_by_name=*/true);
  EXPECT_EQ(text.find("REALREAL"), std::string::npos) << text;
  EXPECT_EQ(json::parse(text)["logins"][0]["value_env"], "ANTHROPIC_API_KEY");
  EXPECT_FALSE(json::parse(text).contains("ca"));
  auto back =
      ParseProxyLogins(text, Env({{"ANTHROPIC_API_KEY", "sk-ant-api03-REALREALREAL"}}));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->logins[0].value, "sk-ant-api03-REALREALREAL");
  auto unset = ParseProxyLogins(text, Env({}));
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.error().message.find("$ANTHROPIC_API_KEY is not set"), std::string::npos);
}

TEST(ProxyLoginsJson, RefusesAValueUnlikeItsStandInAndBadShapes) {
  ProxyLogins logins{{Anthropic()}, {}, "", {}};
  std::string text = ProxyLoginsJson(logins, /*values_by_name=*/true);
  auto other = ParseProxyLogins(text, Env({{"ANTHROPIC_API_KEY", "sk-ant-api03-short"}}));
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("stand-in was made from another value"), std::string::npos)
      << other.error().message;
  EXPECT_NE(other.error().message.find("ANTHROPIC_API_KEY"), std::string::npos);
  EXPECT_EQ(other.error().message.find("sk-ant-api03-short"), std::string::npos)
      << "never a value";
  for (const char* bad : {"", "[]", "{}", R"({"logins": [{"name": "A"}]})",
                          R"({"logins": [{"name": "A", "hosts": ["h:443"], "header": "x",
                               "value": "v", "stand_in": 5}]})",
                          R"({"logins": [], "ca": {"cert": "C"}})"}) {
    EXPECT_FALSE(ParseProxyLogins(bad, nullptr).ok()) << bad;
  }
  EXPECT_TRUE(ParseProxyLogins(R"({"logins": []})", nullptr).ok());
}

TEST(SidecarLogins, MakesACaWhoseCertificateTheBoxGetsAndWhoseKeyOnlyTheBlobHas) {
  auto made = MakeSidecarLogins({Anthropic()}, "");
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(made->ca_pem.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  EXPECT_EQ(made->ca_pem.find("PRIVATE KEY"), std::string::npos);
  EXPECT_FALSE(made->upstream_in_blob);
  auto back = ParseProxyLogins(made->blob, nullptr);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->ca.cert, made->ca_pem);
  EXPECT_NE(back->ca.key.find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(back->logins[0].value, "sk-ant-api03-REALREALREAL");
  // Two sessions, two CAs.
  auto again = MakeSidecarLogins({Anthropic()}, "");
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->ca_pem, made->ca_pem);
  // None without logins.
  auto none = MakeSidecarLogins({}, "");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->blob.empty());
  EXPECT_TRUE(none->ca_pem.empty());
}

TEST(SidecarLogins, AnUpstreamCaTooBigForAnEnvironmentVariableIsAnError) {
  auto with = MakeSidecarLogins({Anthropic()}, "PEM TEXT");
  ASSERT_TRUE(with.ok());
  EXPECT_TRUE(with->upstream_in_blob);
  auto big = MakeSidecarLogins({Anthropic()}, std::string(kMaxProxyLoginsBytes, 'x'));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("network.upstream_ca_file is too big"), std::string::npos);
}

SessionPlan PlanWithHosts() {
  SessionPlan plan;
  plan.session_id = "0123456789ab";
  plan.allowed_domains = {"api.anthropic.com"};
  return plan;
}

TEST(SidecarBody, WithLoginsTheyAreInItsEnvironmentAndItsCommandAsksForThem) {
  Layout layout = LayoutFor("0123456789ab");
  auto made = MakeSidecarLogins({Anthropic()}, "");
  ASSERT_TRUE(made.ok());
  json body = SidecarBody(PlanWithHosts(), layout, "corral:0.1.0", "host", false, {*made, {}, {}, {}});
  ASSERT_EQ(body["Env"].size(), 1u);
  EXPECT_EQ(body["Env"][0], std::string(kProxyLoginsVariable) + "=" + made->blob);
  std::vector<std::string> command = body["Cmd"];
  auto at = std::find(command.begin(), command.end(), "--logins-env");
  ASSERT_NE(at, command.end());
  EXPECT_EQ(*(at + 1), kProxyLoginsVariable);
  at = std::find(command.begin(), command.end(), "--upstream-ca-file");
  ASSERT_NE(at, command.end());
  EXPECT_EQ(*(at + 1), kImageCaBundle);
  // Nowhere else: not in its mounts, labels or command.
  json rest = body;
  rest.erase("Env");
  EXPECT_EQ(rest.dump().find("REALREAL"), std::string::npos);
  // network.upstream_ca_file's text in the blob: no flag.
  auto upstream = MakeSidecarLogins({Anthropic()}, "PEM");
  json with = SidecarBody(PlanWithHosts(), layout, "corral:0.1.0", "host", false, {*upstream, {}, {}, {}});
  std::vector<std::string> with_command = with["Cmd"];
  EXPECT_EQ(std::count(with_command.begin(), with_command.end(), "--upstream-ca-file"), 0);
  // Without logins: neither.
  json without = SidecarBody(PlanWithHosts(), layout, "corral:0.1.0", "host", false);
  EXPECT_TRUE(without["Env"].empty());
  EXPECT_EQ(without["Cmd"].dump().find("--logins-env"), std::string::npos);
}

TEST(SidecarBody, HasThePolicysDeniedHostsAddressesAndHostsLines) {
  SidecarProxy proxy;
  proxy.denied_domains = {"evil.example"};
  proxy.allow_addresses = {"192.0.2.7"};
  proxy.hosts_lines = {"192.0.2.7 model.test"};
  json body = SidecarBody(PlanWithHosts(), LayoutFor("0123456789ab"), "corral:0.1.0", "host",
                          false, proxy);
  std::vector<std::string> command = body["Cmd"];
  auto after = [&](const std::string& flag) {
    auto at = std::find(command.begin(), command.end(), flag);
    return at == command.end() || at + 1 == command.end() ? std::string() : *(at + 1);
  };
  EXPECT_EQ(after("--deny"), "evil.example");
  EXPECT_EQ(after("--allow-address"), "192.0.2.7");
  EXPECT_EQ(after("--hosts-line"), "192.0.2.7 model.test");
}

}  // namespace
}  // namespace corral::launcher::network_mode
