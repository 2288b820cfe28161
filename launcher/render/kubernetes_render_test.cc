#include <gtest/gtest.h>

#include "launcher/render/render.h"
#include "launcher/network_mode/network_mode.h"
#include "launcher/plan/plan.h"
#include "launcher/render/kubernetes_parts.h"
#include "launcher/test_util.h"

namespace corral::launcher::kubernetes {
namespace {

using launcher::testing::TempTree;
using launcher::testing::TestInput;
using launcher::testing::TestPolicy;
using nlohmann::json;

struct Fixture {
  TempTree tree;
  policy::Policy policy = TestPolicy();
  SessionPlan plan;
  Fixture() {
    tree.File("p/.env", "K=1");
    tree.File("p/.git/config", "[remote \"origin\"]\n  url = https://git.example.com/a/b.git\n");
    auto made = MakePlan(TestInput(policy, tree, tree.Dir("p")));
    EXPECT_TRUE(made) << made.error().message;
    plan = *made;
  }
  Rendering Rendered() const { return Render(plan, {"corral:test", "", {}}); }
};

const json& Object(const Rendering& r, const std::string& kind, const std::string& name) {
  for (const json& o : r.objects) {
    if (o["kind"] == kind && o["metadata"]["name"] == name) return o;
  }
  static const json none;
  ADD_FAILURE() << "no " << kind << " " << name;
  return none;
}

const json* Find(const json& list, const std::string& key, const std::string& value) {
  for (const json& item : list) {
    if (item.value(key, "") == value) return &item;
  }
  return nullptr;
}

std::string Env(const json& container, const std::string& name) {
  const json* var = Find(container["env"], "name", name);
  return var && var->contains("value") ? (*var)["value"].get<std::string>() : "";
}

TEST(KubernetesRender, AgentContainerIsRestricted) {
  Fixture f;
  Names names = MakeNames(f.plan, {"corral:test", "", {}});
  Rendering r = f.Rendered();
  const json& pod = Object(r, "Pod", names.base);
  const json& spec = pod["spec"];
  EXPECT_EQ(spec["automountServiceAccountToken"], false);
  EXPECT_EQ(spec["restartPolicy"], "Never");
  const json& agent = spec["containers"][0];
  const json& sc = agent["securityContext"];
  EXPECT_EQ(sc["runAsNonRoot"], true);
  EXPECT_EQ(sc["runAsUser"], 1000);
  EXPECT_EQ(sc["runAsGroup"], 1000);
  EXPECT_EQ(sc["allowPrivilegeEscalation"], false);
  EXPECT_EQ(sc["readOnlyRootFilesystem"], true);
  EXPECT_EQ(sc["capabilities"]["drop"], json::array({"ALL"}));
  EXPECT_EQ(sc["seccompProfile"]["type"], "Localhost");
  EXPECT_EQ(sc["seccompProfile"]["localhostProfile"], "corral/0123456789ab.json");
  EXPECT_EQ(agent["command"], f.plan.command);
  EXPECT_EQ(agent["image"], f.plan.image);
  EXPECT_EQ(agent["resources"]["limits"]["memory"], "512Mi");
  EXPECT_EQ(pod["metadata"]["labels"]["corral.session"], "0123456789ab");
  EXPECT_EQ(pod["metadata"]["labels"]["corral.role"], "agent");
}

TEST(KubernetesRender, GvisorAsksForItsRuntimeClassAndSaysWhatTheClusterNeeds) {
  Fixture f;
  Names names = MakeNames(f.plan, {"corral:test", "", {}});
  EXPECT_FALSE(Object(f.Rendered(), "Pod", names.base)["spec"].contains("runtimeClassName"));
  f.plan.runtime = kGvisorRuntime;
  Rendering r = f.Rendered();
  EXPECT_EQ(Object(r, "Pod", names.base)["spec"]["runtimeClassName"], "gvisor");
  bool said = false;
  for (const std::string& note : r.notes) said |= note.find("handler is runsc") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(KubernetesRender, RootPlanRunsAsNobodyAndSaysSo) {
  Fixture f;
  f.plan.uid = f.plan.gid = 0;
  Rendering r = f.Rendered();
  const json& sc = r.objects.back()["spec"]["containers"][0]["securityContext"];
  EXPECT_EQ(sc["runAsUser"], 65534);
  EXPECT_EQ(sc["runAsNonRoot"], true);
  bool said = false;
  for (const auto& note : r.notes) said |= note.find("65534") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(KubernetesRender, EnvironmentNamesTheProxyServiceAndNoSecretValue) {
  Fixture f;
  f.plan.env.push_back("ANTHROPIC_API_KEY=sk-live-123");
  f.plan.passed_by_name.push_back("ANTHROPIC_API_KEY");
  Rendering r = f.Rendered();
  Names names = MakeNames(f.plan, {"corral:test", "", {}});
  const json& agent = r.objects.back()["spec"]["containers"][0];
  EXPECT_EQ(Env(agent, "HTTPS_PROXY"), "http://" + names.proxy + ":3128");
  EXPECT_EQ(Env(agent, "HTTP_PROXY"), "http://" + names.proxy + ":3128");
  EXPECT_EQ(Env(agent, "npm_config_proxy"), "http://" + names.proxy + ":3128");
  EXPECT_EQ(Find(agent["env"], "name", "CORRAL_PROXY_SOCKET"), nullptr);
  EXPECT_EQ(Find(agent["env"], "name", "GIT_SSH_COMMAND"), nullptr);
  const json* key = Find(agent["env"], "name", "ANTHROPIC_API_KEY");
  ASSERT_NE(key, nullptr);
  EXPECT_FALSE(key->contains("value"));
  EXPECT_EQ((*key)["valueFrom"]["secretKeyRef"]["name"], names.secret);
  EXPECT_EQ((*key)["valueFrom"]["secretKeyRef"]["key"], "ANTHROPIC_API_KEY");
  EXPECT_EQ(ToYaml(r).find("sk-live-123"), std::string::npos);
}

TEST(KubernetesRender, MountsBecomeVolumesAPodMayHave) {
  Fixture f;
  Rendering r = f.Rendered();
  const json& spec = r.objects.back()["spec"];
  const json& mounts = spec["containers"][0]["volumeMounts"];
  std::string project = f.tree.root() + "/p";
  const json* top = Find(mounts, "mountPath", project);
  ASSERT_NE(top, nullptr);
  EXPECT_EQ((*top)["name"], "project");
  EXPECT_FALSE(top->contains("subPath"));
  const json* config = Find(mounts, "mountPath", project + "/.git/config");
  ASSERT_NE(config, nullptr);
  EXPECT_EQ((*config)["subPath"], ".git/config");
  EXPECT_EQ((*config)["readOnly"], true);
  const json* env = Find(mounts, "mountPath", project + "/.env");
  ASSERT_NE(env, nullptr) << "masked";
  EXPECT_EQ((*env)["subPath"], "empty");
  EXPECT_EQ((*env)["readOnly"], true);
  const json* tmp = Find(mounts, "mountPath", "/tmp");
  ASSERT_NE(tmp, nullptr);
  const json* tmp_volume = Find(spec["volumes"], "name", (*tmp)["name"]);
  ASSERT_NE(tmp_volume, nullptr);
  EXPECT_EQ((*tmp_volume)["emptyDir"]["medium"], "Memory");
  EXPECT_EQ((*tmp_volume)["emptyDir"]["sizeLimit"], "1Gi");
  const json* home = Find(mounts, "mountPath", "/home/corral");
  ASSERT_NE(home, nullptr);
  EXPECT_TRUE((*Find(spec["volumes"], "name", (*home)["name"])).contains("emptyDir"));
  EXPECT_EQ((*Find(spec["volumes"], "name", "project"))["persistentVolumeClaim"]["claimName"],
            "corral-project-p");
  for (const json& volume : spec["volumes"]) EXPECT_FALSE(volume.contains("hostPath")) << volume;
  for (const json& mount : mounts) {
    EXPECT_NE(Find(spec["volumes"], "name", mount["name"]), nullptr) << mount;
  }
  const json* deny = Find(mounts, "mountPath", "/run/corral/deny-list");
  ASSERT_NE(deny, nullptr);
  EXPECT_EQ((*deny)["subPath"], "deny-list");
}

TEST(KubernetesRender, SessionFilesHoldTheDenyListAndSeccomp) {
  Fixture f;
  Rendering r = f.Rendered();
  const json& files = r.objects.front();
  EXPECT_EQ(files["kind"], "ConfigMap");
  EXPECT_EQ(json::parse(files["data"]["seccomp.json"].get<std::string>()), f.plan.seccomp);
  std::string deny = files["data"]["deny-list"];
  for (const auto& line : f.plan.deny_list) EXPECT_NE(deny.find(line + "\n"), std::string::npos);
}

TEST(KubernetesRender, NetworkPoliciesLetTheAgentReachOnlyTheProxy) {
  Fixture f;
  Rendering r = f.Rendered();
  Names names = MakeNames(f.plan, {"corral:test", "", {}});
  const json& agent = Object(r, "NetworkPolicy", names.base + "-agent")["spec"];
  EXPECT_EQ(agent["podSelector"]["matchLabels"], names.agent_labels);
  EXPECT_EQ(agent["policyTypes"], json::array({"Ingress", "Egress"}));
  EXPECT_TRUE(agent["ingress"].empty());
  ASSERT_EQ(agent["egress"].size(), 2u);
  EXPECT_EQ(agent["egress"][0]["to"][0]["podSelector"]["matchLabels"], names.proxy_labels);
  EXPECT_EQ(agent["egress"][0]["ports"], json::parse(R"([{"protocol":"TCP","port":3128}])"));
  EXPECT_EQ(agent["egress"][1]["to"][0]["podSelector"]["matchLabels"]["k8s-app"], "kube-dns");
  for (const json& rule : agent["egress"]) EXPECT_FALSE(rule["to"][0].contains("ipBlock"));

  const json& proxy = Object(r, "NetworkPolicy", names.proxy)["spec"];
  EXPECT_EQ(proxy["ingress"][0]["from"][0]["podSelector"]["matchLabels"], names.agent_labels);
  const json& out = proxy["egress"][0];
  EXPECT_EQ(out["to"][0]["ipBlock"]["cidr"], "0.0.0.0/0");
  EXPECT_NE(std::find(out["to"][0]["ipBlock"]["except"].begin(),
                      out["to"][0]["ipBlock"]["except"].end(), "169.254.0.0/16"),
            out["to"][0]["ipBlock"]["except"].end());
  EXPECT_EQ(out["ports"],
            json::parse(R"([{"protocol":"TCP","port":80},{"protocol":"TCP","port":443}])"));
}

TEST(KubernetesRender, ProxyPodRunsCorralProxyWithTheSessionsList) {
  Fixture f;
  f.plan.allowed_domains = {"pypi.org", "git.example.com:2222", "[2001:db8::1]:8443"};
  Rendering r = f.Rendered();
  Names names = MakeNames(f.plan, {"corral:test", "", {}});
  const json& pod = Object(r, "Pod", names.proxy);
  const json& proxy = pod["spec"]["containers"][0];
  EXPECT_EQ(proxy["image"], "corral:test");
  std::vector<std::string> args = proxy["args"];
  EXPECT_EQ(args[0], "proxy");
  for (const auto& host : f.plan.allowed_domains) {
    EXPECT_NE(std::find(args.begin(), args.end(), host), args.end()) << host;
  }
  EXPECT_EQ(proxy["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(pod["metadata"]["labels"], names.proxy_labels);
  const json& service = Object(r, "Service", names.proxy);
  EXPECT_EQ(service["spec"]["selector"], names.proxy_labels);
  const json& ports = Object(r, "NetworkPolicy", names.proxy)["spec"]["egress"][0]["ports"];
  std::vector<int> numbers;
  for (const json& p : ports) numbers.push_back(p["port"]);
  EXPECT_EQ(numbers, (std::vector<int>{80, 443, 2222, 8443}));
}

// A plan for claude with its login set, as `corral spec` makes it.
struct LoginFixture {
  static constexpr const char* kReal = "sk-ant-api03-RealRealReal0123456789";
  TempTree tree;
  policy::Policy policy = TestPolicy();
  SessionPlan plan;
  Options options{"corral:test", "", {"CERT-PEM", "KEY-PEM", "HOST-BUNDLE\nCERT-PEM", ""}};
  LoginFixture() {
    PlanInput input = TestInput(policy, tree, tree.Dir("p"));
    input.agent.agent = "claude";
    input.agent.variables = {"ANTHROPIC_API_KEY"};
    input.agent.logins = {
        {"ANTHROPIC_API_KEY", "x-api-key", "", {"api.anthropic.com"}, "ANTHROPIC_BASE_URL", ""}};
    input.getenv = [](const char* name) -> const char* {
      return std::string(name) == "ANTHROPIC_API_KEY" ? kReal : nullptr;
    };
    input.logins_through_proxy = true;
    input.agent_command = {"claude"};
    auto made = MakePlan(input);
    EXPECT_TRUE(made) << made.error().message;
    plan = *made;
    EXPECT_EQ(plan.logins.size(), 1u);
  }
};

TEST(KubernetesRender, TheAgentHasTheStandInAndTheProxyAloneTheValuesSecret) {
  LoginFixture f;
  Rendering r = Render(f.plan, f.options);
  Names names = MakeNames(f.plan, f.options);
  EXPECT_EQ(ToYaml(r).find(LoginFixture::kReal), std::string::npos) << "no value printed";
  const json& agent = Object(r, "Pod", names.base)["spec"]["containers"][0];
  EXPECT_EQ(Env(agent, "ANTHROPIC_API_KEY"), f.plan.logins[0].stand_in);
  EXPECT_EQ(agent.dump().find("secretKeyRef"), std::string::npos)
      << "the agent reads no Secret: " << agent["env"].dump();
  const json& proxy = Object(r, "Pod", names.proxy)["spec"]["containers"][0];
  std::vector<std::string> args = proxy["args"];
  auto at = std::find(args.begin(), args.end(), "--logins-env");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), network_mode::kProxyLoginsVariable);
  const json* value = Find(proxy["env"], "name", "ANTHROPIC_API_KEY");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ((*value)["valueFrom"]["secretKeyRef"]["name"], names.login_values);
  EXPECT_EQ(names.login_values, "corral-claude-logins");
  const json* table = Find(proxy["env"], "name", network_mode::kProxyLoginsVariable);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ((*table)["valueFrom"]["secretKeyRef"]["name"], names.logins);
  // The rendered Secret: the table without the value, the CA; the proxy,
  // given the value by name, reads back what the agent's stand-in needs.
  const json& secret = Object(r, "Secret", names.logins);
  std::string text = secret["stringData"][kLoginsKey];
  auto parsed = network_mode::ParseProxyLogins(text, [](const char* name) -> const char* {
    return std::string(name) == "ANTHROPIC_API_KEY" ? LoginFixture::kReal : nullptr;
  });
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->logins[0].stand_in, f.plan.logins[0].stand_in);
  EXPECT_EQ(parsed->logins[0].hosts, std::vector<std::string>{"api.anthropic.com:443"});
  EXPECT_EQ(parsed->ca.key, "KEY-PEM");
  // The agent trusts the bundle with the session CA's certificate, never the key.
  const json& files = Object(r, "ConfigMap", names.base);
  EXPECT_EQ(files["data"][kCaBundleFile], "HOST-BUNDLE\nCERT-PEM");
  EXPECT_EQ(files.dump().find("KEY-PEM"), std::string::npos);
  const json* ca = Find(agent["volumeMounts"], "mountPath", kCaInBox);
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ((*ca)["subPath"], kCaBundleFile);
  EXPECT_EQ((*ca)["name"], "session-files");
  // Only the proxy's Pod names the rendered Secret.
  for (const json& object : r.objects) {
    if (object["kind"] == "Pod" && object["metadata"]["name"] != names.proxy) {
      EXPECT_EQ(object.dump().find(names.logins + "\""), std::string::npos);
    }
  }
  std::string notes;
  for (const std::string& note : r.notes) notes += note + "\n";
  EXPECT_NE(notes.find("kubectl create secret generic corral-claude-logins "
                       "--from-literal=ANTHROPIC_API_KEY=\"$ANTHROPIC_API_KEY\""),
            std::string::npos)
      << notes;
}

TEST(KubernetesRender, WithoutLoginsNoSecretAndTheProxyHasNone) {
  Fixture f;
  Rendering r = f.Rendered();
  for (const json& object : r.objects) EXPECT_NE(object["kind"], "Secret");
  Names names = MakeNames(f.plan, {"corral:test", "", {}});
  const json& proxy = Object(r, "Pod", names.proxy)["spec"]["containers"][0];
  EXPECT_TRUE(proxy["env"].empty());
  EXPECT_EQ(proxy["args"].dump().find("--logins-env"), std::string::npos);
}

TEST(KubernetesRender, NamesAreDnsLabels) {
  EXPECT_EQ(DnsLabel("corral-My_Project-0123456789ab"), "corral-my-project-0123456789ab");
  EXPECT_EQ(DnsLabel("9lives"), "c-9lives");
  EXPECT_EQ(DnsLabel(std::string(80, 'a')).size(), 63u);
  EXPECT_TRUE(IsLabelValue("claude"));
  EXPECT_FALSE(IsLabelValue("/home/me/shop"));
  EXPECT_FALSE(IsLabelValue(std::string(64, 'a')));
}

TEST(KubernetesYaml, QuotesStringsYamlWouldReadAsOtherTypes) {
  Rendering r;
  r.notes = {"a note"};
  r.objects = {json{{"port", 3128},
                    {"name", "3128"},
                    {"flag", "true"},
                    {"on", false},
                    {"text", "a\nb\n"},
                    {"empty", ""}}};
  std::string yaml = ToYaml(r);
  EXPECT_EQ(yaml.rfind("# a note\n---\n", 0), 0u) << yaml;
  EXPECT_NE(yaml.find("port: 3128"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("name: \"3128\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("flag: \"true\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("empty: \"\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("text: |"), std::string::npos) << yaml;
}

}  // namespace
}  // namespace corral::launcher::kubernetes
