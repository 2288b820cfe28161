#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>

#include "launcher/agents/agents.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

std::vector<Recipe> BuiltIns() {
  auto recipes = Recipes(policy::AgentsPolicy{});
  EXPECT_TRUE(recipes) << recipes.error().message;
  return recipes ? *recipes : std::vector<Recipe>{};
}

const Recipe& Get(const std::vector<Recipe>& recipes, const std::string& name) {
  const Recipe* r = FindRecipe(recipes, name);
  EXPECT_NE(r, nullptr) << name;
  static const Recipe none;
  return r ? *r : none;
}

// `verified` means tests/images/agent_images.py runs the agent in CI: the
// two lists must be the same.
TEST(Recipes, VerifiedAreExactlyTheAgentsCiRuns) {
  std::ifstream file(std::string(CORRAL_SOURCE_DIR) + "/tests/images/agent_images.py");
  std::stringstream text;
  text << file.rdbuf();
  // The list's quoted names (by hand: std::regex trips GCC 12's
  // -Wmaybe-uninitialized in the sanitizer build).
  std::string source = text.str();
  std::size_t begin = source.find("AGENTS = [");
  ASSERT_NE(begin, std::string::npos);
  std::size_t end = source.find(']', begin);
  std::set<std::string> in_ci;
  for (std::size_t at = source.find('"', begin); at < end; at = source.find('"', at + 1)) {
    std::size_t close = source.find('"', at + 1);
    in_ci.insert(source.substr(at + 1, close - at - 1));
    at = close;
  }
  std::set<std::string> verified;
  for (const Recipe& r : BuiltIns()) {
    if (r.verified) verified.insert(r.name);
  }
  EXPECT_FALSE(in_ci.empty());
  EXPECT_EQ(verified, in_ci);
}

TEST(Recipes, EveryBuiltInIsComplete) {
  auto recipes = BuiltIns();
  EXPECT_EQ(recipes.size(), 12u);
  for (const Recipe& r : recipes) {
    EXPECT_NE(r.package.empty(), r.installer.empty()) << r.name << ": package or installer";
    EXPECT_FALSE(r.binary.empty()) << r.name;
    EXPECT_FALSE(r.folders.empty()) << r.name;
    EXPECT_FALSE(r.hosts.empty()) << r.name;
    EXPECT_FALSE(r.shell.empty()) << r.name;
    for (const auto& folder : r.folders) EXPECT_EQ(folder.rfind("~/", 0), 0u) << r.name;
  }
}

TEST(Recipes, UsersFieldsAddAgentsAndOverrideFields) {
  policy::AgentsPolicy agents;
  agents.recipes["aider"].strings["installer"] = "pip install aider-chat";
  agents.recipes["claude"].lists["hosts"] = {"x.example"};
  agents.recipes["codex"].strings["installer"] = "curl -fsS https://example.invalid/i | sh";
  auto recipes = Recipes(agents);
  ASSERT_TRUE(recipes) << recipes.error().message;
  const Recipe& aider = Get(*recipes, "aider");
  EXPECT_FALSE(aider.built_in);
  EXPECT_EQ(InstallWay(aider), "installer: pip install aider-chat");
  EXPECT_EQ(aider.binary, "aider");
  const Recipe& claude = Get(*recipes, "claude");
  EXPECT_EQ(claude.hosts, std::vector<std::string>{"x.example"});
  EXPECT_EQ(claude.package, "@anthropic-ai/claude-code");  // untouched
  EXPECT_FALSE(claude.verified);                           // not what CI ran
  EXPECT_TRUE(Get(*recipes, "gemini").verified);
  EXPECT_EQ(Get(*recipes, "codex").package, "");  // the installer replaced it
}

TEST(Recipes, ANewAgentNeedsAWayToInstallIt) {
  policy::AgentsPolicy agents;
  agents.recipes["mine"].lists["hosts"] = {"x.example"};
  agents.recipes_where = "config.yaml:3:3";
  auto recipes = Recipes(agents);
  ASSERT_FALSE(recipes);
  EXPECT_NE(recipes.error().message.find("agents.recipes.mine (config.yaml:3:3)"),
            std::string::npos);
}

