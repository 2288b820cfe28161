#include "images/shim/target_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
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
  auto plain = self.Resolve(cwd.get(), "tool", 0);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->path, "tool");  // the file itself: named as given
  EXPECT_EQ(plain->RealPath(), (dir / "tool").string());
  EXPECT_EQ(plain->st.st_ino, file->st.st_ino);
  UniqueFd readable = plain->OpenForReading();
  char first[2] = {};
  EXPECT_EQ(::read(readable.get(), first, 2), 2);
  EXPECT_EQ(std::string(first, 2), "#!");
  EXPECT_EQ(self.WorkingDirectory(), dir.string());
  EXPECT_FALSE(self.Resolve(cwd.get(), "tool/", 0));  // not a directory: the exec fails
  auto up = self.Resolve(cwd.get(), "../" + dir.filename().string() + "/./link", 0);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->st.st_ino, file->st.st_ino);

  // fexecve: execveat(fd, "", ..., AT_EMPTY_PATH) runs the descriptor's file.
  int fd = ::open((dir / "tool").c_str(), O_RDONLY | O_CLOEXEC);
  UniqueFd by_fd = self.OpenDirectory(fd);
  auto same = self.Resolve(by_fd.get(), "", AT_EMPTY_PATH);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->path, (dir / "tool").string());
  EXPECT_FALSE(self.Resolve(by_fd.get(), "", 0));  // ENOENT without AT_EMPTY_PATH
  ::close(fd);

  fs::current_path(before);
  fs::remove_all(dir);
}


// Paths that lead back to the process that asked, resolved as that process
// (a child here, holding descriptor 37 on `tool`), never as the reader
// (holding 37 on `other`).
TEST(TargetProcessTest, PathsBackToTheProcessNameItsOwnFiles) {
  fs::path dir = fs::temp_directory_path() / ("corral-target-self-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tool") << "#!/bin/sh\n";
  std::ofstream(dir / "other") << "other";
  fs::create_symlink("/proc/self/fd/37", dir / "fd-link");
  int mine = ::open((dir / "other").c_str(), O_RDONLY);
  ASSERT_EQ(::dup2(mine, 37), 37);
  int ready[2], done[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(done), 0);
  pid_t child = ::fork();
  if (child == 0) {
    int tool = ::open((dir / "tool").c_str(), O_RDONLY);
    if (::dup2(tool, 37) != 37 || ::dup2(tool, 0) != 0 || ::chdir("/proc") != 0) _exit(1);
    char c = 1;
    (void)!::write(ready[1], &c, 1);
    (void)!::read(done[0], &c, 1);
    _exit(0);
  }
  char c;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  struct stat tool {};
  ASSERT_EQ(::stat((dir / "tool").c_str(), &tool), 0);

  TargetProcess target(child);
  UniqueFd cwd = target.OpenDirectory(AT_FDCWD);  // /proc
  ASSERT_TRUE(cwd.valid());
  for (const std::string& path : std::vector<std::string>{"/proc/self/fd/37", "/proc/thread-self/fd/37", "/dev/fd/37", "/dev/stdin",
                           "/proc/./self/fd/37", "/proc//self/../self/fd/37", "self/fd/37",
                           "./thread-self/fd/37", (dir / "fd-link").string()}) {
    auto file = target.Resolve(cwd.get(), path, 0);
    ASSERT_TRUE(file) << path;
    EXPECT_EQ(file->st.st_ino, tool.st_ino) << path << " -> " << file->path;
    EXPECT_EQ(file->path, (dir / "tool").string()) << path;
  }
  EXPECT_FALSE(target.Resolve(cwd.get(), (dir / "fd-link").string(), AT_SYMLINK_NOFOLLOW));

  (void)!::write(done[1], &c, 1);
  ::waitpid(child, nullptr, 0);
  ::close(37);
  ::close(mine);
  for (int fd : {ready[0], ready[1], done[0], done[1]}) ::close(fd);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace corral::shim
