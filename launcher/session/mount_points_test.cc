#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "base/paths.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;
using testing::TestInput;
using testing::TestPolicy;

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> MadePaths(const MountPoints& points) {
  std::vector<std::string> paths;
  for (const HostMountPoint& point : points.made()) paths.push_back(point.path);
  return paths;
}

Mount Bind(std::string source, std::string target) {
  return {MountKind::kBind, std::move(source), std::move(target), false, {}, ""};
}

Mount Volume(std::string name, std::string target) {
  return {MountKind::kVolume, std::move(name), std::move(target), false, {}, ""};
}

TEST(MountPointsOnHost, TargetsInsideABoundFolderAsHostPaths) {
  std::map<std::string, PathKind> kinds = {
      {"/p", PathKind::kFolder},          {"/p/.git", PathKind::kFolder},
      {"/s/emptydir", PathKind::kFolder}, {"/p/.git/config", PathKind::kFile},
      {"/s/empty", PathKind::kFile},      {"/main/.git", PathKind::kFolder}};
  auto kind_of = [&](const std::string& path) {
    auto it = kinds.find(path);
    return it == kinds.end() ? PathKind::kMissing : it->second;
  };
  std::vector<Mount> mounts = {
      Volume("home", "/home/u"),
      Bind("/p", "/p"),
      Bind("/main/.git", "/main/.git"),  // a worktree's main repository, at its own path
      Bind("/p/.git", "/p/.git"),
      Volume("nm", "/p/node_modules"),
      Bind("/s/emptydir", "/p/.git/hooks"),
      Bind("/s/emptydir", "/main/.git/hooks"),
      Bind("/p/.git/config", "/p/.git/config"),
      Bind("/s/empty", "/p/.env"),
      Bind("/h/.claude", "/home/u/.claude"),  // inside a volume: not on the host
      Bind("/gone", "/p/gone"),               // a source that is missing: the engine refuses
  };
  std::vector<std::string> folders, files;
  for (const HostMountPoint& point : MountPointsOnHost(mounts, kind_of)) {
    (point.file ? files : folders).push_back(point.path + " in " + point.holder);
  }
  EXPECT_EQ(folders, (std::vector<std::string>{"/p/.git in /p", "/p/node_modules in /p",
                                               "/p/.git/hooks in /p/.git",
                                               "/main/.git/hooks in /main/.git"}));
  EXPECT_EQ(files, (std::vector<std::string>{"/p/.git/config in /p/.git", "/p/.env in /p"}));
}

TEST(MountPointsOnHost, AFreshProjectsPlanNeedsNodeModulesVenvAndHooks) {
  TempTree tree;
  std::string proj = tree.Dir("proj");
  tree.Dir("proj/.git");
  tree.File("proj/.git/HEAD", "ref: refs/heads/main\n");
  policy::Policy policy = TestPolicy();
  auto plan = MakePlan(TestInput(policy, tree, proj));
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_TRUE(PrepareSessionDir(*plan));  // the hooks' read-only empty folder is in it
  std::vector<std::string> missing;
  for (const HostMountPoint& point : MountPointsOnHost(plan->mounts, KindOnHost)) {
    // In the project, or corral's own in the session folder (all there).
    EXPECT_TRUE(IsWithin(point.path, proj) || IsWithin(point.path, plan->session_dir))
        << point.path;
    if (!Exists(point.path)) missing.push_back(point.path);
  }
  std::sort(missing.begin(), missing.end());
  EXPECT_EQ(missing, (std::vector<std::string>{proj + "/.git/hooks", proj + "/.venv",
                                               proj + "/node_modules"}));
}

