#include <gtest/gtest.h>

#include <algorithm>

#include "launcher/agents/agents.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

const Recipe& Named(const std::vector<Recipe>& recipes, const std::string& name) {
  const Recipe* r = FindRecipe(recipes, name);
  EXPECT_NE(r, nullptr) << name;
  static const Recipe none;
  return r ? *r : none;
}

const BoxLogin* LoginFor(const Recipe& recipe, const std::string& variable) {
  for (const BoxLogin& login : recipe.logins) {
    if (login.variable == variable) return &login;
  }
  return nullptr;
}

TEST(RecipeLogins, ClaudeAndCodexSayTheirHeadersHostsAndBaseUrl) {
  auto recipes = Recipes(policy::AgentsPolicy{});
  ASSERT_TRUE(recipes) << recipes.error().message;
  const Recipe& claude = Named(*recipes, "claude");
  const BoxLogin* key = LoginFor(claude, "ANTHROPIC_API_KEY");
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->header, "x-api-key");
  EXPECT_EQ(key->prefix, "");
  EXPECT_EQ(key->hosts, std::vector<std::string>{"api.anthropic.com"});
  EXPECT_EQ(key->base_url_variable, "ANTHROPIC_BASE_URL");
  for (const char* token : {"ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}) {
    const BoxLogin* login = LoginFor(claude, token);
    ASSERT_NE(login, nullptr) << token;
    EXPECT_EQ(login->header, "Authorization");
    EXPECT_EQ(login->prefix, "Bearer ");
  }
  // Not secrets: passed as they are.
  EXPECT_EQ(LoginFor(claude, "ANTHROPIC_BASE_URL"), nullptr);
  EXPECT_EQ(LoginFor(claude, "ANTHROPIC_MODEL"), nullptr);
  const Recipe& codex = Named(*recipes, "codex");
  for (const char* variable : {"OPENAI_API_KEY", "CODEX_API_KEY"}) {
    const BoxLogin* login = LoginFor(codex, variable);
    ASSERT_NE(login, nullptr) << variable;
    EXPECT_EQ(login->header, "Authorization");
    EXPECT_EQ(login->prefix, "Bearer ");
    EXPECT_EQ(login->hosts, std::vector<std::string>{"api.openai.com"});
    EXPECT_EQ(login->base_url_variable, "OPENAI_BASE_URL");
  }
  EXPECT_EQ(LoginFor(codex, "OPENAI_BASE_URL"), nullptr);
  // Gemini's key in x-goog-api-key; the OpenAI-compatible agents' as Bearer.
  for (const char* agent : {"gemini", "pi"}) {
    const BoxLogin* gemini = LoginFor(Named(*recipes, agent), "GEMINI_API_KEY");
    ASSERT_NE(gemini, nullptr) << agent;
    EXPECT_EQ(gemini->header, "x-goog-api-key");
    EXPECT_EQ(gemini->hosts, std::vector<std::string>{"generativelanguage.googleapis.com"});
  }
  EXPECT_EQ(LoginFor(Named(*recipes, "gemini"), "GOOGLE_API_KEY")->base_url_variable, "GOOGLE_GEMINI_BASE_URL");
  for (auto [agent, variable] : {std::pair{"qwen", "DASHSCOPE_API_KEY"}, {"kimi", "KIMI_API_KEY"},
                                 {"opencode", "OPENROUTER_API_KEY"}}) {
    const BoxLogin* login = LoginFor(Named(*recipes, agent), variable);
    ASSERT_NE(login, nullptr) << agent;
    EXPECT_EQ(login->prefix, "Bearer ") << agent;
  }
  // Not checked against the agent yet: passed as they are.
  EXPECT_EQ(LoginFor(Named(*recipes, "amp"), "AMP_API_KEY"), nullptr);
  // Every login is one of the recipe's variables, and its hosts are allowed.
  for (const Recipe& recipe : *recipes) {
    for (const BoxLogin& login : recipe.logins) {
      EXPECT_NE(std::find(recipe.variables.begin(), recipe.variables.end(), login.variable),
                recipe.variables.end())
          << recipe.name << ": " << login.variable;
      for (const std::string& host : login.hosts) {
        EXPECT_NE(std::find(recipe.hosts.begin(), recipe.hosts.end(), host), recipe.hosts.end())
            << recipe.name << ": " << host;
      }
    }
  }
}

AgentContext Boxed(const TempTree& tree, bool pass_logins = false) {
  AgentContext context;
  context.home = tree.Dir("home");
  context.state_dir = tree.Dir("state");
  context.getenv = [](const char*) -> const char* { return nullptr; };
  context.pass_logins = pass_logins;
  return context;
}

TEST(RecipeLogins, ApplyHandsOnTheLoginsOfTheRecipesVariables) {
  TempTree tree;
  policy::AgentsPolicy agents;
  agents.recipes["codex"].lists["variables"] = {"OPENAI_API_KEY"};  // CODEX_API_KEY left out
  auto recipes = Recipes(agents);
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Named(*recipes, "codex"), {"codex"}, Boxed(tree));
  ASSERT_TRUE(run);
  ASSERT_EQ(run->additions.logins.size(), 1u);
  EXPECT_EQ(run->additions.logins[0].variable, "OPENAI_API_KEY");
  EXPECT_FALSE(run->additions.logins_pass);
}

TEST(RecipeLogins, PassByConfigAndARecipesOwnLoginsWins) {
  TempTree tree;
  policy::AgentsPolicy agents;
  agents.recipes["codex"].strings["logins"] = "proxy";
  auto recipes = Recipes(agents);
  ASSERT_TRUE(recipes);
  auto claude = ApplyRecipe(Named(*recipes, "claude"), {"claude"}, Boxed(tree, true));
  ASSERT_TRUE(claude);
  EXPECT_TRUE(claude->additions.logins_pass);
  auto codex = ApplyRecipe(Named(*recipes, "codex"), {"codex"}, Boxed(tree, true));
  ASSERT_TRUE(codex);
  EXPECT_FALSE(codex->additions.logins_pass);
}

}  // namespace
}  // namespace corral::launcher
