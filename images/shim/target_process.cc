// The process's memory is read a page at a time through /proc/PID/mem, so a
// string that ends just before an unmapped page is still read whole; its
// files are opened through /proc/PID/root, /proc/PID/cwd and /proc/PID/fd.
#include "images/shim/target_process.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

namespace corral::shim {
namespace {

constexpr std::size_t kMaxArgString = 128 * 1024;  // MAX_ARG_STRLEN: the kernel refuses longer
constexpr std::size_t kMaxArgs = 1 << 20;

std::string ReadLink(const std::string& path) {
  char target[4096];
  ssize_t n = ::readlink(path.c_str(), target, sizeof target);
  return n > 0 && static_cast<std::size_t>(n) < sizeof target ? std::string(target, n) : "";
}

}  // namespace

TargetProcess::TargetProcess(pid_t pid)
    : pid_(pid),
      mem_(::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC)) {}

const char* TargetProcess::Page(std::uint64_t page) {
  CachedPage& slot = pages_[page % kCachedPages];
  if (slot.page == page) return slot.bytes.data();
  off_t offset = static_cast<off_t>(page * kPageSize);
  for (std::size_t done = 0; done < kPageSize;) {
    ssize_t n = ::pread(mem_.get(), slot.bytes.data() + done, kPageSize - done,
                        offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      slot.page = ~std::uint64_t{0};
      return nullptr;
    }
    done += static_cast<std::size_t>(n);
  }
  slot.page = page;
  return slot.bytes.data();
}

bool TargetProcess::Read(std::uint64_t address, void* out, std::size_t size) {
  auto* bytes = static_cast<char*>(out);
  while (size > 0) {
    const char* page = Page(address / kPageSize);
    if (!page) return false;
    std::size_t at = address % kPageSize, n = std::min(size, kPageSize - at);
    std::memcpy(bytes, page + at, n);
    bytes += n;
    address += n;
    size -= n;
  }
  return true;
}

