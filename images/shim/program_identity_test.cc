#include "images/shim/program_identity.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/unique_fd.h"

namespace corral::shim {
namespace {

namespace fs = std::filesystem;

class ProgramIdentityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-identity-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "bin");
    fs::create_directories(dir_ / "other");
    Write(dir_ / "bin" / "aws", "#!/bin/sh\necho the real aws\n");
    Write(dir_ / "bin" / "ls", "#!/bin/sh\necho ls\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  // What `identities` says the file at `path` is, asked as the supervisor asks.
  static std::string IdentityOf(ProgramIdentities& identities, const fs::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "<missing>";
    return identities.Identify(
        st, [&] { return UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)); });
  }

  ProgramIdentities Record() {
    std::string dirs = "relative:" + (dir_ / "none").string() + ":" + (dir_ / "bin").string();
    return ProgramIdentities::Record({"aws", "gcloud"}, dirs);
  }

  fs::path dir_;
};

TEST_F(ProgramIdentityTest, TheProgramAndItsLinksAreKnown) {
  fs::create_hard_link(dir_ / "bin" / "aws", dir_ / "other" / "hard");
  fs::create_symlink(dir_ / "bin" / "aws", dir_ / "other" / "soft");
  auto identities = Record();
  EXPECT_EQ(IdentityOf(identities, dir_ / "bin" / "aws"), "aws");
  EXPECT_EQ(IdentityOf(identities, dir_ / "other" / "hard"), "aws");
  EXPECT_EQ(IdentityOf(identities, dir_ / "other" / "soft"), "aws");  // opened through the link
  EXPECT_EQ(IdentityOf(identities, dir_ / "bin" / "ls"), "");
}

TEST_F(ProgramIdentityTest, AByteIdenticalCopyIsKnownAndASameSizedOtherFileIsNot) {
  auto identities = Record();
  fs::copy_file(dir_ / "bin" / "aws", dir_ / "other" / "x");
  Write(dir_ / "other" / "same-size", "#!/bin/sh\necho the fake aws\n");
  ASSERT_EQ(fs::file_size(dir_ / "other" / "same-size"), fs::file_size(dir_ / "bin" / "aws"));
  EXPECT_EQ(IdentityOf(identities, dir_ / "other" / "x"), "aws");
  EXPECT_EQ(IdentityOf(identities, dir_ / "other" / "same-size"), "");
}

TEST_F(ProgramIdentityTest, AFileRewrittenInPlaceIsLookedAtAgain) {
  auto identities = Record();
  fs::path copy = dir_ / "other" / "x";
  Write(copy, "#!/bin/sh\necho the fake aws\n");
  EXPECT_EQ(IdentityOf(identities, copy), "");
  struct timespec later[2] = {{0, UTIME_OMIT}, {::time(nullptr) + 5, 0}};
  Write(copy, "#!/bin/sh\necho the real aws\n");
  ::utimensat(AT_FDCWD, copy.c_str(), later, 0);  // a new mtime even on a coarse clock
  EXPECT_EQ(IdentityOf(identities, copy), "aws");
}

// The identity cache's detour: a file judged "not listed" is rewritten in
// place with a listed program's bytes, its size and modification time kept.
TEST_F(ProgramIdentityTest, ARewriteThatKeepsSizeAndModificationTimeIsLookedAtAgain) {
  fs::path copy = dir_ / "other" / "x";
  auto rewrite_keeping_mtime = [&](const std::string& text) {
    struct stat before {};
    ::stat(copy.c_str(), &before);
    UniqueFd fd(::open(copy.c_str(), O_WRONLY | O_CLOEXEC));  // in place: the same inode
    ASSERT_EQ(::pwrite(fd.get(), text.data(), text.size(), 0), static_cast<ssize_t>(text.size()));
    struct timespec times[2] = {{0, UTIME_OMIT}, before.st_mtim};
    ASSERT_EQ(::futimens(fd.get(), times), 0);
  };
  // Within the clock's tick, change times may be equal: a fresh file is never remembered.
  auto identities = Record();
  Write(copy, "#!/bin/sh\necho the fake aws\n");
  EXPECT_EQ(IdentityOf(identities, copy), "");
  rewrite_keeping_mtime("#!/bin/sh\necho the real aws\n");
  EXPECT_EQ(IdentityOf(identities, copy), "aws");

  // Remembered at once (as a file unchanged for long is): the change time tells.
  auto remembering = Record();
  remembering.set_settle_seconds(-1);
  Write(copy, "#!/bin/sh\necho the fake aws\n");
  EXPECT_EQ(IdentityOf(remembering, copy), "");
  ::usleep(20'000);  // past a coarse clock's tick
  rewrite_keeping_mtime("#!/bin/sh\necho the real aws\n");
  EXPECT_EQ(IdentityOf(remembering, copy), "aws");
}

TEST_F(ProgramIdentityTest, OnlyAbsolutePathFoldersAndRegularFilesAreRecorded) {
  auto identities = Record();
  EXPECT_FALSE(identities.empty());
  EXPECT_TRUE(ProgramIdentities::Record({"aws"}, "bin:.").empty());
  EXPECT_EQ(IdentityOf(identities, dir_ / "bin"), "");  // a folder
}

TEST(ContentHashTest, DependsOnEveryByte) {
  auto hash_of = [](const std::string& text) {
    fs::path path = fs::temp_directory_path() / ("corral-hash-" + std::to_string(::getpid()));
    std::ofstream(path, std::ios::binary) << text;
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    auto hash = ContentHash(fd.get());
    fs::remove(path);
    return hash.value_or(0);
  };
  std::string big(700'000, 'a');  // several reads
  std::string changed = big;
  changed[650'001] = 'b';
  EXPECT_NE(hash_of(big), hash_of(changed));
  EXPECT_NE(hash_of("abcdefgh1"), hash_of("abcdefgh2"));  // the tail after whole words
  EXPECT_EQ(hash_of(big), hash_of(std::string(700'000, 'a')));
}

TEST(VersionMemoTest, KeepsAnAnswerPerVersionOfAFile) {
  fs::path path = fs::temp_directory_path() / ("corral-memo-" + std::to_string(::getpid()));
  std::ofstream(path) << "#!/bin/sh\n";
  struct stat first {};
  ASSERT_EQ(::stat(path.c_str(), &first), 0);

  VersionMemo<int> fresh;  // a file changed just now is not remembered
  fresh.Keep(first, 1);
  EXPECT_EQ(fresh.Find(first), nullptr);

  VersionMemo<int> memo;
  memo.set_settle_seconds(-1);
  memo.Keep(first, 1);
  ASSERT_NE(memo.Find(first), nullptr);
  EXPECT_EQ(*memo.Find(first), 1);
  ::usleep(20'000);  // past a coarse clock's tick
  std::ofstream(path, std::ios::app) << "#";  // written: a new change time
  struct stat second {};
  ASSERT_EQ(::stat(path.c_str(), &second), 0);
  EXPECT_EQ(memo.Find(second), nullptr);
  fs::remove(path);
}

}  // namespace
}  // namespace corral::shim