TEST(Recipes, ClosestNameIsATypoAway) {
  auto recipes = BuiltIns();
  EXPECT_EQ(ClosestRecipe(recipes, "clade"), "claude");
  EXPECT_EQ(ClosestRecipe(recipes, "codx"), "codex");
  EXPECT_EQ(ClosestRecipe(recipes, "gemni"), "gemini");
  EXPECT_EQ(ClosestRecipe(recipes, "make"), "");
  EXPECT_EQ(ClosestRecipe(recipes, "python3"), "");
}

TEST(UnknownAgent, ATypoNotOnThisHostIsNamed) {
  auto recipes = BuiltIns();
  EXPECT_NE(UnknownAgent(recipes, "clade").find("did you mean claude?"), std::string::npos);
  EXPECT_EQ(UnknownAgent(recipes, "/usr/bin/clade"), "");  // a path runs as given
  EXPECT_EQ(UnknownAgent(recipes, "sh"), "");              // a program here (and no typo)
}

AgentContext Boxed(const TempTree& tree) {
  AgentContext context;
  context.home = tree.Dir("home");
  context.state_dir = tree.Dir("state");
  context.getenv = [](const char*) -> const char* { return nullptr; };
  return context;
}

TEST(ApplyRecipe, BoxedAddsTheSwitchOnceAndTheAgentsFolders) {
  TempTree tree;
  auto recipes = BuiltIns();
  auto run = ApplyRecipe(Get(recipes, "claude"), {"claude", "-p", "hi"}, Boxed(tree));
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->command,
            (std::vector<std::string>{"claude", "--dangerously-skip-permissions", "-p", "hi"}));
  ASSERT_EQ(run->additions.folders.size(), 2u);
  // The box's own folders, never the user's (issue 28).
  EXPECT_EQ(run->additions.folders[0].host, tree.root() + "/state/agents/claude/.claude");
  EXPECT_EQ(run->additions.folders[1].host, tree.root() + "/state/agents/claude/.claude.json");
  EXPECT_EQ(run->additions.folders[0].in_box, "~/.claude");
  EXPECT_FALSE(run->additions.folders[0].file);
  EXPECT_EQ(run->additions.folders[1].in_box, "~/.claude.json");
  EXPECT_TRUE(run->additions.folders[1].file);
  EXPECT_EQ(run->additions.agent, "claude");
  EXPECT_NE(std::find(run->additions.hosts.begin(), run->additions.hosts.end(),
                      "api.anthropic.com"),
            run->additions.hosts.end());

  auto given = ApplyRecipe(Get(recipes, "claude"),
                           {"claude", "--dangerously-skip-permissions"}, Boxed(tree));
  ASSERT_TRUE(given);
  EXPECT_EQ(given->command,
            (std::vector<std::string>{"claude", "--dangerously-skip-permissions"}));
}

TEST(ApplyRecipe, ASwitchOfSeveralWordsIsAddedWhole) {
  TempTree tree;
  auto recipes = BuiltIns();
  // The user's own `-c` does not take the recipe's `-c` away from its value.
  auto codex = ApplyRecipe(Get(recipes, "codex"), {"codex", "-c", "model=\"x\"", "exec", "hi"},
                           Boxed(tree));
  ASSERT_TRUE(codex);
  EXPECT_EQ(codex->command,
            (std::vector<std::string>{"codex", "--dangerously-bypass-approvals-and-sandbox", "-c",
                                      "features.shell_snapshot=false", "-c",
                                      "features.daemon_auto_start=false", "-c", "model=\"x\"",
                                      "exec", "hi"}));
  auto droid = ApplyRecipe(Get(recipes, "droid"), {"droid", "--auto", "low"}, Boxed(tree));
  ASSERT_TRUE(droid);
  EXPECT_EQ(droid->command, (std::vector<std::string>{"droid", "--auto", "low"}));
}

TEST(ApplyRecipe, AskFirstAddsNoSwitch) {
  TempTree tree;
  policy::AgentsPolicy agents;
  agents.ask_first = true;
  auto recipes = Recipes(agents);
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Get(*recipes, "codex"), {"codex", "exec", "x"}, Boxed(tree));
  ASSERT_TRUE(run);
  EXPECT_EQ(run->command, (std::vector<std::string>{"codex", "exec", "x"}));
}

