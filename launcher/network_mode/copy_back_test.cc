// The project copied in and back: the copy-back's decision (pure), the
// names a hostile box may give, and the writes on a real folder, which must
// never go through a symlink.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "launcher/network_mode/network_mode.h"
#include "launcher/test_util.h"

namespace corral::launcher::network_mode {
namespace {

using testing::TempTree;
const std::string kId = "0123456789ab";

CopiedEntry File(const std::string& content, unsigned mode = 0644) {
  return {TarEntry::kFile, mode, static_cast<std::int64_t>(content.size()), 0,
          ContentHash(content)};
}
CopiedEntry Folder(unsigned mode = 0755) { return {TarEntry::kFolder, mode, 0, 0, ""}; }
CopiedEntry Link(const std::string& target) { return {TarEntry::kSymlink, 0777, 0, 0, target}; }

HostEntry Here(const CopiedEntry& entry) {
  return {HostEntry::kPresent, entry.kind, entry.mode, entry.hash};
}
HostEntry Absent() { return HostEntry::Of(HostEntry::kAbsent); }

TarEntry BoxFile(const std::string& path, const std::string& content, unsigned mode = 0644) {
  return {TarEntry::kFile, "corral-project/" + path, content, mode, 1000, 1000};
}
TarEntry BoxFolder(const std::string& path, unsigned mode = 0755) {
  return {TarEntry::kFolder, "corral-project/" + path + "/", "", mode, 1000, 1000};
}
TarEntry BoxLink(const std::string& path, const std::string& target) {
  return {TarEntry::kSymlink, "corral-project/" + path, target, 0777, 1000, 1000};
}

// The manifest of a small project: a.txt, run.sh (0755), src/main.c, link → a.txt.
CopyManifest Project() {
  CopyManifest manifest;
  manifest.session_id = kId;
  manifest.entries = {{"a.txt", File("alpha\n")},
                      {"run.sh", File("#!/bin/sh\n", 0755)},
                      {"src", Folder()},
                      {"src/main.c", File("int main;\n")},
                      {"link", Link("a.txt")}};
  return manifest;
}

// The box's archive of that project as it was copied in.
std::vector<TarEntry> Untouched() {
  return {{TarEntry::kFolder, "corral-project/", "", 0755, 1000, 1000},
          BoxFile("a.txt", "alpha\n"),
          BoxFile("run.sh", "#!/bin/sh\n", 0755),
          BoxFolder("src"),
          BoxFile("src/main.c", "int main;\n"),
          BoxLink("link", "a.txt")};
}

// This machine as it was at copy-in, for every path of the manifest and the box.
std::map<std::string, HostEntry> HostAsCopied(const CopyManifest& manifest,
                                              const std::map<std::string, TarEntry>& box) {
  std::map<std::string, HostEntry> host;
  for (const std::string& path : PathsToCompare(manifest, box)) {
    auto it = manifest.entries.find(path);
    host[path] = it == manifest.entries.end() ? Absent() : Here(it->second);
  }
  return host;
}

struct Outcome {
  SyncPlan plan;
  std::vector<std::string> refused;
};
Outcome Plan(const std::vector<TarEntry>& archive,
             const std::function<void(std::map<std::string, HostEntry>&)>& change_host = {}) {
  Outcome outcome;
  CopyManifest manifest = Project();
  auto box = BoxEntries(archive, "corral-project", outcome.refused);
  auto host = HostAsCopied(manifest, box);
  if (change_host) change_host(host);
  outcome.plan = PlanCopyBack(manifest, box, host);
  return outcome;
}

std::vector<std::string> Steps(const SyncPlan& plan) {
  static const char* kNames[] = {"remove", "rmdir", "mkdir", "write", "link", "chmod"};
  std::vector<std::string> steps;
  for (const auto& action : plan.actions) steps.push_back(std::string(kNames[action.kind]) + " " + action.path);
  return steps;
}

TEST(PlanCopyBack, NothingChangedNothingToDo) {
  auto outcome = Plan(Untouched());
  EXPECT_TRUE(outcome.plan.actions.empty());
  EXPECT_TRUE(outcome.plan.conflicts.empty());
  EXPECT_TRUE(outcome.refused.empty());
}

TEST(PlanCopyBack, EditsAndCreationsComeHomeFoldersFirst) {
  auto archive = Untouched();
  archive[1] = BoxFile("a.txt", "alpha, edited\n");
  archive.push_back(BoxFolder("new", 0700));
  archive.push_back(BoxFile("new/deep.txt", "deep\n", 0600));
  auto outcome = Plan(archive);
  EXPECT_EQ(Steps(outcome.plan),
            (std::vector<std::string>{"mkdir new", "write a.txt", "write new/deep.txt"}));
  EXPECT_EQ(outcome.plan.actions[0].mode, 0700u);
  EXPECT_EQ(outcome.plan.actions[1].content, "alpha, edited\n");
  EXPECT_EQ(outcome.plan.actions[2].mode, 0600u);
  EXPECT_TRUE(outcome.plan.conflicts.empty());
}

TEST(PlanCopyBack, DeletionsGoWhenThisMachineDidNotChangeThePath) {
  auto archive = Untouched();
  archive.erase(archive.begin() + 3, archive.begin() + 5);  // src/ and src/main.c
  archive.erase(archive.begin() + 1);                       // a.txt
  auto outcome = Plan(archive);
  // Files before folders, deepest first.
  EXPECT_EQ(Steps(outcome.plan),
            (std::vector<std::string>{"remove src/main.c", "remove a.txt", "rmdir src"}));
  // a.txt edited here meanwhile: the box's deletion loses, said as a conflict.
  auto kept = Plan(archive, [](auto& host) { host["a.txt"] = Here(File("mine\n")); });
  EXPECT_EQ(Steps(kept.plan), (std::vector<std::string>{"remove src/main.c", "rmdir src"}));
  ASSERT_EQ(kept.plan.conflicts.size(), 1u);
  EXPECT_NE(kept.plan.conflicts[0].find("a.txt: deleted in the box"), std::string::npos);
}

TEST(PlanCopyBack, AModeChangeAloneIsAChmod) {
  auto archive = Untouched();
  archive[1] = BoxFile("a.txt", "alpha\n", 0755);
  archive[2] = BoxFile("run.sh", "#!/bin/sh\n", 0644);
  auto outcome = Plan(archive);
  EXPECT_EQ(Steps(outcome.plan), (std::vector<std::string>{"chmod run.sh", "chmod a.txt"}));
  EXPECT_EQ(outcome.plan.actions[0].mode, 0644u);
  EXPECT_EQ(outcome.plan.actions[1].mode, 0755u);
}

TEST(PlanCopyBack, ChangedOnBothSidesKeepsThisMachinesAndWritesTheBoxsBeside) {
  auto archive = Untouched();
  archive[1] = BoxFile("a.txt", "the box's\n");
  auto outcome = Plan(archive, [](auto& host) { host["a.txt"] = Here(File("mine\n")); });
  EXPECT_EQ(Steps(outcome.plan), (std::vector<std::string>{"write a.txt.corral-" + kId}));
  EXPECT_EQ(outcome.plan.actions[0].content, "the box's\n");
  ASSERT_EQ(outcome.plan.conflicts.size(), 1u);
  EXPECT_NE(outcome.plan.conflicts[0].find("a.txt.corral-" + kId), std::string::npos);
  // Deleted here, edited in the box: the box's is written beside, nothing lost.
  auto deleted = Plan(archive, [](auto& host) { host["a.txt"] = Absent(); });
  EXPECT_EQ(Steps(deleted.plan), (std::vector<std::string>{"write a.txt.corral-" + kId}));
}

TEST(PlanCopyBack, TheSameChangeOnBothSidesIsDoneSoAResumeFinishes) {
  auto archive = Untouched();
  archive[1] = BoxFile("a.txt", "edited\n");
  archive.erase(archive.begin() + 4);  // src/main.c
  archive.push_back(BoxFile("added", "new\n"));
  // A copy-back killed after writing a.txt and removing src/main.c.
  auto outcome = Plan(archive, [](auto& host) {
    host["a.txt"] = Here(File("edited\n"));
    host["src/main.c"] = Absent();
  });
  EXPECT_EQ(Steps(outcome.plan), (std::vector<std::string>{"write added"}));
  EXPECT_TRUE(outcome.plan.conflicts.empty());
}

TEST(PlanCopyBack, ChangesMadeOnlyHereAreLeftAlone) {
  auto outcome = Plan(Untouched(), [](auto& host) {
    host["a.txt"] = Here(File("mine\n"));
    host["src/main.c"] = Absent();
  });
  EXPECT_TRUE(outcome.plan.actions.empty());
  EXPECT_TRUE(outcome.plan.conflicts.empty());
}

TEST(PlanCopyBack, SymlinksAreWrittenAsLinksWhateverTheyName) {
  auto archive = Untouched();
  archive[5] = BoxLink("link", "/etc/passwd");
  archive.push_back(BoxLink("up", "../../home/user/.bashrc"));
  auto outcome = Plan(archive);
  EXPECT_EQ(Steps(outcome.plan), (std::vector<std::string>{"link link", "link up"}));
  EXPECT_EQ(outcome.plan.actions[0].content, "/etc/passwd");
  EXPECT_EQ(outcome.plan.actions[1].content, "../../home/user/.bashrc");
}

TEST(PlanCopyBack, AFileBecomingAFolderIsRemovedFirst) {
  auto archive = Untouched();
  archive[1] = BoxFolder("a.txt");
  archive.push_back(BoxFile("a.txt/inside", "x"));
  auto outcome = Plan(archive);
  EXPECT_EQ(Steps(outcome.plan), (std::vector<std::string>{"remove a.txt", "mkdir a.txt",
                                                           "write a.txt/inside"}));
}

// The box's mount points in the project (node_modules/, .venv/, .git/hooks/):
// corral makes a missing one on this machine before the copy-in, and removes
// it after the session when still empty (session/mount_points.cc). A later
// copy-back (`corral stop ID`) leaves it removed; one only the box's volume
// had (made there by the engine) would come home as a folder the project
// never had, which is why corral makes them before the copy.
TEST(PlanCopyBack, AMountPointMadeBeforeTheCopyAndRemovedAfterStaysRemoved) {
  CopyManifest manifest = Project();
  manifest.entries["node_modules"] = Folder();
  std::vector<std::string> refused;
  auto archive = Untouched();
  archive.push_back(BoxFolder("node_modules"));
  auto box = BoxEntries(archive, "corral-project", refused);
  auto host = HostAsCopied(manifest, box);
  host["node_modules"] = Absent();
  SyncPlan plan = PlanCopyBack(manifest, box, host);
  EXPECT_TRUE(plan.actions.empty()) << Steps(plan).front();
  EXPECT_TRUE(plan.conflicts.empty());

  auto made_in_the_volume = Plan(archive);  // not in the manifest
  EXPECT_EQ(Steps(made_in_the_volume.plan), std::vector<std::string>{"mkdir node_modules"});
}

TEST(BoxEntries, HostileNamesAreRefused) {
  std::vector<std::string> refused;
  auto box = BoxEntries({BoxFile("../escape", "x"),
                         {TarEntry::kFile, "/etc/passwd", "x", 0644, 0, 0},
                         {TarEntry::kFile, "corral-project/../outside", "x", 0644, 0, 0},
                         {TarEntry::kFile, "elsewhere/file", "x", 0644, 0, 0},
                         BoxFile("a/./b", "x"),
                         BoxFile("a//b", "x"),
                         BoxFile("ok.txt", "fine"),
                         {TarEntry::kFile, "./corral-project/dot.txt", "x", 0644, 0, 0}},
                        "corral-project", refused);
  EXPECT_EQ(refused.size(), 6u);
  ASSERT_EQ(box.size(), 2u);
  EXPECT_EQ(box.begin()->first, "dot.txt");
  EXPECT_EQ(box.rbegin()->first, "ok.txt");
}

// Podman's archive of the mount: "/" for the folder, "/NAME" for its members.
TEST(BoxEntries, PodmansNamesAndTheirEscapes) {
  std::vector<std::string> refused;
  auto box = BoxEntries({{TarEntry::kFolder, "/", "", 0755, 0, 0},
                         {TarEntry::kFile, "/a.txt", "a", 0644, 0, 0},
                         {TarEntry::kFile, "/sub/../../etc/passwd", "x", 0644, 0, 0},
                         {TarEntry::kFile, "relative", "x", 0644, 0, 0},
                         {TarEntry::kHardlink, "/b.txt", "/a.txt", 0, 0, 0}},
                        "", refused);
  EXPECT_EQ(refused.size(), 2u);
  ASSERT_EQ(box.size(), 2u);
  EXPECT_EQ(box["a.txt"].content, "a");
  EXPECT_EQ(box["b.txt"].content, "a");
  auto docker = CopierArchiveFor(false), podman = CopierArchiveFor(true);
  EXPECT_EQ(docker.put_path, "/");
  EXPECT_EQ(docker.put_root, "corral-project");
  EXPECT_EQ(podman.put_path, kCopierMount);
  EXPECT_EQ(podman.put_root, ".");
  EXPECT_EQ(podman.get_root, "");
}

TEST(BoxEntries, NothingBelowABoxSymlinkDevicesRefusedHardLinksCopied) {
  std::vector<std::string> refused;
  auto box = BoxEntries({BoxLink("home", "/home/user"),
                         BoxFile("home/.bashrc", "evil"),
                         BoxFile("file", "data", 0600),
                         BoxFile("file/under", "x"),
                         {TarEntry::kHardlink, "corral-project/second", "corral-project/file", 0, 0, 0},
                         {TarEntry::kHardlink, "corral-project/stray", "/etc/shadow", 0, 0, 0},
                         {TarEntry::kOther, "corral-project/fifo", "", 0644, 0, 0}},
                        "corral-project", refused);
  EXPECT_EQ(refused.size(), 4u);
  EXPECT_FALSE(box.count("home/.bashrc"));
  EXPECT_FALSE(box.count("file/under"));
  ASSERT_TRUE(box.count("second"));
  EXPECT_EQ(box["second"].kind, TarEntry::kFile);
  EXPECT_EQ(box["second"].content, "data");
  EXPECT_EQ(box["second"].mode, 0600u);
  EXPECT_FALSE(box.count("fifo"));
}

TEST(PlanCopyBack, NothingIsWrittenThroughASymlinkHere) {
  auto archive = Untouched();
  archive[4] = BoxFile("src/main.c", "edited\n");
  archive.push_back(BoxFile("src/new.c", "new\n"));
  // src became a symlink here since the copy-in.
  auto outcome = Plan(archive, [](auto& host) {
    host["src"] = Here(Link("/etc"));
    host["src/main.c"] = HostEntry::Of(HostEntry::kBlocked);
    host["src/new.c"] = HostEntry::Of(HostEntry::kBlocked);
  });
  EXPECT_TRUE(outcome.plan.actions.empty());
  EXPECT_EQ(outcome.plan.blocked.size(), 2u);  // the volume is kept for them
}

TEST(TearDownCalls, NeverTheProjectVolume) {
  Layout layout = LayoutFor(kId);
  EXPECT_EQ(layout.project_volume, "corral-" + kId + "-project");
  EXPECT_EQ(layout.copier, "corral-" + kId + "-copier");
  for (const ApiCall& call : TearDownCalls(layout)) {
    EXPECT_EQ(call.path.find(layout.project_volume), std::string::npos) << call.path;
  }
  auto labels = ProjectVolumeLabels(layout, "/home/u/proj");
  EXPECT_EQ(labels.at(kLabelSession), kId);
  EXPECT_EQ(labels.at(kLabelPart), "project");
  EXPECT_EQ(labels.at(kLabelProject), "/home/u/proj");
  auto body = CopierBody(layout, "img");
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Source"], layout.project_volume);
  EXPECT_EQ(body["HostConfig"]["Mounts"][0]["Target"], kCopierMount);
}

TEST(ProjectVolumeMayGo, OnlyWhenNothingIsLeftBehind) {
  CopyBackReport report;
  report.conflicts = {"a: both"};
  report.refused = {"../x: outside"};
  EXPECT_TRUE(ProjectVolumeMayGo(report));
  report.not_copied = {"src/x: a symlink on its way"};
  EXPECT_FALSE(ProjectVolumeMayGo(report));
}

// A copy-in that never finished is not described as the box's changes.
TEST(DescribeCopyBack, ACopyThatNeverLandedSaysSo) {
  CopyBackReport report;
  report.volume = "corral-0123456789ab-project";
  report.volume_removed = true;
  report.never_landed = true;
  std::string said = DescribeCopyBack(report, "0123456789ab");
  EXPECT_NE(said.find("never finished going into the volume corral-0123456789ab-project"),
            std::string::npos) << said;
  EXPECT_NE(said.find("the agent never ran"), std::string::npos) << said;
  EXPECT_EQ(said.find("the box's changes"), std::string::npos) << said;
  report.never_landed = false;
  EXPECT_NE(DescribeCopyBack(report, "0123456789ab").find("the box's changes: 0 written"),
            std::string::npos);
}

// Review mode on an engine elsewhere: the box's changes against the copy as
// it went in, whatever this machine has now.
TEST(PlanIntoUpper, WritesWhatTheBoxChangedAndListsWhatItRemoved) {
  CopyManifest manifest = Project();
  std::vector<std::string> refused;
  auto untouched = BoxEntries(Untouched(), "corral-project", refused);
  UpperPlan none = PlanIntoUpper(manifest, untouched);
  EXPECT_TRUE(none.writes.empty());
  EXPECT_TRUE(none.removed.empty());

  auto archive = Untouched();
  archive[1] = BoxFile("a.txt", "alpha, edited\n");  // edited
  archive[2] = BoxFile("run.sh", "#!/bin/sh\n", 0644);  // its mode alone
  archive.erase(archive.begin() + 3, archive.begin() + 6);  // src/, src/main.c and the link
  archive.push_back(BoxFile("src", "now a file\n"));       // a file where the folder was
  archive.push_back(BoxFolder("new", 0500));
  archive.push_back(BoxFile("new/deep.txt", "deep\n", 0600));
  auto box = BoxEntries(archive, "corral-project", refused);
  ASSERT_TRUE(refused.empty());
  UpperPlan plan = PlanIntoUpper(manifest, box);
  std::vector<std::string> steps;
  static const char* kNames[] = {"remove", "rmdir", "mkdir", "write", "link", "chmod"};
  for (const auto& action : plan.writes) steps.push_back(std::string(kNames[action.kind]) + " " + action.path);
  // Every change a whole file (a mode change too), folders first and
  // writable by their owner, so that what goes below them can be written.
  EXPECT_EQ(steps, (std::vector<std::string>{"mkdir new", "write a.txt", "write new/deep.txt",
                                             "write run.sh", "write src"}));
  EXPECT_EQ(plan.writes[0].mode, 0700u);
  EXPECT_EQ(plan.writes[3].content, "#!/bin/sh\n");
  EXPECT_EQ(plan.writes[3].mode, 0644u);
  EXPECT_EQ(plan.removed, (std::vector<std::string>{"link", "src/main.c"}));
}

TEST(Manifest, RoundTripsThroughJson) {
  CopyManifest manifest = Project();
  manifest.project_dir = "/p";
  manifest.volume = "v";
  manifest.image = "img";
  manifest.uid = 1000;
  manifest.gid = 1001;
  auto back = ManifestFromJson(ManifestJson(manifest));
  ASSERT_TRUE(back);
  EXPECT_EQ(ManifestJson(*back), ManifestJson(manifest));
  EXPECT_TRUE(back->review.upper.empty());
  manifest.review = {"/s/reviews/x/upper", "/s/reviews/x/removed"};
  auto review = ManifestFromJson(ManifestJson(manifest));
  ASSERT_TRUE(review);
  EXPECT_EQ(review->review.upper, "/s/reviews/x/upper");
  EXPECT_EQ(review->review.removed_list, "/s/reviews/x/removed");
  EXPECT_EQ(back->entries.at("link").kind, TarEntry::kSymlink);
  EXPECT_FALSE(ManifestFromJson(nlohmann::json{{"session", 1}}));
  EXPECT_EQ(ManifestPath("/s", kId), "/s/sessions/" + kId + ".copy.json");
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The whole round on a real folder, with the engine's part played here:
// ScanProject's tar read back as the box's archive, changed, planned, applied.
TEST(CopyBack, ARealFolderRoundTrip) {
  TempTree tree;
  std::string project = tree.Dir("project");
  tree.File("project/a.txt", "alpha\n");
  tree.File("project/keep.txt", "keep\n");
  tree.File("project/gone.txt", "gone\n");
  tree.File("project/.git/HEAD", "ref: refs/heads/main\n");
  ::symlink("a.txt", (project + "/link").c_str());
  auto scan = ScanProject(project, 1000, 1000, "corral-project");
  ASSERT_TRUE(scan) << scan.error().message;
  scan->manifest.session_id = kId;
  EXPECT_TRUE(scan->manifest.entries.count(".git/HEAD"));
  EXPECT_EQ(scan->manifest.entries.at("link").kind, TarEntry::kSymlink);
  auto archive = ReadTar(scan->tar);
  ASSERT_TRUE(archive) << archive.error().message;
  EXPECT_EQ((*archive)[0].path, "corral-project/");
  EXPECT_EQ((*archive)[0].uid, 1000u);
  // The box: edits a.txt, deletes gone.txt, adds new/file, relinks link.
  std::vector<TarEntry> box;
  for (TarEntry entry : *archive) {
    if (entry.path == "corral-project/gone.txt") continue;
    if (entry.path == "corral-project/a.txt") entry.content = "box\n";
    if (entry.path == "corral-project/link") entry.content = "/etc/passwd";
    box.push_back(entry);
  }
  box.push_back(BoxFile("new/file", "new\n", 0750));
  std::vector<std::string> refused;
  auto entries = BoxEntries(box, "corral-project", refused);
  auto plan = PlanCopyBack(scan->manifest, entries,
                           ReadHostState(project, PathsToCompare(scan->manifest, entries)));
  CopyBackReport report;
  ApplyPlan(project, plan, report);
  EXPECT_TRUE(report.not_copied.empty());
  EXPECT_EQ(Slurp(project + "/a.txt"), "box\n");
  EXPECT_EQ(Slurp(project + "/keep.txt"), "keep\n");
  EXPECT_FALSE(std::filesystem::exists(project + "/gone.txt"));
  EXPECT_EQ(Slurp(project + "/new/file"), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat((project + "/new/file").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_EQ(std::filesystem::read_symlink(project + "/link").string(), "/etc/passwd");
  // Run again: nothing left to do.
  auto again = PlanCopyBack(scan->manifest, entries,
                            ReadHostState(project, PathsToCompare(scan->manifest, entries)));
  EXPECT_TRUE(again.actions.empty());
  EXPECT_TRUE(again.conflicts.empty());
}

TEST(CopyBack, WritesNeverGoThroughASymlinkedFolderOrLink) {
  TempTree tree;
  std::string project = tree.Dir("project");
  std::string outside = tree.Dir("outside");
  tree.File("outside/target", "untouched\n");
  ::symlink(outside.c_str(), (project + "/docs").c_str());
  ::symlink((outside + "/target").c_str(), (project + "/file").c_str());
  auto host = ReadHostState(project, {"docs/x", "file", "nothing/here"});
  EXPECT_EQ(host["docs/x"].state, HostEntry::kBlocked);
  EXPECT_EQ(host["file"].state, HostEntry::kPresent);
  EXPECT_EQ(host["file"].kind, TarEntry::kSymlink);
  EXPECT_EQ(host["nothing/here"].state, HostEntry::kAbsent);
  SyncPlan plan;
  plan.actions = {{SyncAction::kWriteFile, "docs/x", "evil", 0644},
                  {SyncAction::kWriteFile, "file", "replaced\n", 0644},
                  {SyncAction::kChmod, "docs", "", 0777}};
  CopyBackReport report;
  ApplyPlan(project, plan, report);
  EXPECT_FALSE(std::filesystem::exists(outside + "/x"));
  EXPECT_EQ(report.not_copied.size(), 2u);  // docs/x and the chmod of a link
  EXPECT_EQ(Slurp(outside + "/target"), "untouched\n");
  EXPECT_FALSE(std::filesystem::is_symlink(project + "/file"));  // the link itself replaced
  EXPECT_EQ(Slurp(project + "/file"), "replaced\n");
}

}  // namespace
}  // namespace corral::launcher::network_mode
