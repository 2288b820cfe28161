#include "images/shim/target_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace corral::shim {
namespace {

namespace fs = std::filesystem;

std::uint64_t Address(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

// Two pages, the second unmapped: a string can end right before the hole.
class TwoPages {
 public:
  TwoPages() {
    size_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    void* map =
        ::mmap(nullptr, 2 * size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    base_ = static_cast<char*>(map);
    ::munmap(base_ + size_, size_);
  }
  ~TwoPages() { ::munmap(base_, size_); }
  char* end() const { return base_ + size_; }

 private:
  std::size_t size_;
  char* base_;
};

TEST(TargetProcessTest, ReadsStringsAcrossPagesAndUpToAHole) {
  TargetProcess self(::getpid());
  ASSERT_TRUE(self.valid());
  std::string across(10000, 'x');  // spans at least two pages
  across += "-end";
  EXPECT_EQ(self.ReadString(Address(across.c_str()), 1 << 20), across);
  EXPECT_EQ(self.ReadString(Address(across.c_str()), 100), std::nullopt);  // longer than asked

  TwoPages pages;
  std::memcpy(pages.end() - 4, "abc", 4);
  EXPECT_EQ(TargetProcess(::getpid()).ReadString(Address(pages.end() - 4), 100), "abc");
  std::memcpy(pages.end() - 3, "abc", 3);  // no NUL before the hole
  // A new reader: one reads a page once (one reader per notification).
  EXPECT_EQ(TargetProcess(::getpid()).ReadString(Address(pages.end() - 3), 100), std::nullopt);
  EXPECT_EQ(self.ReadString(0, 100), std::nullopt);
}

TEST(TargetProcessTest, ReadsAnArgumentVectorUpToItsLimit) {
  std::string a = "python3", b = "-c", c(5000, 'y');
  const char* argv[] = {a.c_str(), b.c_str(), c.c_str(), nullptr};
  // The kernel reads an argument vector at any alignment, so the check does too.
  alignas(8) char unaligned[1 + sizeof argv];
  std::memcpy(unaligned + 1, argv, sizeof argv);
  const char* bad[] = {a.c_str(), reinterpret_cast<const char*>(8), nullptr};
  TargetProcess self(::getpid());  // after the memory it reads is written: it keeps pages
  bool truncated = true;
  auto read = self.ReadArgv(Address(argv), sizeof(char*), 1 << 20, truncated);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, (std::vector<std::string>{a, b, c}));
  EXPECT_FALSE(truncated);

  read = self.ReadArgv(Address(argv), sizeof(char*), 100, truncated);
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, (std::vector<std::string>{a, b}));
  EXPECT_TRUE(truncated);

  read = self.ReadArgv(Address(unaligned + 1), sizeof(char*), 1 << 20, truncated);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->size(), 3u);

  read = self.ReadArgv(0, sizeof(char*), 100, truncated);  // execve(path, NULL, ...)
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->empty());
  EXPECT_EQ(self.ReadArgv(Address(bad), sizeof(char*), 100, truncated), std::nullopt);
}

TEST(TargetProcessTest, ResolvesFromItsWorkingDirectoryAndFollowsLinks) {
  fs::path dir = fs::temp_directory_path() / ("corral-target-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tool") << "#!/bin/sh\n";
  fs::create_symlink("tool", dir / "link");
  fs::path before = fs::current_path();
  fs::current_path(dir);

  TargetProcess self(::getpid());
  UniqueFd cwd = self.OpenDirectory(AT_FDCWD);
  ASSERT_TRUE(cwd.valid());
  auto file = self.Resolve(cwd.get(), "link", 0);
  ASSERT_TRUE(file);
  EXPECT_EQ(file->path, (dir / "tool").string());
  EXPECT_TRUE(S_ISREG(file->st.st_mode));
  EXPECT_FALSE(self.Resolve(cwd.get(), "missing", 0));
  EXPECT_FALSE(self.Resolve(cwd.get(), "link", AT_SYMLINK_NOFOLLOW));  // the kernel: ELOOP
  auto plain = self.Resolve(cwd.get(), "tool", 0);  // no link: one stat, the name as given
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->path, "tool");
  EXPECT_EQ(plain->st.st_ino, file->st.st_ino);
  UniqueFd readable = plain->OpenForReading();
  char first[2] = {};
  EXPECT_EQ(::read(readable.get(), first, 2), 2);
  EXPECT_EQ(std::string(first, 2), "#!");
  readable = file->OpenForReading();  // through the link's O_PATH descriptor
  EXPECT_EQ(::read(readable.get(), first, 2), 2);
  EXPECT_EQ(self.WorkingDirectory(), dir.string());

  // fexecve: execveat(fd, "", ..., AT_EMPTY_PATH) runs the descriptor's file.
  int fd = ::open((dir / "tool").c_str(), O_RDONLY | O_CLOEXEC);
  UniqueFd by_fd = self.OpenDirectory(fd);
  auto same = self.Resolve(by_fd.get(), "", AT_EMPTY_PATH);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->path, (dir / "tool").string());
  // /proc/self names the process that asked, not the one reading.
  auto through_proc = self.Resolve(AT_FDCWD, "/proc/self/fd/" + std::to_string(fd), 0);
  ASSERT_TRUE(through_proc);
  EXPECT_EQ(through_proc->path, (dir / "tool").string());
  ::close(fd);

  fs::current_path(before);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace corral::shim