TEST(ApplyRecipe, OwnSettingsLiveUnderCorralsStateFolder) {
  TempTree tree;
  policy::AgentsPolicy agents;
  agents.own_settings = true;
  auto recipes = Recipes(agents);
  ASSERT_TRUE(recipes);
  auto run = ApplyRecipe(Get(*recipes, "codex"), {"codex"}, Boxed(tree));
  ASSERT_TRUE(run);
  ASSERT_EQ(run->additions.folders.size(), 1u);
  EXPECT_EQ(run->additions.folders[0].host, tree.root() + "/state/agents/codex/.codex");
  EXPECT_EQ(run->additions.folders[0].in_box, "~/.codex");
}

TEST(ApplyRecipe, TheFolderVariableNamesTheOneFolderAtItsOwnPath) {
  TempTree tree;
  auto recipes = BuiltIns();
  AgentContext context = Boxed(tree);
  std::string dir = tree.Dir("claude-work");
  context.getenv = [&dir](const char* name) -> const char* {
    return std::string(name) == "CLAUDE_CONFIG_DIR" ? dir.c_str() : nullptr;
  };
  auto run = ApplyRecipe(Get(recipes, "claude"), {"claude"}, context);
  ASSERT_TRUE(run);
  ASSERT_EQ(run->additions.folders.size(), 1u);
  EXPECT_EQ(run->additions.folders[0].host, tree.root() + "/state/agents/claude/.claude");
  EXPECT_EQ(run->additions.folders[0].in_box, dir);
  // Filled from the folder the variable names; ~/.claude.json is in it too.
  bool settings = false, state = false;
  for (const SeedStep& step : run->seed.steps) {
    if (step.from == dir + "/settings.json") {
      settings = step.to == tree.root() + "/state/agents/claude/.claude/settings.json";
    }
    if (step.from == dir + "/.claude.json") {
      state = step.to == tree.root() + "/state/agents/claude/.claude/.claude.json";
    }
  }
  EXPECT_TRUE(settings);
  EXPECT_TRUE(state);
  EXPECT_NE(std::find(run->additions.env.begin(), run->additions.env.end(),
                      "CLAUDE_CONFIG_DIR=" + dir),
            run->additions.env.end());
}

TEST(ApplyRecipe, UnboxedRefusesTheAgentsOwnBypassUnlessLevelIsOff) {
  TempTree tree;
  auto recipes = BuiltIns();
  AgentContext context = Boxed(tree);
  context.boxed = false;
  for (auto words : {std::vector<std::string>{"codex", "--yolo"},
                     std::vector<std::string>{"codex", "--sandbox", "danger-full-access"},
                     std::vector<std::string>{"codex", "--sandbox=danger-full-access"}}) {
    auto run = ApplyRecipe(Get(recipes, "codex"), words, context);
    ASSERT_FALSE(run) << words[1];
    EXPECT_NE(run.error().message.find("turns off codex's own sandbox"), std::string::npos);
  }
  auto plain = ApplyRecipe(Get(recipes, "codex"), {"codex", "exec", "x"}, context);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->command,
            (std::vector<std::string>{"codex", "--sandbox", "workspace-write", "exec", "x"}));
  EXPECT_TRUE(plain->additions.folders.empty());  // the agent is on the host already

  context.level = policy::Level::kOff;
  auto off = ApplyRecipe(Get(recipes, "codex"), {"codex", "--yolo"}, context);
  ASSERT_TRUE(off);
  EXPECT_EQ(off->command, (std::vector<std::string>{"codex", "--yolo"}));
}

TEST(MakeAgentFolders, MakesWhatIsMissingAndLeavesTheRest) {
  TempTree tree;
  std::string kept = tree.File("home/.claude.json", "{\"kept\": true}");
  AgentAdditions add;
  add.folders = {{tree.root() + "/home/.claude", "~/.claude", false, ""},
                 {kept, "~/.claude.json", true, ""},
                 {tree.root() + "/home/.config/x/new.json", "~/.config/x/new.json", true, ""}};
  ASSERT_TRUE(MakeAgentFolders(add));
  struct stat st {};
  ASSERT_EQ(::stat((tree.root() + "/home/.claude").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  std::ifstream made(tree.root() + "/home/.config/x/new.json");
  std::string text((std::istreambuf_iterator<char>(made)), {});
  EXPECT_EQ(text, "{}\n");
  std::ifstream old(kept);
  std::string old_text((std::istreambuf_iterator<char>(old)), {});
  EXPECT_EQ(old_text, "{\"kept\": true}");
}

}  // namespace
}  // namespace corral::launcher