std::optional<std::string> TargetProcess::ReadString(std::uint64_t address, std::size_t max) {
  std::string text;
  while (text.size() <= max) {
    const char* page = Page(address / kPageSize);
    if (!page) return std::nullopt;
    std::size_t at = address % kPageSize;
    const char* start = page + at;
    const void* nul = std::memchr(start, '\0', kPageSize - at);
    if (nul) {
      text.append(start, static_cast<const char*>(nul) - start);
      return text.size() <= max ? std::optional(std::move(text)) : std::nullopt;
    }
    text.append(start, kPageSize - at);
    address += kPageSize - at;
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> TargetProcess::ReadArgv(std::uint64_t address,
                                                                unsigned pointer_size,
                                                                std::size_t max_bytes,
                                                                bool& truncated) {
  std::vector<std::string> argv;
  truncated = false;
  if (address == 0) return argv;  // execve(path, NULL, ...): Linux runs it with no arguments
  std::size_t bytes = 0;
  for (std::uint64_t at = address; argv.size() < kMaxArgs; at += pointer_size) {
    std::uint64_t pointer = 0;  // little-endian: a 4-byte pointer fills the low half
    if (!Read(at, &pointer, pointer_size)) return std::nullopt;
    if (pointer == 0) return argv;
    auto arg = ReadString(pointer, kMaxArgString);
    if (!arg) return std::nullopt;
    bytes += arg->size() + 1;
    if (bytes > max_bytes) break;
    argv.push_back(std::move(*arg));
  }
  truncated = true;
  return argv;
}

UniqueFd TargetProcess::OpenDirectory(int dirfd) const {
  std::string proc = "/proc/" + std::to_string(pid_);
  std::string path = dirfd == AT_FDCWD ? proc + "/cwd" : proc + "/fd/" + std::to_string(dirfd);
  return UniqueFd(::open(path.c_str(), O_PATH | O_CLOEXEC));
}

namespace {

constexpr int kMaxLinks = 40;  // the kernel's limit (ELOOP past it)

bool OnProc(int fd) {
  struct statfs fs {};
  return ::fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// `path`'s components, in order, onto the front of `parts`.
void PushComponents(std::deque<std::string>& parts, std::string_view path) {
  std::vector<std::string> split;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (!part.empty() && part != ".") split.emplace_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  parts.insert(parts.begin(), split.begin(), split.end());
}

// The kernel's own walk, in one call, where it gives the same answer as the
// walk below: from the process's root (absolute) or beneath `directory`
// (relative), through no /proc link. -1 with errno ELOOP or EXDEV (a /proc
// link or "self" could be on the way: /proc's links read here name this
// process), ENOSYS: walk by hand.
int OpenFast(int root, int directory, const std::string& path, int flags) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC | ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0);
  bool absolute = path[0] == '/';
  how.resolve = RESOLVE_NO_MAGICLINKS | (absolute ? RESOLVE_IN_ROOT : RESOLVE_BENEATH);
  // "self" is an ordinary link that /proc makes per reader: never read here.
  if (path.find("self") != std::string::npos) {
    errno = ELOOP;
    return -1;
  }
  return static_cast<int>(::syscall(SYS_openat2, absolute ? root : directory, path.c_str(), &how, sizeof how));
}

}  // namespace

int TargetProcess::Root() {
  if (!root_.valid()) {
    root_.Reset(::open(("/proc/" + std::to_string(pid_) + "/root").c_str(),
                       O_PATH | O_DIRECTORY | O_CLOEXEC));
  }
  return root_.get();
}

std::optional<ResolvedFile> TargetProcess::Resolve(int directory, const std::string& path,
                                                   int flags) {
  ResolvedFile file;
  if (path.empty()) {
    if (!(flags & AT_EMPTY_PATH)) return std::nullopt;  // ENOENT
    file.fd.Reset(::fcntl(directory, F_DUPFD_CLOEXEC, 0));  // fexecve: the descriptor is the file
  } else {
    int root = path[0] == '/' ? Root() : -1;
    if (path[0] == '/' && root < 0) return std::nullopt;
    // The last component not followed first: most execs name the file
    // itself, whose path is then the one given (no readlink to ask).
    file.fd.Reset(OpenFast(root, directory, path, flags | AT_SYMLINK_NOFOLLOW));
    if (file.fd.valid()) {
      if (::fstat(file.fd.get(), &file.st) != 0) return std::nullopt;
      if (!S_ISLNK(file.st.st_mode)) {
        if (path.back() == '/' && !S_ISDIR(file.st.st_mode)) return std::nullopt;
        file.path = path;
        return file;
      }
      if (flags & AT_SYMLINK_NOFOLLOW) return std::nullopt;  // the kernel: ELOOP
      file.fd.Reset(OpenFast(root, directory, path, flags));
      if (file.fd.valid()) {
        if (::fstat(file.fd.get(), &file.st) != 0 || S_ISLNK(file.st.st_mode)) return std::nullopt;  // ELOOP
        if (path.back() == '/' && !S_ISDIR(file.st.st_mode)) return std::nullopt;
        file.path = file.RealPath();
        return file;
      }
    }
    if (errno != ELOOP && errno != EXDEV && errno != ENOSYS && errno != EPERM) return std::nullopt;
    if (root < 0) root = Root();
    struct stat root_st {};
    if (root < 0 || ::fstat(root, &root_st) != 0) return std::nullopt;
    UniqueFd at(::fcntl(path[0] == '/' ? root : directory, F_DUPFD_CLOEXEC, 0));
    std::deque<std::string> parts;
    PushComponents(parts, path);
    // "name/" must be a directory (the exec then fails: nothing runs).
    bool want_directory = path.back() == '/';
    int links = 0;
    while (at.valid() && !parts.empty()) {
      std::string part = std::move(parts.front());
      parts.pop_front();
      bool last = parts.empty();
      if (part == "..") {
        struct stat here {};
        if (::fstat(at.get(), &here) != 0) return std::nullopt;
        if (!SameFile(here, root_st)) at.Reset(::openat(at.get(), "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (last) file.fd.Reset(::fcntl(at.get(), F_DUPFD_CLOEXEC, 0));
        continue;
      }
      if ((part == "self" || part == "thread-self") && OnProc(at.get())) {
        // Read here, /proc's own links would name this process.
        std::string pid = std::to_string(pid_);
        PushComponents(parts, part == "self" ? pid : pid + "/task/" + pid);
        continue;
      }
      UniqueFd next(::openat(at.get(), part.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
      struct stat st {};
      if (!next.valid() || ::fstat(next.get(), &st) != 0) return std::nullopt;
      if (S_ISLNK(st.st_mode)) {
        if (last && (flags & AT_SYMLINK_NOFOLLOW)) return std::nullopt;  // the kernel: ELOOP
        if (++links > kMaxLinks) return std::nullopt;
        char target[4096];
        ssize_t n = ::readlinkat(at.get(), part.c_str(), target, sizeof target);
        if (n <= 0 || static_cast<std::size_t>(n) >= sizeof target) return std::nullopt;
        std::string_view text(target, static_cast<std::size_t>(n));
        if (text[0] == '/' && OnProc(at.get())) {
          // A link of /proc/PID: the kernel goes to the file itself (a
          // descriptor's, a deleted or memfd file too), from this process.
          next.Reset(::openat(at.get(), part.c_str(), O_PATH | O_CLOEXEC));
          if (!next.valid()) return std::nullopt;
        } else {
          PushComponents(parts, text);
          if (text[0] == '/') at.Reset(::fcntl(root, F_DUPFD_CLOEXEC, 0));
          if (parts.empty()) file.fd.Reset(::fcntl(at.get(), F_DUPFD_CLOEXEC, 0));  // "/"
          continue;
        }
      }
      if (last) file.fd = std::move(next);
      else at = std::move(next);
    }
    if (!at.valid()) return std::nullopt;
    if (want_directory && file.fd.valid() && ::fstat(file.fd.get(), &file.st) == 0 &&
        !S_ISDIR(file.st.st_mode)) {
      return std::nullopt;
    }
  }
  if (!file.fd.valid() || ::fstat(file.fd.get(), &file.st) != 0) return std::nullopt;
  file.path = file.RealPath();
  return file;
}

std::string ResolvedFile::RealPath() const { return ReadLink("/proc/self/fd/" + std::to_string(fd.get())); }

UniqueFd ResolvedFile::OpenForReading() const {
  // An O_PATH descriptor cannot be read: open the file it names.
  return UniqueFd(::open(("/proc/self/fd/" + std::to_string(fd.get())).c_str(), O_RDONLY | O_CLOEXEC));
}

std::string TargetProcess::WorkingDirectory() const {
  return ReadLink("/proc/" + std::to_string(pid_) + "/cwd");
}

}  // namespace corral::shim
