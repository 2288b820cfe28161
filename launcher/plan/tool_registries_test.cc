#include <gtest/gtest.h>

#include <map>

#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

std::vector<std::string> Entries(const std::vector<RegistryHost>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h.entry);
  return out;
}

std::function<const char*(const char*)> Env(std::map<std::string, std::string> values) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(values));
  return [shared](const char* name) -> const char* {
    auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

TEST(ToolRegistries, ReadsNpmPipCargoAndGoSettings) {
  TempTree tree;
  std::string home = tree.Dir("home/u");
  tree.File("home/u/.npmrc",
            "registry=https://npm.corp.example/\n@acme:registry = https://npm.acme.example:8443/x/\n"
            "; registry=https://commented.example/\n//npm.corp.example/:_authToken=secret\n");
  tree.File("home/u/.config/pip/pip.conf",
            "[global]\nindex-url = https://pypi.corp.example/simple\n"
            "extra-index-url = https://a.example/simple https://b.example/simple\n");
  tree.File("home/u/.cargo/config.toml",
            "[source.crates-io]\nreplace-with = \"mirror\"\n[source.mirror]\n"
            "registry = \"sparse+https://cargo.corp.example/index/\"\n");
  auto hosts = ToolRegistries(home, Env({{"GOPROXY", "https://goproxy.corp.example,direct"},
                                         {"XDG_CONFIG_HOME", home + "/.config"}}));
  EXPECT_EQ(Entries(hosts),
            (std::vector<std::string>{"npm.corp.example:443", "npm.acme.example:8443",
                                      "pypi.corp.example:443", "a.example:443", "b.example:443",
                                      "cargo.corp.example:443", "goproxy.corp.example:443"}));
  EXPECT_EQ(hosts[0].from, "~/.npmrc");
  EXPECT_EQ(hosts.back().from, "GOPROXY");
}

TEST(ToolRegistries, NothingSetGivesNothingAndOddValuesAreSkipped) {
  TempTree tree;
  std::string home = tree.Dir("home/u");
  EXPECT_TRUE(ToolRegistries(home, Env({})).empty());
  tree.File("home/u/.npmrc", "registry=file:///srv/npm\nregistry=\n");
  auto hosts = ToolRegistries(home, Env({{"GOPROXY", "off"}, {"npm_config_registry", "http://10.0.0.5:4873/"}}));
  EXPECT_EQ(Entries(hosts), std::vector<std::string>{"10.0.0.5:4873"});
}

TEST(Plan, ToolRegistriesAreAllowedOnceWithANote) {
  TempTree tree;
  std::string top = tree.Dir("p");
  auto policy = testing::TestPolicy();
  PlanInput input = testing::TestInput(policy, tree, top);
  input.tool_registries = {{"npm.corp.example:443", "~/.npmrc"}, {"registry.npmjs.org", "x"}};
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(std::count(plan->allowed_domains.begin(), plan->allowed_domains.end(),
                       "npm.corp.example:443"), 1);
  EXPECT_EQ(std::count(plan->allowed_domains.begin(), plan->allowed_domains.end(),
                       "registry.npmjs.org"), 1);
  bool noted = false;
  for (const auto& note : plan->notes) noted = noted || note.find("~/.npmrc") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace corral::launcher
