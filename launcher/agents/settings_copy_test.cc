#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launcher/agents/agents.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

const Recipe& Claude(const std::vector<Recipe>& recipes) {
  const Recipe* claude = FindRecipe(recipes, "claude");
  EXPECT_NE(claude, nullptr);
  return *claude;
}

AgentContext Boxed(const TempTree& tree) {
  AgentContext context;
  context.home = tree.Dir("home");
  context.state_dir = tree.Dir("state");
  context.getenv = [](const char*) -> const char* { return nullptr; };
  return context;
}

TEST(LeaveOutProgramKeys, DropsHooksHelpersAndCommandServersOnly) {
  const std::string text = R"({
    // comments are allowed, as Claude Code allows them
    "theme": "dark",
    "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch /x"}]}]},
    "apiKeyHelper": "/bin/get-key",
    "mcpServers": {"local": {"command": "npx", "args": ["srv"]},
                   "remote": {"type": "http", "url": "https://mcp.example/"}},
    "projects": {"/p": {"mcpServers": {"x": {"command": "run-x"}}, "allowedTools": ["Bash"]}}
  })";
  auto kept = LeaveOutProgramKeys(
      text, false, {"hooks", "apiKeyHelper", "mcpServers.* if command",
                    "projects.*.mcpServers.* if command"});
  ASSERT_TRUE(kept) << kept.error().message;
  auto json = nlohmann::json::parse(kept->text);
  EXPECT_EQ(json["theme"], "dark");
  EXPECT_FALSE(json.contains("hooks"));
  EXPECT_FALSE(json.contains("apiKeyHelper"));
  EXPECT_FALSE(json["mcpServers"].contains("local"));
  EXPECT_EQ(json["mcpServers"]["remote"]["url"], "https://mcp.example/");
  EXPECT_TRUE(json["projects"]["/p"]["mcpServers"].empty());
  EXPECT_EQ(json["projects"]["/p"]["allowedTools"][0], "Bash");
  EXPECT_EQ(kept->dropped, (std::vector<std::string>{"hooks", "apiKeyHelper", "mcpServers.local",
                                                     "projects./p.mcpServers.x"}));
}

TEST(LeaveOutProgramKeys, TomlKeepsTheRestOfCodexConfig) {
  const std::string text =
      "model = \"o3\"\n"
      "notify = [\"notify-send\", \"done\"]\n"
      "[mcp_servers.docs]\ncommand = \"docs-server\"\n"
      "[mcp_servers.remote]\nurl = \"https://mcp.example/\"\n"
      "[projects.\"/p\"]\ntrust_level = \"trusted\"\n";
  auto kept = LeaveOutProgramKeys(text, true, {"notify", "mcp_servers.* if command"});
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_NE(kept->text.find("model = 'o3'"), std::string::npos) << kept->text;
  EXPECT_EQ(kept->text.find("notify"), std::string::npos) << kept->text;
  EXPECT_EQ(kept->text.find("docs-server"), std::string::npos) << kept->text;
  EXPECT_NE(kept->text.find("https://mcp.example/"), std::string::npos) << kept->text;
  EXPECT_NE(kept->text.find("trusted"), std::string::npos) << kept->text;
  EXPECT_EQ(kept->dropped, (std::vector<std::string>{"notify", "mcp_servers.docs"}));
}

TEST(LeaveOutProgramKeys, TextThatDoesNotParseIsRefusedWhole) {
  EXPECT_FALSE(LeaveOutProgramKeys("{\"hooks\": {}, ", false, {"hooks"}));
  EXPECT_FALSE(LeaveOutProgramKeys("[1, 2]", false, {"hooks"}));
  auto toml = LeaveOutProgramKeys("notify = [", true, {"notify"});
  ASSERT_FALSE(toml);
  EXPECT_NE(toml.error().message.find("not valid TOML"), std::string::npos);
}

