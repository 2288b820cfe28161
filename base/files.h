// Reading a whole file, telling a missing file from one that is there but
// cannot be read, replacing a file whole, and opening a file under an
// exclusive lock.
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/result.h"
#include "base/unique_fd.h"

namespace corral {

// All that is left to read from `fd`. One read for a regular file: its size
// sizes the buffer (a session reads the 3.4 MB shim, and 8 KiB reads with
// regrowing copies cost it 100 ms on a busy machine).
inline Result<std::string> ReadToEnd(int fd) {
  struct stat st {};
  bool sized = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  std::string bytes(sized ? static_cast<std::size_t>(st.st_size) + 1 : 4096, '\0');  // +1: the end
  std::size_t have = 0;
  for (;;) {
    if (have == bytes.size()) bytes.resize(bytes.size() * 2);
    ssize_t n = ::read(fd, bytes.data() + have, bytes.size() - have);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::FromErrno("read");
    have += static_cast<std::size_t>(n);
  }
  bytes.resize(have);
  return bytes;
}

// All of the file at `path`, or "cannot read PATH: why" with the errno as
// the error's code: IsMissing when there is no such file; any other code
// when it is there but cannot be read (a folder, no permission, I/O).
inline Result<std::string> ReadWholeFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Error::FromErrno("cannot read " + path);
  auto bytes = ReadToEnd(fd.get());
  if (!bytes) return Error::FromErrno("cannot read " + path, bytes.error().code);
  return bytes;
}

// True when a ReadWholeFile error says there was no file: callers to whom a
// missing file means "empty" or "the default" test this, and report the rest.
inline bool IsMissing(const Error& error) { return error.code == ENOENT; }

// `path` replaced by `text` whole: written beside it as PATH.tmp (mode 0600,
// never through a symlink), synced to disk, then renamed over it, so a reader
// (or corral after a crash) finds the old file or the new one, never part.
inline Result<void> ReplaceFile(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid() || !WriteAll(fd.get(), text.data(), text.size()) || ::fsync(fd.get()) != 0) {
    return Error::FromErrno("cannot write " + temp);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) return Error::FromErrno("cannot replace " + path);
  return Ok();
}

// `path` opened read-write (made with mode 0600 when missing; `flags` are
// added to O_RDWR | O_CREAT | O_CLOEXEC) under an exclusive flock, waited
// for. The lock lasts as long as the descriptor.
inline Result<UniqueFd> OpenLocked(const std::string& path, int flags = 0) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | flags, 0600));
  if (!fd.valid()) return Error::FromErrno("cannot open " + path);
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return Error::FromErrno("cannot lock " + path);
  }
  return fd;
}

}  // namespace corral
