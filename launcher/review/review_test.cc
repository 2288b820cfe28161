// Review mode's git plumbing and undo, with real git in throwaway folders.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <gtest/gtest.h>

#include "launcher/review/review.h"
#include "launcher/test_util.h"

namespace corral::launcher::review {
namespace {

using testing::TempTree;

std::string GitOut(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  auto out = Git(args, "", env);
  EXPECT_TRUE(out) << (out ? "" : out.error().message);
  std::string text = out ? *out : "";
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string Read(const std::string& path) {
  auto text = ReadWholeFile(path);
  return text ? *text : "(missing)";
}

const std::vector<std::string> kIdentity = {"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x",
                                            "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x"};

// A repository at tree/p on branch main with one commit of `files` (path
// under p -> text).
std::string OneCommitRepo(TempTree& tree,
                          const std::map<std::string, std::string>& files = {{"a", "a\n"}}) {
  std::string project = tree.Dir("p");
  GitOut({"-C", project, "init", "-q", "-b", "main"});
  for (const auto& [path, text] : files) tree.File("p/" + path, text);
  GitOut({"-C", project, "add", "-A"});
  GitOut({"-C", project, "commit", "-q", "-m", "one"}, kIdentity);
  return project;
}

TEST(ReviewTree, ChangesReplaceAndRemove) {
  TreeEntries tree = {{"a", "100644 1"}, {"d/x", "100644 2"}, {"d/y", "100644 3"},
                      {"e/z", "100644 4"}, {"f", "100644 5"}};
  UpperChanges changes;
  changes.removed = {"d"};
  changes.opaque = {"e"};
  TreeEntries out = ApplyChanges(tree, changes, {{"e/new", "100644 6"}, {"f/g", "100755 7"},
                                                 {"a", "100644 8"}});
  TreeEntries want = {{"a", "100644 8"}, {"e/new", "100644 6"}, {"f/g", "100755 7"}};
  EXPECT_EQ(out, want);
}

TEST(ReviewTree, BoxHeadFromLooseRefPackedRefsOrBase) {
  Copy copy;
  copy.base = std::string(40, 'b');
  copy.head_ref = "refs/heads/main";
  std::map<std::string, std::string> files;
  auto read = [&](const std::string& path) { return files.count(path) ? files[path] : ""; };
  EXPECT_EQ(BoxHead(copy, read), copy.base);
  files["packed-refs"] = "# pack-refs\n" + std::string(40, 'p') + " refs/heads/main\n";
  EXPECT_EQ(BoxHead(copy, read), std::string(40, 'p'));
  files["refs/heads/main"] = std::string(40, 'l') + "\n";
  EXPECT_EQ(BoxHead(copy, read), std::string(40, 'l'));
  files["HEAD"] = std::string(40, 'd') + "\n";  // detached in the box
  EXPECT_EQ(BoxHead(copy, read), std::string(40, 'd'));
  files["HEAD"] = "ref: refs/heads/other\n";  // another branch only the project has
  EXPECT_EQ(BoxHead(copy, read), "");
}

TEST(ReviewCopy, RefusesWhatItCannotDo) {
  TempTree tree;
  std::string state = tree.Dir("state");
  std::string plain = tree.Dir("plain");
  auto refused = Prepare(state, "s1", plain, "claude");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("needs a git repository"), std::string::npos);
  std::string project = tree.Dir("p");
  GitOut({"-C", project, "init", "-q", "-b", "main"});
  tree.File("p/a", "a\n");
  GitOut({"-C", project, "add", "a"});
  GitOut({"-C", project, "commit", "-q", "-m", "one"}, kIdentity);
  GitOut({"-C", project, "checkout", "-q", "--detach"});
  refused = Prepare(state, "s2", project, "claude");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("HEAD is detached"), std::string::npos);
  GitOut({"-C", project, "checkout", "-q", "main"});
  tree.Dir("p/.git/rebase-merge");
  refused = Prepare(state, "s3", project, "claude");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("rebase is in progress"), std::string::npos);
}

