#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "policy/config/config.h"

namespace corral::policy {
namespace {

namespace fs = std::filesystem;

class AgentRecipesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("corral-recipes-test-" + std::to_string(::getpid()));
  }
  void TearDown() override { fs::remove(path_); }

  Result<Policy> LoadText(const std::string& text, std::vector<LoadOptions::Override> flags = {}) {
    std::ofstream(path_) << text;
    LoadOptions options;
    options.config_path = path_.string();
    options.overrides = std::move(flags);
    options.getenv = [this](const char* name) -> const char* {
      auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    };
    return Load(options);
  }

  fs::path path_;
  std::map<std::string, std::string> env_;
};

TEST_F(AgentRecipesTest, ReadsOwnRecipesAndDefaults) {
  auto policy = LoadText(
      "agents:\n"
      "  settings: own\n"
      "  recipes:\n"
      "    aider:\n"
      "      package: aider-chat\n"
      "      variables: [OPENAI_API_KEY]\n"
      "      ask_first: true\n"
      "    claude:\n"
      "      hosts: [\"api.example.com\"]\n");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_FALSE(policy->agents.ask_first);
  EXPECT_TRUE(policy->agents.own_settings);
  ASSERT_EQ(policy->agents.recipes.size(), 2u);
  const AgentRecipeConfig& aider = policy->agents.recipes.at("aider");
  EXPECT_EQ(aider.strings.at("package"), "aider-chat");
  EXPECT_EQ(aider.lists.at("variables"), std::vector<std::string>{"OPENAI_API_KEY"});
  EXPECT_TRUE(aider.flags.at("ask_first"));
  const AgentRecipeConfig& claude = policy->agents.recipes.at("claude");
  EXPECT_EQ(claude.lists.at("hosts"), std::vector<std::string>{"api.example.com"});
  EXPECT_TRUE(claude.strings.empty());
  EXPECT_NE(policy->agents.recipes_where.find(":3:"), std::string::npos)
      << policy->agents.recipes_where;
}

TEST_F(AgentRecipesTest, UnknownFieldIsNamedWhereItIsWritten) {
  auto policy = LoadText("agents:\n  recipes:\n    claude:\n      hostz: [a.example]\n");
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find(path_.string() + ":4:7"), std::string::npos)
      << policy.error().message;
  EXPECT_NE(policy.error().message.find("did you mean 'hosts'?"), std::string::npos)
      << policy.error().message;
}

TEST_F(AgentRecipesTest, BadListItemIsNamedWhereItIsWritten) {
  auto policy = LoadText(
      "agents:\n  recipes:\n    claude:\n      variables:\n        - GOOD_NAME\n        - not a name\n");
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find(":6:11"), std::string::npos) << policy.error().message;
  EXPECT_NE(policy.error().message.find("'not a name' is not the name of an environment variable"),
            std::string::npos)
      << policy.error().message;
}

TEST_F(AgentRecipesTest, RefusesNamesThatCannotNameAnImage) {
  auto policy = LoadText("agents:\n  recipes:\n    Claude Code:\n      package: x\n");
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("'Claude Code' is not an agent name"), std::string::npos)
      << policy.error().message;
}

TEST_F(AgentRecipesTest, RefusesFoldersOutsideHomeOrRootPaths) {
  auto policy = LoadText("agents:\n  recipes:\n    x:\n      folders: [.x]\n");
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("'.x' is not a path from ~/ or /"), std::string::npos)
      << policy.error().message;
}

TEST_F(AgentRecipesTest, ShellWaysAreVariablesPathsOrProgramNames) {
  ASSERT_TRUE(LoadText("agents:\n  recipes:\n    x:\n      shell: [$SHELL, /bin/bash, bash]\n").ok());
  auto policy = LoadText("agents:\n  recipes:\n    x:\n      shell: [\"my shell\"]\n");
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find("'my shell' is not $VARIABLE, a /path or a program name"),
            std::string::npos)
      << policy.error().message;
}

TEST_F(AgentRecipesTest, FlagAndEnvironmentSetTheDefaults) {
  env_["CORRAL_ASK_FIRST"] = "true";
  auto policy = LoadText("", {{"agents.settings", "own", "--set"},
                              {"agents.recipes", R"({"x": {"package": "x-cli"}})", "--set"}});
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  EXPECT_TRUE(policy->agents.ask_first);
  EXPECT_TRUE(policy->agents.own_settings);
  EXPECT_EQ(policy->agents.recipes.at("x").strings.at("package"), "x-cli");

  auto bad = LoadText("", {{"agents.recipes", R"({"x": {"folders": "~/.x/"}})", "--set"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("folders: expected a list of strings"), std::string::npos)
      << bad.error().message;
}

TEST_F(AgentRecipesTest, SharedSettingsAreRefusedWithWhatToWriteInstead) {
  // A box that writes the user's settings plants what the host runs (issue 28).
  auto policy = LoadText("agents:\n  settings: shared\n", {});
  ASSERT_FALSE(policy.ok());
  EXPECT_NE(policy.error().message.find(":2:13: agents.settings: 'shared' is no longer offered"),
            std::string::npos)
      << policy.error().message;
  EXPECT_NE(policy.error().message.find("Write copy"), std::string::npos);
  auto recipe = LoadText("agents:\n  recipes:\n    claude:\n      settings: shared\n", {});
  ASSERT_FALSE(recipe.ok());
  EXPECT_NE(recipe.error().message.find("no longer offered"), std::string::npos)
      << recipe.error().message;
  auto copy = LoadText("agents:\n  settings: copy\n", {});
  ASSERT_TRUE(copy.ok()) << copy.error().message;
  EXPECT_FALSE(copy->agents.own_settings);
}

}  // namespace
}  // namespace corral::policy