TEST(MountPoints, MakesWhatIsMissingAndRemovesOnlyWhatItMadeThatIsStillEmpty) {
  TempTree tree;
  std::string proj = tree.Dir("proj");
  tree.Dir("proj/.git");
  tree.Dir("proj/.venv");  // the project's own, empty: kept
  MountPoints points;
  for (const HostMountPoint& point :
       {HostMountPoint{proj + "/node_modules", proj}, HostMountPoint{proj + "/.venv", proj},
        HostMountPoint{proj + "/.git/hooks", proj + "/.git"},
        HostMountPoint{proj + "/deep/er/node_modules", proj},
        HostMountPoint{proj + "/mask", proj, true}, HostMountPoint{proj + "/full", proj, true},
        HostMountPoint{proj + "/filled", proj}}) {
    ASSERT_TRUE(points.Make(point)) << point.path;
    EXPECT_TRUE(Exists(point.path)) << point.path;
  }
  EXPECT_TRUE(std::filesystem::is_regular_file(proj + "/mask"));
  EXPECT_TRUE(points.Holds(proj) && points.Holds(proj + "/.git"));
  EXPECT_EQ(MadePaths(points),
            (std::vector<std::string>{proj + "/node_modules", proj + "/.git/hooks", proj + "/deep",
                                      proj + "/deep/er", proj + "/deep/er/node_modules",
                                      proj + "/mask", proj + "/full", proj + "/filled"}));
  // Content put in while the session ran is the user's.
  tree.File("proj/full", "text\n");
  tree.File("proj/filled/kept.txt", "text\n");

  points.RemoveMade();
  for (const char* gone : {"/node_modules", "/.git/hooks", "/deep", "/mask"}) {
    EXPECT_FALSE(Exists(proj + gone)) << gone;
  }
  EXPECT_TRUE(std::filesystem::is_directory(proj + "/.venv"));
  EXPECT_TRUE(std::filesystem::is_directory(proj + "/.git"));
  EXPECT_EQ(ReadText(proj + "/full"), "text\n");
  EXPECT_EQ(ReadText(proj + "/filled/kept.txt"), "text\n");
  EXPECT_TRUE(points.made().empty());
}

TEST(MountPoints, NothingIsMadeThroughALink) {
  TempTree tree;
  std::string proj = tree.Dir("proj");
  std::string elsewhere = tree.Dir("elsewhere");
  ASSERT_EQ(::symlink(elsewhere.c_str(), (proj + "/.git").c_str()), 0);
  MountPoints points;
  EXPECT_FALSE(points.Make({proj + "/.git/hooks", proj}));
  EXPECT_FALSE(Exists(elsewhere + "/hooks"));
  EXPECT_TRUE(points.made().empty());
}

TEST(MountPoints, NothingIsRemovedWhileAnotherSessionHoldsTheFolder) {
  TempTree tree;
  std::string proj = tree.Dir("proj");
  MountPoints first, second;
  ASSERT_TRUE(first.Make({proj + "/node_modules", proj}));
  ASSERT_TRUE(second.Make({proj + "/node_modules", proj}));  // there: not second's to remove
  EXPECT_EQ(MadePaths(first), std::vector<std::string>{proj + "/node_modules"});
  EXPECT_TRUE(second.made().empty());
  std::vector<HostMountPoint> made = first.made();

  first.RemoveMade();  // the second session's box still has it mounted
  EXPECT_TRUE(Exists(proj + "/node_modules"));
  second.RemoveMade();
  EXPECT_TRUE(Exists(proj + "/node_modules"));  // left, the user's and empty

  // The reaper's removal, with nobody holding the project, takes it.
  RemoveIfEmpty(made);
  EXPECT_FALSE(Exists(proj + "/node_modules"));
}

TEST(MountPoints, WaitsForASessionThatIsRemovingItsOwn) {
  TempTree tree;
  std::string proj = tree.Dir("proj");
  UniqueFd removing(::open(proj.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_EQ(::flock(removing.get(), LOCK_EX), 0);
  std::thread done([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    removing.Reset();
  });
  MountPoints points;
  EXPECT_TRUE(points.Make({proj + "/node_modules", proj}));
  done.join();
  EXPECT_TRUE(points.Holds(proj));
  EXPECT_TRUE(Exists(proj + "/node_modules"));
}

TEST(RemoveIfEmpty, OnlyWhatWasMadeAsItWasMade) {
  TempTree tree;
  std::string proj = tree.Dir("proj");
  std::string target = tree.Dir("target");
  tree.File("proj/node_modules", "now a file with text\n");
  tree.File("proj/.venv");  // made a folder, now an empty file: not what corral made
  tree.Dir("proj/mask");    // made an empty file, now a folder
  ASSERT_EQ(::symlink(target.c_str(), (proj + "/hooks").c_str()), 0);
  RemoveIfEmpty({{proj + "/node_modules", proj},
                 {proj + "/.venv", proj},
                 {proj + "/mask", proj, true},
                 {proj + "/hooks", proj},
                 {proj + "/never-there", proj}});
  for (const char* kept : {"/node_modules", "/.venv", "/mask", "/hooks"}) {
    EXPECT_TRUE(Exists(proj + kept)) << kept;
  }
  EXPECT_TRUE(Exists(target));  // a link is never followed
}

}  // namespace
}  // namespace corral::launcher
