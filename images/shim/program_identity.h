// Programs known by what their file is, not only by its name: a hard link, a
// symbolic link or a byte-identical copy of a listed program under another
// name is still that program. Private to the shim.
#pragma once

#include <sys/stat.h>

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

class ProgramIdentities {
 public:
  // Records each of `names` found in the `:`-separated `dirs` (as PATH is
  // searched, every match, symbolic links followed): device, inode and size
  // now; the content's hash the first time a file of that size is asked about.
  static ProgramIdentities Record(const std::vector<std::string>& names, std::string_view dirs);

  // The recorded name the file described by `st` is, or "". `open` opens it
  // for reading, called only when its content must be compared. Remembers
  // the answer for each version of a file (its size, modification and change
  // times), once it has been unchanged for two seconds; use from one thread.
  std::string Identify(const struct stat& st, const std::function<UniqueFd()>& open);

  bool empty() const { return known_.empty(); }

  // Each recorded name with the path it was found at.
  std::vector<std::pair<std::string, std::string>> Paths() const;

  // How long a file must be unchanged before its answer is kept (tests).
  void set_settle_seconds(long seconds) { settle_seconds_ = seconds; }

  // What a file was found to be, and the version of it that was.
  struct Answer {
    off_t size;
    struct timespec mtime, ctime;
    std::string name;
  };

 private:
  struct Known {
    std::string name;
    std::string path;
    struct stat st {};
    std::optional<std::uint64_t> hash;  // computed when first needed
  };

  std::optional<std::uint64_t> KnownHash(Known& known);

  std::vector<Known> known_;
  std::map<std::pair<dev_t, ino_t>, Answer> answers_;
  long settle_seconds_ = 2;
};

// A hash of everything `fd` holds, read from its start; nullopt on a read error.
std::optional<std::uint64_t> ContentHash(int fd);

}  // namespace corral::shim