TEST(SeedAgentFolders, TheBoxGetsSettingsWithoutProgramsLoginsAndInstructions) {
  TempTree tree;
  tree.File("home/.claude/settings.json",
            R"({"model": "opus", "hooks": {"Stop": []}, "statusLine": {"command": "x"}})");
  tree.File("home/.claude.json", R"({"userID": "u", "mcpServers": {"a": {"command": "a"}}})");
  tree.File("home/.claude/.credentials.json", R"({"token": "t"})");
  tree.File("home/.claude/CLAUDE.md", "be brief\n");
  std::string command = tree.File("home/.claude/commands/review.md", "review it\n");
  ::chmod(command.c_str(), 0755);
  tree.File("home/.claude/plugins/p/run.sh", "#!/bin/sh\n");  // not on any list
  auto recipes = Recipes(policy::AgentsPolicy{});
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Claude(*recipes), {"claude"}, Boxed(tree));
  ASSERT_TRUE(run);
  auto lines = SeedAgentFolders(run->seed);
  ASSERT_TRUE(lines) << lines.error().message;
  ASSERT_FALSE(lines->empty());
  EXPECT_NE(lines->front().find("left out: hooks, statusLine, mcpServers.a"), std::string::npos)
      << lines->front();

  const std::string box = tree.root() + "/state/agents/claude";
  auto settings = nlohmann::json::parse(Read(box + "/.claude/settings.json"));
  EXPECT_EQ(settings, nlohmann::json::parse(R"({"model": "opus"})"));
  auto state = nlohmann::json::parse(Read(box + "/.claude.json"));
  EXPECT_EQ(state, nlohmann::json::parse(R"({"userID": "u", "mcpServers": {}})"));
  EXPECT_EQ(Read(box + "/.claude/.credentials.json"), R"({"token": "t"})");
  EXPECT_EQ(Read(box + "/.claude/CLAUDE.md"), "be brief\n");
  EXPECT_EQ(Read(box + "/.claude/commands/review.md"), "review it\n");
  struct stat st {};
  ASSERT_EQ(::stat((box + "/.claude/commands/review.md").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0111, 0u);  // text, never a program
  ASSERT_EQ(::stat((box + "/.claude/.credentials.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(Exists(box + "/.claude/plugins"));
  // The user's files are as they were.
  EXPECT_EQ(Read(tree.root() + "/home/.claude/settings.json"),
            R"({"model": "opus", "hooks": {"Stop": []}, "statusLine": {"command": "x"}})");
}

TEST(SeedAgentFolders, ASettingsFileThatDoesNotParseLeavesTheBoxNone) {
  TempTree tree;
  auto recipes = Recipes(policy::AgentsPolicy{});
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Claude(*recipes), {"claude"}, Boxed(tree));
  ASSERT_TRUE(run);
  tree.File("home/.claude/settings.json", R"({"model": "opus"})");
  ASSERT_TRUE(SeedAgentFolders(run->seed));
  const std::string copy = tree.root() + "/state/agents/claude/.claude/settings.json";
  ASSERT_TRUE(Exists(copy));
  tree.File("home/.claude/settings.json", R"({"hooks": {"Stop": [)");  // cut off
  auto lines = SeedAgentFolders(run->seed);
  ASSERT_TRUE(lines);
  bool said = false;
  for (const std::string& line : *lines) {
    said = said || (line.find("~/.claude/settings.json not copied into the box: it is not valid "
                              "JSON") != std::string::npos &&
                    line.find("the box has none") != std::string::npos);
  }
  EXPECT_TRUE(said);
  EXPECT_FALSE(Exists(copy));
}

TEST(SeedAgentFolders, ALinkTheBoxPlantedIsReplacedNotWrittenThrough) {
  TempTree tree;
  tree.File("home/.claude/commands/review.md", "review it\n");
  std::string outside = tree.Dir("outside");
  const std::string box = tree.Dir("state/agents/claude/.claude");
  // The box made its commands/ folder a link to a folder of the host's.
  ASSERT_EQ(::symlink(outside.c_str(), (box + "/commands").c_str()), 0);
  auto recipes = Recipes(policy::AgentsPolicy{});
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Claude(*recipes), {"claude"}, Boxed(tree));
  ASSERT_TRUE(run);
  ASSERT_TRUE(SeedAgentFolders(run->seed));
  EXPECT_FALSE(Exists(outside + "/review.md"));
  EXPECT_EQ(Read(box + "/commands/review.md"), "review it\n");
}

TEST(SeedAgentFolders, OwnCopiesNothing) {
  TempTree tree;
  tree.File("home/.claude/settings.json", R"({"model": "opus"})");
  policy::AgentsPolicy agents;
  agents.own_settings = true;
  auto recipes = Recipes(agents);
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Claude(*recipes), {"claude"}, Boxed(tree));
  ASSERT_TRUE(run);
  auto lines = SeedAgentFolders(run->seed);
  ASSERT_TRUE(lines);
  EXPECT_TRUE(lines->empty());
  EXPECT_FALSE(Exists(tree.root() + "/state/agents/claude/.claude/settings.json"));
}

TEST(GiveBackAgentData, NewHistoryGoesBackAndNothingElse) {
  TempTree tree;
  auto recipes = Recipes(policy::AgentsPolicy{});
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Claude(*recipes), {"claude"}, Boxed(tree));
  ASSERT_TRUE(run);
  const std::string box = tree.root() + "/state/agents/claude/.claude";
  tree.File("state/agents/claude/.claude/projects/-p/s1.jsonl", "{\"box\": 1}\n");
  std::string tool = tree.File("state/agents/claude/.claude/projects/-p/tool.sh", "#!/bin/sh\n");
  ::chmod(tool.c_str(), 0755);
  tree.File("state/agents/claude/.claude/settings.json", R"({"hooks": {"Stop": []}})");
  std::string secret = tree.File("secret", "host secret\n");
  ASSERT_EQ(::symlink(secret.c_str(), (box + "/projects/-p/link.jsonl").c_str()), 0);
  // The host's own, newer than the box's copy of it: kept.
  tree.File("state/agents/claude/.claude/projects/-p/s0.jsonl", "{\"box\": 0}\n");
  struct utimbuf old_time {1000, 1000};
  ASSERT_EQ(::utime((box + "/projects/-p/s0.jsonl").c_str(), &old_time), 0);
  tree.File("home/.claude/projects/-p/s0.jsonl", "{\"host\": 0}\n");

  auto given = GiveBackAgentData(run->seed);
  ASSERT_TRUE(given) << given.error().message;
  const std::string home = tree.root() + "/home/.claude";
  EXPECT_EQ(*given, 2u);
  EXPECT_EQ(Read(home + "/projects/-p/s1.jsonl"), "{\"box\": 1}\n");
  EXPECT_EQ(Read(home + "/projects/-p/s0.jsonl"), "{\"host\": 0}\n");
  struct stat st {};
  ASSERT_EQ(::stat((home + "/projects/-p/tool.sh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0111, 0u);
  EXPECT_FALSE(Exists(home + "/projects/-p/link.jsonl"));
  EXPECT_FALSE(Exists(home + "/settings.json"));
}

}  // namespace
}  // namespace corral::launcher
