#include "base/files.h"

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

namespace corral {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("corral-files-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

TEST_F(FilesTest, ReadsEveryByte) {
  std::string bytes(100000, 'x');
  bytes[7] = '\0';
  bytes.back() = '\n';
  auto text = ReadWholeFile(Write("big", bytes));
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, bytes);
  auto empty = ReadWholeFile(Write("empty", ""));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST_F(FilesTest, ReadsFilesWhoseSizeSaysNothing) {
  auto status = ReadWholeFile("/proc/self/status");  // st_size 0
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_NE(status->find("Pid:"), std::string::npos);
}

TEST_F(FilesTest, AMissingFileIsMissing) {
  std::string path = (dir_ / "none").string();
  auto text = ReadWholeFile(path);
  ASSERT_FALSE(text.ok());
  EXPECT_TRUE(IsMissing(text.error()));
  EXPECT_EQ(text.error().code, ENOENT);
  EXPECT_EQ(text.error().message, "cannot read " + path + ": No such file or directory");
}

// Root reads a mode-000 file, so the unreadable ones here are a folder (the
// open works, the read fails) and a path through a file (the open fails).
TEST_F(FilesTest, AFileThatCannotBeReadIsNotMissing) {
  auto folder = ReadWholeFile(dir_.string());
  ASSERT_FALSE(folder.ok());
  EXPECT_FALSE(IsMissing(folder.error()));
  EXPECT_EQ(folder.error().code, EISDIR);
  EXPECT_EQ(folder.error().message, "cannot read " + dir_.string() + ": Is a directory");

  std::string through = Write("file", "x") + "/below";
  auto below = ReadWholeFile(through);
  ASSERT_FALSE(below.ok());
  EXPECT_FALSE(IsMissing(below.error()));
  EXPECT_EQ(below.error().code, ENOTDIR);
}

TEST_F(FilesTest, ReadToEndReadsAPipeToItsEnd) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  UniqueFd read_end(fds[0]);
  std::string bytes(20000, 'p');
  ASSERT_TRUE(WriteAll(fds[1], bytes.data(), bytes.size()));
  ::close(fds[1]);
  auto text = ReadToEnd(read_end.get());
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, bytes);
}

TEST_F(FilesTest, ReadToEndReportsADescriptorThatCannotRead) {
  UniqueFd write_only(::open(Write("w", "abc").c_str(), O_WRONLY | O_CLOEXEC));
  ASSERT_TRUE(write_only.valid());
  auto text = ReadToEnd(write_only.get());
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, EBADF);
}

TEST_F(FilesTest, ReplaceFileWritesItWholeAndPrivate) {
  std::string path = Write("list", "old");
  ASSERT_TRUE(ReplaceFile(path, std::string("a\0b\0", 4)).ok());
  auto text = ReadWholeFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, std::string("a\0b\0", 4));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  // Never through a symlink planted where the temporary file goes.
  std::string elsewhere = Write("elsewhere", "untouched");
  fs::create_symlink(elsewhere, path + ".tmp");
  auto refused = ReplaceFile(path, "new");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message.rfind("cannot write " + path + ".tmp", 0), 0u);
  EXPECT_EQ(*ReadWholeFile(elsewhere), "untouched");
  EXPECT_EQ(*ReadWholeFile(path), std::string("a\0b\0", 4));
}

TEST_F(FilesTest, OpenLockedMakesThePrivateFileAndHoldsTheLock) {
  std::string path = (dir_ / "state.lock").string();
  auto locked = OpenLocked(path, O_APPEND);
  ASSERT_TRUE(locked.ok()) << locked.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_TRUE(::fcntl(locked->get(), F_GETFL) & O_APPEND);
  EXPECT_TRUE(::fcntl(locked->get(), F_GETFD) & FD_CLOEXEC);

  UniqueFd other(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_NE(::flock(other.get(), LOCK_EX | LOCK_NB), 0);
  EXPECT_EQ(errno, EWOULDBLOCK);
  locked->Reset();
  EXPECT_EQ(::flock(other.get(), LOCK_EX | LOCK_NB), 0);
}

TEST_F(FilesTest, OpenLockedWaitsForTheHolder) {
  std::string path = (dir_ / "wait.lock").string();
  auto first = OpenLocked(path);
  ASSERT_TRUE(first.ok());
  auto second = std::async(std::launch::async, [&] { return OpenLocked(path); });
  EXPECT_EQ(second.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  first->Reset();
  ASSERT_EQ(second.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_TRUE(second.get().ok());
}

TEST_F(FilesTest, OpenLockedSaysWhatItCouldNotOpen) {
  std::string path = (dir_ / "no-folder" / "x.lock").string();
  auto locked = OpenLocked(path);
  ASSERT_FALSE(locked.ok());
  EXPECT_EQ(locked.error().message, "cannot open " + path + ": No such file or directory");
}

}  // namespace
}  // namespace corral
