#include <gtest/gtest.h>

#include <algorithm>

#include "launcher/plan/plan.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

const char* kToken = "ghp_REALtoken0123456789abcdefABCDEF";

// A project on `remote` with GH_TOKEN (and `gh_host`) set on the host.
PlanInput GitHubInput(const policy::Policy& policy, TempTree& tree, const std::string& remote,
                      const char* gh_host = nullptr) {
  tree.File("p/.git/config", "[remote \"origin\"]\n\turl = " + remote + "\n");
  tree.Dir("p/.git/objects");
  tree.File("p/.git/HEAD", "ref: refs/heads/main\n");
  PlanInput input = TestInput(policy, tree, tree.root() + "/p");
  input.logins_through_proxy = true;
  input.getenv = [gh_host](const char* name) -> const char* {
    std::string n = name;
    if (n == "GH_TOKEN") return kToken;
    if (n == "GH_HOST") return gh_host;
    return nullptr;
  };
  return input;
}

std::vector<std::string> EnvStarting(const SessionPlan& plan, const std::string& start) {
  std::vector<std::string> found;
  for (const std::string& entry : plan.env) {
    if (entry.rfind(start, 0) == 0) found.push_back(entry);
  }
  return found;
}

TEST(PlanGitLogins, GhTokenIsAStandInForGitAndForGhsApi) {
  TempTree tree;
  auto policy = TestPolicy();
  auto plan = MakePlan(GitHubInput(policy, tree, "https://github.com/o/r.git"));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->logins.size(), 3u);
  const BoxLogin& git = plan->logins[0];
  EXPECT_TRUE(git.basic);
  EXPECT_EQ(git.hosts, std::vector<std::string>{"github.com:443"});
  EXPECT_EQ(git.stand_in.substr(0, 4), "ghp_");
  EXPECT_EQ(git.stand_in.size(), std::string(kToken).size());
  EXPECT_EQ(plan->logins[1].prefix, "token ");
  EXPECT_EQ(plan->logins[2].prefix, "Bearer ");
  EXPECT_EQ(plan->logins[1].hosts, std::vector<std::string>{"api.github.com:443"});
  EXPECT_EQ(EnvStarting(*plan, "GH_TOKEN="), std::vector<std::string>{"GH_TOKEN=" + git.stand_in});
  for (const std::string& entry : plan->env) EXPECT_EQ(entry.find(kToken), std::string::npos) << entry;
  // git asks its credential helper, which gives the stand-in from the env.
  EXPECT_EQ(EnvStarting(*plan, "GIT_CONFIG_COUNT="), std::vector<std::string>{"GIT_CONFIG_COUNT=1"});
  EXPECT_EQ(EnvStarting(*plan, "GIT_CONFIG_KEY_0="),
            std::vector<std::string>{"GIT_CONFIG_KEY_0=credential.https://github.com.helper"});
  auto helper = EnvStarting(*plan, "GIT_CONFIG_VALUE_0=");
  ASSERT_EQ(helper.size(), 1u);
  EXPECT_NE(helper[0].find("password=$GH_TOKEN"), std::string::npos) << helper[0];
  // gh needs GitHub's API: allowed with the project's GitHub host.
  auto& allowed = plan->allowed_domains;
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), "api.github.com:443"), allowed.end());
}

TEST(PlanGitLogins, GhTokenStaysOffTheEnterpriseHost) {
  // gh reads GH_TOKEN for github.com alone: with GH_HOST set, the enterprise
  // host gets no login (and the box's gh learns GH_HOST).
  TempTree tree;
  auto policy = TestPolicy();
  auto plan = MakePlan(GitHubInput(policy, tree, "https://git.corp.test:8443/o/r.git", "git.corp.test:8443"));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->logins.size(), 3u);
  EXPECT_EQ(plan->logins[0].hosts, (std::vector<std::string>{"github.com:443"}));
  EXPECT_EQ(plan->logins[1].hosts, (std::vector<std::string>{"api.github.com:443"}));
  EXPECT_EQ(EnvStarting(*plan, "GH_HOST="), std::vector<std::string>{"GH_HOST=git.corp.test:8443"});
  // Not a GitHub project: GitHub's API is not added.
  auto& allowed = plan->allowed_domains;
  EXPECT_EQ(std::find(allowed.begin(), allowed.end(), "api.github.com:443"), allowed.end());
}

