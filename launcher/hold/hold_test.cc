#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "launcher/hold/hold.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

HostFolders Host(const TempTree& tree) {
  return {tree.Dir("home/u"),
          tree.Dir("home/u/.config/corral"),
          tree.Dir("home/u/.local/state/corral"),
          {{tree.Dir("home/u/.claude"), "claude's settings"}}};
}

TEST(KnownFolders, AllowedCoversTheFolderAndEverythingInside) {
  KnownFolders known{{"/src/shop"}, {}};
  EXPECT_TRUE(IsKnown(known, "/src/shop"));
  EXPECT_TRUE(IsKnown(known, "/src/shop/web/app"));
  EXPECT_FALSE(IsKnown(known, "/src/shopping"));  // a prefix is not a parent
  EXPECT_FALSE(IsKnown(known, "/src"));
}

TEST(KnownFolders, AttendedCoversExactlyThatFolder) {
  KnownFolders known{{}, {"/src/shop"}};
  EXPECT_TRUE(IsKnown(known, "/src/shop"));
  EXPECT_FALSE(IsKnown(known, "/src/shop/tmp"));
  EXPECT_FALSE(IsKnown(KnownFolders{}, "/src/shop"));
}

TEST(KnownFolders, UpdatesAreReadBackAndAMissingFileIsEmpty) {
  TempTree tree;
  std::string state = tree.root() + "/state";
  auto empty = ReadKnownFolders(state);
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->allowed.empty());
  ASSERT_TRUE(UpdateKnownFolders(state, [](KnownFolders& k) {
    k.allowed.push_back("/src/a");
    k.attended.push_back("/src/b");
    return true;
  }));
  auto read = ReadKnownFolders(state);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->allowed, std::vector<std::string>{"/src/a"});
  EXPECT_EQ(read->attended, std::vector<std::string>{"/src/b"});
  // An update that changes nothing leaves the file as it was.
  ASSERT_TRUE(UpdateKnownFolders(state, [](KnownFolders& k) {
    k.allowed.clear();
    return false;
  }));
  EXPECT_EQ(ReadKnownFolders(state)->allowed.size(), 1u);
}

TEST(KnownFolders, ABrokenFileIsAnErrorNamingIt) {
  TempTree tree;
  tree.File("state/known-folders.json", "[not json");
  auto read = ReadKnownFolders(tree.root() + "/state");
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("known-folders.json"), std::string::npos);
}

TEST(NeverAProject, HomeAndEveryFolderAboveItAndRoot) {
  TempTree tree;
  HostFolders host = Host(tree);
  EXPECT_NE(NeverAProject(host.home, host).find("is your home folder"), std::string::npos);
  EXPECT_NE(NeverAProject(host.home + "/", host).find("is your home folder"), std::string::npos);
  EXPECT_NE(NeverAProject(host.home + "/src/..", host).find("is your home folder"),
            std::string::npos);
  EXPECT_NE(NeverAProject(tree.root() + "/home", host).find("holds your home folder"),
            std::string::npos);
  EXPECT_NE(NeverAProject("/", host).find("/ is the whole machine"), std::string::npos);
  // Inside home is where projects live.
  EXPECT_EQ(NeverAProject(tree.Dir("home/u/src/shop"), host), "");
  EXPECT_EQ(NeverAProject(tree.Dir("elsewhere"), host), "");
}

TEST(NeverAProject, ALinkToHomeIsHome) {
  TempTree tree;
  HostFolders host = Host(tree);
  std::string link = tree.root() + "/link-to-home";
  ASSERT_EQ(::symlink(host.home.c_str(), link.c_str()), 0);
  EXPECT_NE(NeverAProject(link, host).find("is your home folder"), std::string::npos);
  EXPECT_NE(NeverAProject(link + "/", host).find("is your home folder"), std::string::npos);
  // And a home reached through a link: its real path is home too.
  HostFolders via_link = host;
  via_link.home = link;
  EXPECT_NE(NeverAProject(host.home, via_link).find("is your home folder"), std::string::npos);
  EXPECT_EQ(NeverAProject(tree.Dir("home/u/src"), via_link), "");
}

TEST(NeverAProject, CorralsFoldersAndTheAgentsSettings) {
  TempTree tree;
  HostFolders host = Host(tree);
  std::string in_config = NeverAProject(host.config_dir, host);
  EXPECT_NE(in_config.find("corral's config folder"), std::string::npos) << in_config;
  EXPECT_NE(in_config.find("corral's own rules"), std::string::npos);
  // A folder holding corral's state folder would share it too.
  EXPECT_NE(NeverAProject(tree.Dir("home/u/.local"), host).find("holds corral's state folder"),
            std::string::npos);
  std::string claude = NeverAProject(tree.Dir("home/u/.claude/projects"), host);
  EXPECT_NE(claude.find("is in claude's settings folder"), std::string::npos) << claude;
  EXPECT_NE(claude.find("logins and keys"), std::string::npos);
}

TEST(NeverAProject, EveryRecipesSettingsFolderIsKnown) {
  TempTree tree;
  policy::Policy policy;
  PlanInput input;
  input.home = tree.Dir("home/u");
  input.getenv = [](const char*) -> const char* { return nullptr; };
  auto host = HostFoldersFor(policy, input);
  ASSERT_TRUE(host) << host.error().message;
  bool claude = false, codex = false;
  for (const auto& named : host->agent_settings) {
    claude = claude || named.path == input.home + "/.claude/";
    codex = codex || named.path == input.home + "/.codex/";
    EXPECT_EQ(named.path.back(), '/') << "only folders, not files: " << named.path;
  }
  EXPECT_TRUE(claude);
  EXPECT_TRUE(codex);
  EXPECT_NE(NeverAProject(tree.Dir("home/u/.codex"), *host).find("codex's settings"),
            std::string::npos);
}

TEST(HeldRuns, ARecordOfALiveRunIsListedAndADeadOneIsDropped) {
  TempTree tree;
  std::string state = tree.root() + "/state";
  int me = static_cast<int>(::getpid());
  HeldRun live{"a1", "/src/shop", {"claude", "-p", "fix it"}, 100, me, ProcessStart(me)};
  HeldRun dead{"b2", "/src/other", {"codex"}, 50, me, "not-its-start-time"};
  ASSERT_TRUE(WriteHeldRecord(state, live));
  ASSERT_TRUE(WriteHeldRecord(state, dead));
  auto held = ListHeld(state);
  ASSERT_TRUE(held) << held.error().message;
  ASSERT_EQ(held->size(), 1u);
  EXPECT_EQ(held->front().folder, "/src/shop");
  EXPECT_EQ(held->front().command, live.command);
  EXPECT_FALSE(std::filesystem::exists(HeldRecordPath(state, "b2")));
}

TEST(HeldRuns, DescribedWithTheCommandTheFolderAndTheTime) {
  HeldRun run{"a1", "/home/u/scratch", {"claude", "-p", "fix it"}, 0, 1, ""};
  std::string line = DescribeHeld(run, "/home/u", 0);
  EXPECT_EQ(line.rfind("corral run claude -p 'fix it' in ~/scratch, since ", 0), 0u) << line;
  EXPECT_EQ(Tilde("/home/user2/x", "/home/u"), "/home/user2/x");
}

TEST(AskOnce, AsksTheFirstTimeOnly) {
  int asked = 0;
  auto once = AskOnce([&] { return ++asked, true; });
  EXPECT_EQ(asked, 0);
  EXPECT_TRUE(once());
  EXPECT_TRUE(once());
  EXPECT_EQ(asked, 1);
}

}  // namespace
}  // namespace corral::launcher
