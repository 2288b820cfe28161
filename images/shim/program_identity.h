// Programs known by what their file is, not only by its name: a hard link, a
// symbolic link or a byte-identical copy of a listed program under another
// name is still that program. Private to the shim.
#pragma once

#include <sys/stat.h>
#include <time.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/unique_fd.h"

namespace corral::shim {

// What was found out about each version of a file: its device and inode,
// and its size, modification and change times. Every write sets the change
// time to now and a program cannot set it back (only the clock can), so
// those times name one version, given a clock tick between versions. A file
// changed within the last `settle_seconds` could change again with the same
// times: what was found about it is not kept. Use from one thread.
template <typename T>
class VersionMemo {
 public:
  const T* Find(const struct stat& st) const {
    auto it = entries_.find({st.st_dev, st.st_ino});
    return it != entries_.end() && SameTimes(it->second, st) ? &it->second.value : nullptr;
  }

  void Keep(const struct stat& st, T value) {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    if (settle_seconds_ >= 0 && st.st_ctim.tv_sec + settle_seconds_ >= now.tv_sec) return;
    if (entries_.size() >= kMaxEntries) entries_.clear();  // forgotten all at once
    entries_[{st.st_dev, st.st_ino}] = {st.st_size, st.st_mtim, st.st_ctim, std::move(value)};
  }

  // How long a file must be unchanged before it is remembered (tests; -1: at once).
  void set_settle_seconds(long seconds) { settle_seconds_ = seconds; }

 private:
  static constexpr std::size_t kMaxEntries = 4096;
  struct Entry {
    off_t size;
    struct timespec mtime, ctime;
    T value;
  };
  static bool SameTimes(const Entry& e, const struct stat& st) {
    return e.size == st.st_size && e.mtime.tv_sec == st.st_mtim.tv_sec &&
           e.mtime.tv_nsec == st.st_mtim.tv_nsec && e.ctime.tv_sec == st.st_ctim.tv_sec &&
           e.ctime.tv_nsec == st.st_ctim.tv_nsec;
  }
  std::map<std::pair<dev_t, ino_t>, Entry> entries_;
  long settle_seconds_ = 2;
};

class ProgramIdentities {
 public:
  // Records each of `names` found in the `:`-separated `dirs` (as PATH is
  // searched, every match, symbolic links followed): device, inode and size
  // now; the content's hash the first time a file of that size is asked about.
  static ProgramIdentities Record(const std::vector<std::string>& names, std::string_view dirs);

  // The recorded name the file described by `st` is, or "". `open` opens it
  // for reading, called only when its content must be compared. Remembers
  // the answer for each version of a file (VersionMemo); use from one thread.
  std::string Identify(const struct stat& st, const std::function<UniqueFd()>& open);

  bool empty() const { return known_.empty(); }

  // Each recorded name with the path it was found at.
  std::vector<std::pair<std::string, std::string>> Paths() const;

  // How long a file must be unchanged before its answer is kept (tests).
  void set_settle_seconds(long seconds) { answers_.set_settle_seconds(seconds); }

 private:
  struct Known {
    std::string name;
    std::string path;
    struct stat st {};
    std::optional<std::uint64_t> hash;  // computed when first needed
  };

  std::optional<std::uint64_t> KnownHash(Known& known);

  std::vector<Known> known_;
  VersionMemo<std::string> answers_;
};

// A hash of everything `fd` holds, read from its start; nullopt on a read error.
std::optional<std::uint64_t> ContentHash(int fd);

}  // namespace corral::shim
