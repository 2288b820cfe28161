// Identity by (device, inode), then by size and content. Hashing waits until
// an exec'd file has a listed program's size, so starting a box reads no
// large binaries, and ordinary execs (other sizes) read nothing at all.
#include "images/shim/program_identity.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corral::shim {
namespace {

bool SameVersion(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

// FNV-1a over 8-byte words: not a defence against crafted collisions (the
// exec check is not a wall: docs/exec-check.md), fast enough to read a
// 100 MB binary in a few tens of milliseconds.
std::optional<std::uint64_t> ContentHash(int fd) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  std::vector<char> chunk(1 << 18);
  char* buffer = chunk.data();
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer, chunk.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return hash;
    std::size_t at = 0;
    for (; at + 8 <= static_cast<std::size_t>(n); at += 8) {
      std::uint64_t word;
      std::memcpy(&word, buffer + at, 8);
      hash = (hash ^ word) * kPrime;
    }
    for (; at < static_cast<std::size_t>(n); ++at) {
      hash = (hash ^ static_cast<unsigned char>(buffer[at])) * kPrime;
    }
    offset += n;
  }
}

ProgramIdentities ProgramIdentities::Record(const std::vector<std::string>& names,
                                            std::string_view dirs) {
  ProgramIdentities identities;
  for (const std::string& name : names) {
    std::string_view left = dirs;
    while (true) {
      std::string_view dir = left.substr(0, left.find(':'));
      std::string path = std::string(dir.empty() ? "." : dir) + "/" + name;
      struct stat st {};
      if (!dir.empty() && dir[0] == '/' && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        identities.known_.push_back({name, path, st, std::nullopt});
      }
      if (dir.size() == left.size()) break;
      left.remove_prefix(dir.size() + 1);
    }
  }
  return identities;
}

std::vector<std::pair<std::string, std::string>> ProgramIdentities::Paths() const {
  std::vector<std::pair<std::string, std::string>> paths;
  for (const Known& known : known_) paths.emplace_back(known.name, known.path);
  return paths;
}

std::optional<std::uint64_t> ProgramIdentities::KnownHash(Known& known) {
  if (known.hash) return known.hash;
  UniqueFd fd(::open(known.path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat now {};
  // Hashed only while it is still the file recorded at start.
  if (!fd.valid() || ::fstat(fd.get(), &now) != 0 || !SameVersion(now, known.st)) {
    return std::nullopt;
  }
  known.hash = ContentHash(fd.get());
  return known.hash;
}

std::string ProgramIdentities::Identify(const struct stat& st,
                                        const std::function<UniqueFd()>& open) {
  if (!S_ISREG(st.st_mode)) return "";
  for (const Known& known : known_) {
    if (known.st.st_dev == st.st_dev && known.st.st_ino == st.st_ino) return known.name;
  }
  if (const std::string* known = answers_.Find(st)) return *known;
  std::string name;
  std::optional<std::uint64_t> hash;
  for (Known& known : known_) {
    if (known.st.st_size != st.st_size || st.st_size == 0) continue;
    if (!hash) {
      UniqueFd readable = open();
      hash = readable.valid() ? ContentHash(readable.get()) : std::nullopt;
      if (!hash) break;  // unreadable (execute-only): known by name alone
    }
    auto known_hash = KnownHash(known);
    if (known_hash && *known_hash == *hash) {
      name = known.name;
      break;
    }
  }
  answers_.Keep(st, name);
  return name;
}

}  // namespace corral::shim