// A project with a commit, a user's uncommitted edit and a file of theirs;
// a box that commits once and leaves a file, an ignored one and a removal.
TEST(ReviewBranch, CommitsPlusLeftoversArriveAsABranch) {
  TempTree tree;
  std::string state = tree.Dir("state");
  std::string project = OneCommitRepo(
      tree, {{"a", "a\n"}, {"b", "b\n"}, {"gone", "gone\n"}, {".gitignore", "build/\n"}});
  std::string base = GitOut({"-C", project, "rev-parse", "HEAD"});
  tree.File("p/b", "b edited by the user\n");
  tree.File("p/mine", "the user's own\n");
  auto copy = Prepare(state, "s1", project, "claude");
  ASSERT_TRUE(copy) << copy.error().message;
  ASSERT_TRUE(SnapshotTree(state, "s1", project, "before"));

  // The box: a commit whose objects land in upper/.git, as the overlay puts them.
  std::string objects = copy->upper + "/.git/objects";
  std::filesystem::create_directories(objects);
  std::vector<std::string> box_env = kIdentity;
  box_env.push_back("GIT_OBJECT_DIRECTORY=" + objects);
  box_env.push_back("GIT_ALTERNATE_OBJECT_DIRECTORIES=" + project + "/.git/objects");
  box_env.push_back("GIT_INDEX_FILE=" + tree.root() + "/box.index");
  tree.File("box/a", "a changed by the agent\n");
  GitOut({"-C", project, "read-tree", "HEAD"}, box_env);
  std::string blob = GitOut({"-C", project, "hash-object", "-w", tree.root() + "/box/a"}, box_env);
  GitOut({"-C", project, "update-index", "--cacheinfo", "100644," + blob + ",a"}, box_env);
  std::string box_tree = GitOut({"-C", project, "write-tree"}, box_env);
  std::string box_commit =
      GitOut({"-C", project, "commit-tree", box_tree, "-p", base, "-m", "agent's commit"}, box_env);
  tree.File("state/reviews/s1/upper/.git/refs/heads/main", box_commit + "\n");
  tree.File("state/reviews/s1/upper/a", "a changed by the agent\n");
  tree.File("state/reviews/s1/upper/new", "left uncommitted\n");
  tree.File("state/reviews/s1/upper/build/out.o", "ignored\n");
  bool whiteout =
      ::mknod((copy->upper + "/gone").c_str(), S_IFCHR | 0000, makedev(0, 0)) == 0;

  auto back = BringBack(state, "s1");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->branch, "corral/s1");
  EXPECT_EQ(back->state, "branch");
  std::string tip = GitOut({"-C", project, "rev-parse", "refs/heads/corral/s1"});
  EXPECT_EQ(GitOut({"-C", project, "rev-parse", tip + "^"}), box_commit);
  EXPECT_EQ(GitOut({"-C", project, "log", "-1", "--format=%an", tip}), "claude");
  EXPECT_EQ(GitOut({"-C", project, "show", tip + ":new"}), "left uncommitted");
  EXPECT_EQ(GitOut({"-C", project, "show", tip + ":a"}), "a changed by the agent");
  EXPECT_EQ(GitOut({"-C", project, "show", tip + ":b"}), "b");  // the user's edit is not the agent's
  EXPECT_FALSE(Git({"-C", project, "cat-file", "-e", tip + ":build/out.o"}));
  EXPECT_FALSE(Git({"-C", project, "cat-file", "-e", tip + ":mine"}));
  if (whiteout) {
    EXPECT_FALSE(Git({"-C", project, "cat-file", "-e", tip + ":gone"}));
  }
  // The user's tree and branch as they were.
  EXPECT_EQ(GitOut({"-C", project, "rev-parse", "HEAD"}), base);
  EXPECT_EQ(GitOut({"-C", project, "symbolic-ref", "HEAD"}), "refs/heads/main");
  EXPECT_EQ(Read(project + "/a"), "a\n");
  EXPECT_EQ(Read(project + "/b"), "b edited by the user\n");
  EXPECT_FALSE(std::filesystem::exists(project + "/new"));
  EXPECT_FALSE(std::filesystem::exists(copy->upper));

  // Brought back again (corral stop after the end): the same branch.
  auto again = BringBack(state, "s1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->branch, "corral/s1");

  auto text = Describe(*back, {});
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("agent's commit"), std::string::npos);
  EXPECT_NE(text->find("+left uncommitted"), std::string::npos);

  // A file the branch changes, edited by the user since: refused, nothing written.
  tree.File("p/a", "a edited by the user meanwhile\n");
  auto refused = Apply(state, *back, {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("not applied: a has changed"), std::string::npos)
      << refused.error().message;
  EXPECT_FALSE(std::filesystem::exists(project + "/new"));
  tree.File("p/a", "a\n");
  auto applied = Apply(state, *back, {});
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(Read(project + "/a"), "a changed by the agent\n");
  EXPECT_EQ(Read(project + "/new"), "left uncommitted\n");
  EXPECT_EQ(Read(project + "/b"), "b edited by the user\n");
  EXPECT_EQ(GitOut({"-C", project, "diff", "--cached", "--name-only"}), "");  // nothing staged
  if (whiteout) {
    EXPECT_FALSE(std::filesystem::exists(project + "/gone"));
  }

  auto dropped = Discard(*back);
  ASSERT_TRUE(dropped);
  EXPECT_FALSE(Git({"-C", project, "rev-parse", "--verify", "-q", "refs/heads/corral/s1"}));
}

