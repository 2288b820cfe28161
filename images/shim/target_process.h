// Reading the process whose exec was notified: the path and arguments from
// its memory, and the files they name as the kernel will find them (from its
// working directory or a descriptor it holds). Private to the shim.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace corral::shim {

// A file an exec names, resolved as the kernel will find it.
struct ResolvedFile {
  struct stat st {};
  std::string path;          // symbolic links followed; as given when there was none
  int directory = AT_FDCWD;  // what a relative `path` starts from (borrowed)
  UniqueFd fd;               // O_PATH, when a link was followed or for fexecve

  // The file, open for reading (to compare its content); invalid when it cannot be.
  UniqueFd OpenForReading() const;
};

// Pages read are kept: one TargetProcess per notification.
class TargetProcess {
 public:
  // Opens /proc/PID/mem; not valid() (errno set) when it cannot be read
  // (another user, or a process that made itself undumpable).
  explicit TargetProcess(pid_t pid);
  bool valid() const { return mem_.valid(); }

  // The NUL-terminated string at `address`, at most `max` bytes; nullopt when
  // unreadable or longer.
  std::optional<std::string> ReadString(std::uint64_t address, std::size_t max);

  // The argument vector at `address` (pointers of `pointer_size` bytes up to
  // a null one). Past `max_bytes` of text the rest is left out and
  // `truncated` set. nullopt when unreadable.
  std::optional<std::vector<std::string>> ReadArgv(std::uint64_t address, unsigned pointer_size,
                                                   std::size_t max_bytes, bool& truncated);

  // The directory a relative path starts from: its working directory for
  // AT_FDCWD, else its descriptor `dirfd`.
  UniqueFd OpenDirectory(int dirfd) const;

  // `path` as the process would open it from `directory` (/proc/self meaning
  // the process, not the shim); execveat's AT_EMPTY_PATH names `directory`
  // itself. nullopt when there is no such file. One stat when the last
  // component is not a link, as for most execs.
  std::optional<ResolvedFile> Resolve(int directory, const std::string& path, int flags) const;

  // Its working directory as a path ("" when it cannot be read).
  std::string WorkingDirectory() const;

  pid_t pid() const { return pid_; }

 private:
  const char* Page(std::uint64_t page);                           // nullptr when unmapped
  bool Read(std::uint64_t address, void* out, std::size_t size);  // across pages

  static constexpr std::size_t kPageSize = 4096;
  static constexpr std::size_t kCachedPages = 4;
  struct CachedPage {
    std::uint64_t page = ~std::uint64_t{0};
    std::array<char, kPageSize> bytes;
  };

  pid_t pid_;
  UniqueFd mem_;
  std::array<CachedPage, kCachedPages> pages_;
};

}  // namespace corral::shim
