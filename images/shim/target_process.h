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
  // Its path: as the exec named it when that names the file itself, else
  // (a symbolic link, a descriptor) as this process sees it, links followed.
  // Its last component is the file's own name either way.
  std::string path;
  UniqueFd fd;  // O_PATH

  // The file, open for reading (to compare its content); invalid when it cannot be.
  UniqueFd OpenForReading() const;
  // Where it is, every link followed, as this process sees it.
  std::string RealPath() const;
};

// Pages read are kept: one TargetProcess per notification. Its memory is
// read through /proc/PID/mem, opened once: the descriptor holds that
// process's memory even if the pid is reused. (process_vm_readv would save
// the open, but the box's seccomp profile refuses it with the ptrace family.)
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

  // `path` as the process's exec would find it: an absolute path from its
  // root, a relative one from `directory` (from OpenDirectory), each
  // component looked up here and each symbolic link followed here, so
  // /proc/self, /dev/fd/N, /dev/stdin and links to them mean the process,
  // not the shim; the links of /proc/PID (fd/N, exe, cwd, root) are followed
  // by the kernel, which knows what they name. execveat's AT_EMPTY_PATH
  // names `directory` itself. nullopt when there is no such file.
  std::optional<ResolvedFile> Resolve(int directory, const std::string& path, int flags);

  // Its working directory as a path ("" when it cannot be read).
  std::string WorkingDirectory() const;

  pid_t pid() const { return pid_; }

 private:
  const char* Page(std::uint64_t page);                           // nullptr when unreadable
  bool Read(std::uint64_t address, void* out, std::size_t size);  // across pages
  int Root();  // its root directory, opened once; -1 when it cannot be

  static constexpr std::size_t kPageSize = 4096;
  static constexpr std::size_t kCachedPages = 4;
  struct CachedPage {
    std::uint64_t page = ~std::uint64_t{0};
    std::array<char, kPageSize> bytes;
  };

  pid_t pid_;
  UniqueFd mem_;
  UniqueFd root_;
  std::array<CachedPage, kCachedPages> pages_;
};

}  // namespace corral::shim