// An engine elsewhere: no overlay, so the copy-back lists what the box
// removed (RemovedListPath) beside the files it wrote into the upper folder.
TEST(ReviewBranch, RemovalsFromTheCopyBacksListAsFromWhiteouts) {
  TempTree tree;
  std::string state = tree.Dir("state");
  std::string project =
      OneCommitRepo(tree, {{"keep", "keep\n"}, {"gone", "gone\n"}, {"old/x", "x\n"}});
  auto copy = Prepare(state, "s3", project, "codex");
  ASSERT_TRUE(copy) << copy.error().message;
  tree.File("state/reviews/s3/upper/old", "a file where the folder was\n");
  std::string list = std::string("gone") + '\0' + "old/x" + '\0' + ".git/refs/heads/main" + '\0';
  tree.File("state/reviews/s3/removed", list);
  auto back = BringBack(state, "s3");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->branch, "corral/s3");
  std::string tip = GitOut({"-C", project, "rev-parse", "refs/heads/corral/s3"});
  EXPECT_EQ(GitOut({"-C", project, "ls-tree", "-r", "--name-only", tip}), "keep\nold");
  EXPECT_EQ(GitOut({"-C", project, "show", tip + ":old"}), "a file where the folder was");
  // The .git entry is not a project file: the box's commits come as commits.
  EXPECT_EQ(GitOut({"-C", project, "rev-parse", tip + "^"}),
            GitOut({"-C", project, "rev-parse", "main"}));
  EXPECT_FALSE(std::filesystem::exists(RemovedListPath(*back)));
  EXPECT_TRUE(std::filesystem::exists(project + "/gone"));  // the tree is untouched
}

TEST(ReviewBranch, ATakenNameGetsASuffixAndNothingChangedMeansNoBranch) {
  TempTree tree;
  std::string state = tree.Dir("state");
  std::string project = OneCommitRepo(tree);
  GitOut({"-C", project, "branch", "corral/s1"});
  ASSERT_TRUE(Prepare(state, "s1", project, "claude"));
  tree.File("state/reviews/s1/upper/a", "changed\n");
  auto back = BringBack(state, "s1");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->branch, "corral/s1-2");
  ASSERT_TRUE(Prepare(state, "s2", project, "claude"));
  tree.File("state/reviews/s2/upper/a", "a\n");  // copied up, the same bytes
  auto empty = BringBack(state, "s2");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(empty->state, "empty");
  EXPECT_EQ(empty->branch, "");
}

TEST(ReviewBranch, ApplyHoldsBackAutoRunFilesUntilNamed) {
  TempTree tree;
  std::string state = tree.Dir("state");
  std::string project = OneCommitRepo(tree);
  ASSERT_TRUE(Prepare(state, "s1", project, "claude"));
  tree.File("state/reviews/s1/upper/a", "changed\n");
  tree.File("state/reviews/s1/upper/.claude/settings.json", "{\"hooks\": {}}\n");
  auto back = BringBack(state, "s1");
  ASSERT_TRUE(back) << back.error().message;
  AutoRunTool auto_run = [](const std::string& path) {
    return path == ".claude/settings.json" ? std::string("Claude Code") : std::string();
  };

  auto text = Describe(*back, auto_run);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("It changes files a tool on this machine runs without asking: "
                       ".claude/settings.json (Claude Code)"),
            std::string::npos)
      << *text;

  auto applied = Apply(state, *back, {{}, auto_run});
  ASSERT_TRUE(applied) << applied.error().message;
  EXPECT_EQ(Read(project + "/a"), "changed\n");
  EXPECT_FALSE(std::filesystem::exists(project + "/.claude/settings.json"));
  ASSERT_EQ(applied->size(), 2u);
  EXPECT_NE((*applied)[0].find("(1 file, not staged)"), std::string::npos) << (*applied)[0];
  EXPECT_EQ((*applied)[1].rfind("held back: .claude/settings.json (Claude Code)", 0), 0u)
      << (*applied)[1];
  EXPECT_NE((*applied)[1].find("corral review s1 --apply .claude/settings.json"),
            std::string::npos);

  // Applied, the branch is still there to review, to bring a file by name, or to drop.
  auto listed = BranchesToReview(state);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].state, "applied");

  auto unknown = Apply(state, *back, {{"nothere"}, auto_run});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("does not change nothere"), std::string::npos);

  auto named = Apply(state, *back, {{".claude/settings.json"}, auto_run});
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_EQ(Read(project + "/.claude/settings.json"), "{\"hooks\": {}}\n");
}

TEST(Undo, PutsBackAndRefusesFilesChangedSince) {
  TempTree tree;
  std::string state = tree.Dir("state");
  std::string project = tree.Dir("plain");  // not a git repository
  tree.File("plain/keep", "keep\n");
  tree.File("plain/edit", "before\n");
  tree.File("plain/gone", "removed by the session\n");
  ASSERT_TRUE(SnapshotTree(state, "u1", project, "before"));
  tree.File("plain/edit", "after\n");
  tree.File("plain/made", "made by the session\n");
  std::filesystem::remove(project + "/gone");
  ASSERT_TRUE(SnapshotTree(state, "u1", project, "after"));
  tree.File("plain/made", "changed since\n");
  auto refused = Undo(state, "u1", false);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("not undone: made was changed after"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(Read(project + "/edit"), "after\n");  // nothing put back
  tree.File("plain/made", "made by the session\n");
  auto done = Undo(state, "u1", false);
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(Read(project + "/edit"), "before\n");
  EXPECT_EQ(Read(project + "/gone"), "removed by the session\n");
  EXPECT_EQ(Read(project + "/keep"), "keep\n");
  EXPECT_FALSE(std::filesystem::exists(project + "/made"));
  EXPECT_FALSE(Undo(state, "u1", false));  // once
}

}  // namespace
}  // namespace corral::launcher::review