TEST(PlanGitLogins, GhEnterpriseTokenGoesToGhHostAlone) {
  TempTree tree;
  auto policy = TestPolicy();
  PlanInput input = GitHubInput(policy, tree, "https://git.corp.test:8443/o/r.git", "git.corp.test:8443");
  input.getenv = [](const char* name) -> const char* {
    std::string n = name;
    if (n == "GH_ENTERPRISE_TOKEN") return "ghp_ENTERPRISEtoken0123456789abcdefAB";
    if (n == "GH_HOST") return "git.corp.test:8443";
    return nullptr;
  };
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->logins.size(), 3u);
  EXPECT_EQ(plan->logins[0].variable, "GH_ENTERPRISE_TOKEN");
  EXPECT_EQ(plan->logins[0].hosts, (std::vector<std::string>{"git.corp.test:8443"}));
  EXPECT_EQ(plan->logins[1].hosts, (std::vector<std::string>{"git.corp.test:8443"}));
  EXPECT_EQ(EnvStarting(*plan, "GIT_CONFIG_KEY_0="),
            std::vector<std::string>{"GIT_CONFIG_KEY_0=credential.https://git.corp.test:8443.helper"});
  // The enterprise host is the forge, its API scoped on the same host.
  ASSERT_EQ(plan->forge.hosts.size(), 1u);
  EXPECT_EQ(plan->forge.hosts[0].git_host, "git.corp.test:8443");
  EXPECT_EQ(plan->forge.hosts[0].api_host, "git.corp.test:8443");
  EXPECT_TRUE(plan->forge.hosts[0].enterprise);
  EXPECT_EQ(plan->forge.hosts[0].repositories, std::vector<std::string>{"o/r"});
}

TEST(PlanForge, RemotesAreTheProjectsRepositoriesAndSshGoesOverHttps) {
  TempTree tree;
  auto policy = TestPolicy();
  policy.forge.repositories = {"Octo/Docs.git"};
  tree.File("p/.git/config", "[remote \"origin\"]\n\turl = git@github.com:Me/Proj.git\n"
                             "[remote \"up\"]\n\turl = https://github.com/up/proj\n"
                             "[remote \"lab\"]\n\turl = ssh://git@gitlab.com:2222/g/sub/x.git\n");
  tree.Dir("p/.git/objects");
  tree.File("p/.git/HEAD", "ref: refs/heads/main\n");
  auto plan = MakePlan(TestInput(policy, tree, tree.root() + "/p"));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->forge.hosts.size(), 2u);
  EXPECT_EQ(plan->forge.hosts[0].git_host, "github.com:443");
  EXPECT_EQ(plan->forge.hosts[0].api_host, "api.github.com:443");
  EXPECT_EQ(plan->forge.hosts[0].repositories, (std::vector<std::string>{"me/proj", "up/proj", "octo/docs"}));
  EXPECT_EQ(plan->forge.hosts[1].git_host, "gitlab.com:443");
  EXPECT_EQ(plan->forge.hosts[1].api_host, "");
  EXPECT_EQ(plan->forge.hosts[1].repositories, (std::vector<std::string>{"g/sub/x", "octo/docs"}));
  // git's own insteadOf sends the ssh remotes to HTTPS through the proxy.
  auto keys = EnvStarting(*plan, "GIT_CONFIG_KEY_");
  auto values = EnvStarting(*plan, "GIT_CONFIG_VALUE_");
  EXPECT_EQ(keys, (std::vector<std::string>{"GIT_CONFIG_KEY_0=url.https://github.com/.insteadOf",
                                            "GIT_CONFIG_KEY_1=url.https://gitlab.com/.insteadOf"}));
  EXPECT_EQ(values, (std::vector<std::string>{"GIT_CONFIG_VALUE_0=git@github.com:",
                                              "GIT_CONFIG_VALUE_1=ssh://git@gitlab.com:2222/"}));
  // The ssh port is not allowed; the HTTPS hosts are.
  auto& allowed = plan->allowed_domains;
  EXPECT_EQ(std::find(allowed.begin(), allowed.end(), "github.com:22"), allowed.end());
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), "github.com:443"), allowed.end());
  EXPECT_NE(std::find(allowed.begin(), allowed.end(), "gitlab.com:443"), allowed.end());
}

TEST(PlanGitLogins, PassAndTheNetworkModeKeepTheTokenAsItIs) {
  TempTree tree;
  auto policy = TestPolicy();
  PlanInput input = GitHubInput(policy, tree, "https://github.com/o/r.git");
  input.agent.logins_pass = true;
  auto plan = MakePlan(input);
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->logins.empty());
  EXPECT_EQ(plan->logins_passed, std::vector<std::string>{"GH_TOKEN"});

  plan = MakePlan(GitHubInput(policy, tree, "https://github.com/o/r.git"));
  ASSERT_TRUE(plan) << plan.error().message;
  PassLoginsAsTheyAre(*plan, GitHubInput(policy, tree, "x").getenv, "", "network mode");
  EXPECT_EQ(EnvStarting(*plan, "GH_TOKEN="), std::vector<std::string>{std::string("GH_TOKEN=") + kToken});
  EXPECT_EQ(plan->logins_passed, std::vector<std::string>{"GH_TOKEN"});
}

}  // namespace
}  // namespace corral::launcher
