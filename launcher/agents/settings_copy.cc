// The box's own settings folders: filled from the user's before a boxed
// session (settings without what runs programs, logins, instructions), and
// after it the data the recipe lists goes back (conversation history).
//
// The box writes its folders between sessions, so nothing under them is
// trusted: every path there is walked one name at a time without following
// a link (a link the box planted is removed, never written through). The
// user's folders are only read, except by GiveBackAgentData, which writes
// regular files only, each whole and renamed into place.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <optional>

#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kLargestFile = 64u << 20;  // a settings or history file larger is skipped
constexpr int kDeepest = 16;                     // folder levels walked

std::optional<std::string> ReadHostFile(const std::string& path, std::string& why) {
  auto text = ReadWholeFile(path);
  if (!text) {
    why = "cannot be read";
    return std::nullopt;
  }
  if (text->size() > kLargestFile) {
    why = "is larger than 64 MiB";
    return std::nullopt;
  }
  return std::move(*text);
}

// The folder `dir` under the already open `parent`, made when missing; a
// link or a file there (the box's) is removed first.
Result<UniqueFd> OpenOrMakeDir(int parent, const std::string& name, const std::string& shown) {
  for (int attempt = 0; attempt < 3; ++attempt) {  // removed, made, opened
    int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return UniqueFd(fd);
    if (errno == ENOENT) {
      if (::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) {
        return Error::FromErrno("cannot make " + shown);
      }
      continue;
    }
    if (errno != ELOOP && errno != ENOTDIR) return Error::FromErrno("cannot open " + shown);
    if (::unlinkat(parent, name.c_str(), 0) != 0) return Error::FromErrno("cannot replace " + shown);
  }
  return Error("cannot make " + shown + ": it keeps changing");
}

// Opens the folder `path` (under corral's state folder) name by name from
// `/`, making what is missing, following no link below `base`.
Result<UniqueFd> OpenBoxDir(const std::string& base, const std::string& path) {
  std::error_code ec;
  fs::create_directories(base, ec);
  if (ec) return Error("cannot make " + base + ": " + ec.message());
  int root = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return Error::FromErrno("cannot open " + base);
  UniqueFd dir(root);
  std::string rest = path.substr(base.size());
  std::size_t start = 0;
  while (start < rest.size()) {
    std::size_t end = rest.find('/', start);
    if (end == std::string::npos) end = rest.size();
    std::string name = rest.substr(start, end - start);
    start = end + 1;
    if (name.empty() || name == ".") continue;
    if (name == "..") return Error(path + ": a box folder's path may not go up");
    auto next = OpenOrMakeDir(dir.get(), name, path);
    if (!next) return next.error();
    dir = std::move(*next);
  }
  return dir;
}

// Writes `bytes` as `name` in the open folder: a new file renamed over
// whatever is there (a link the box left is replaced, not followed).
Result<void> WriteIn(int dir, const std::string& name, const std::string& bytes, mode_t mode,
                     const std::string& shown) {
  std::string temporary = "." + name + ".corral-" + std::to_string(::getpid());
  int fd = ::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                    mode);
  if (fd < 0) return Error::FromErrno("cannot write " + shown);
  UniqueFd file(fd);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::unlinkat(dir, temporary.c_str(), 0);
      return Error::FromErrno("cannot write " + shown);
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, mode);
  if (::renameat(dir, temporary.c_str(), dir, name.c_str()) != 0) {
    ::unlinkat(dir, temporary.c_str(), 0);
    return Error::FromErrno("cannot write " + shown);
  }
  return Ok();
}

std::string Parent(const std::string& path) { return path.substr(0, path.rfind('/')); }
std::string Name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

Result<void> WriteBoxFile(const std::string& base, const std::string& path,
                          const std::string& bytes, mode_t mode) {
  auto dir = OpenBoxDir(base, Parent(path));
  if (!dir) return dir.error();
  return WriteIn(dir->get(), Name(path), bytes, mode, path);
}

void RemoveBoxFile(const std::string& base, const std::string& path) {
  auto dir = OpenBoxDir(base, Parent(path));
  if (dir) ::unlinkat(dir->get(), Name(path).c_str(), 0);
}

bool IsToml(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".toml") == 0;
}

std::string List(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : ", ") + word;
  return out;
}

// A settings file: parsed whole, its program keys left out.
void SeedSettings(const std::string& base, const SeedStep& step,
                  std::vector<std::string>& dropped, std::vector<std::string>& lines) {
  struct stat st {};
  if (::stat(step.from.c_str(), &st) != 0) return;  // none: the box keeps its own
  std::string why;
  auto text = ReadHostFile(step.from, why);
  Result<WithoutPrograms> kept = text ? LeaveOutProgramKeys(*text, IsToml(step.from),
                                                            step.program_keys)
                                      : Result<WithoutPrograms>(Error(why));
  if (!kept) {
    RemoveBoxFile(base, step.to);
    lines.push_back(step.shown + " not copied into the box: " + kept.error().message +
                    "; the box has none");
    return;
  }
  for (const std::string& key : kept->dropped) dropped.push_back(key);
  if (auto ok = WriteBoxFile(base, step.to, kept->text, 0600); !ok) {
    lines.push_back(step.shown + " not copied into the box: " + ok.error().message);
  }
}

// A file or a folder of the user's instructions: regular files only.
void SeedText(const std::string& base, const SeedStep& step, std::vector<std::string>& lines) {
  std::error_code ec;
  fs::file_status status = fs::status(step.from, ec);
  if (ec || !fs::exists(status)) return;
  std::vector<std::pair<std::string, std::string>> files;  // host, box
  if (fs::is_regular_file(status)) {
    files.emplace_back(step.from, step.to);
  } else if (fs::is_directory(status)) {
    fs::recursive_directory_iterator it(step.from, fs::directory_options::skip_permission_denied,
                                        ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it.depth() >= kDeepest) it.disable_recursion_pending();
      if (!it->is_regular_file(ec)) continue;
      std::string relative = it->path().string().substr(step.from.size());
      files.emplace_back(it->path().string(), step.to + relative);
    }
  }
  std::size_t failed = 0;
  for (const auto& [host, box] : files) {
    std::string why;
    auto bytes = ReadHostFile(host, why);
    if (!bytes || !WriteBoxFile(base, box, *bytes, 0644)) ++failed;
  }
  if (failed > 0) {
    lines.push_back(std::to_string(failed) + " of " + step.shown + "'s files not copied into the box");
  }
}

// flock on `path` while an object lives.
class FolderLock {
 public:
  static Result<FolderLock> Take(const std::string& path) {
    std::error_code ec;
    fs::create_directories(Parent(path), ec);
    auto file = OpenLocked(path, O_NOFOLLOW);
    if (!file) return file.error();
    return FolderLock(std::move(*file));
  }

 private:
  explicit FolderLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

// Each regular file under the box's folder `dir`, walked name by name
// without following links: `visit` gets the open folder it is in, its name,
// its path below `dir` and what lstat says of it.
using BoxFileVisit =
    std::function<void(int dir, const std::string& name, const std::string& path,
                       const struct stat& st)>;
void BoxFiles(int dir, const std::string& below, int depth, const BoxFileVisit& visit) {
  if (depth > kDeepest) return;
  int copy = ::dup(dir);
  if (copy < 0) return;
  DIR* listing = ::fdopendir(copy);
  if (!listing) {
    ::close(copy);
    return;
  }
  while (dirent* entry = ::readdir(listing)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    std::string path = below.empty() ? name : below + "/" + name;
    if (S_ISREG(st.st_mode)) {
      visit(dir, name, path, st);
    } else if (S_ISDIR(st.st_mode)) {
      int inner = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (inner < 0) continue;
      UniqueFd held(inner);
      BoxFiles(inner, path, depth + 1, visit);
    }
  }
  ::closedir(listing);
}

Result<std::string> ReadBoxFile(int dir, const std::string& name, const std::string& path,
                                const struct stat& listed) {
  int fd = ::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno("cannot read " + path);
  UniqueFd file(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != listed.st_ino) {
    return Error(path + " changed while it was read");
  }
  std::string bytes;
  char buffer[65536];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::FromErrno("cannot read " + path);
    if (n == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
    if (bytes.size() > kLargestFile) return Error(path + " is larger than 64 MiB");
  }
  return bytes;
}

}  // namespace

Result<std::vector<std::string>> SeedAgentFolders(const AgentSeed& seed) {
  std::vector<std::string> lines;
  if (!seed.copy) return lines;
  if (!seed.known) {
    lines.push_back(seed.agent + ": none of your settings or logins copied into the box (corral "
                    "does not know which of its settings run programs): log in in the box, or "
                    "pass its login variables");
    return lines;
  }
  auto lock = FolderLock::Take(seed.lock);
  if (!lock) return lock.error();
  std::vector<std::string> dropped;
  for (const SeedStep& step : seed.steps) {
    if (step.kind == SeedStep::kSettings) {
      SeedSettings(seed.base, step, dropped, lines);
    } else if (step.kind == SeedStep::kText) {
      SeedText(seed.base, step, lines);
    } else if (step.stood_in) {
      // The proxy holds its tokens: the box's copy has their stand-ins.
      if (!step.text) {
        RemoveBoxFile(seed.base, step.to);
        lines.push_back(step.shown + " (a login) not copied into the box: its tokens could not stand in");
      } else if (auto ok = WriteBoxFile(seed.base, step.to, *step.text, 0600); !ok) {
        lines.push_back(step.shown + " (a login) not copied into the box: " + ok.error().message);
      }
    } else {
      struct stat st {};
      if (::stat(step.from.c_str(), &st) != 0) continue;
      std::string why;
      auto bytes = ReadHostFile(step.from, why);
      if (!bytes) {
        lines.push_back(step.shown + " (a login) not copied into the box: it " + why);
      } else if (auto ok = WriteBoxFile(seed.base, step.to, *bytes, 0600); !ok) {
        lines.push_back(step.shown + " (a login) not copied into the box: " + ok.error().message);
      }
    }
  }
  std::string first = seed.agent + "'s settings: the box's own, copied from yours";
  lines.insert(lines.begin(),
               dropped.empty() ? first
                               : first + " without what runs programs (left out: " +
                                     List(dropped) + ")");
  return lines;
}

Result<std::size_t> GiveBackAgentData(const AgentSeed& seed) {
  if (!seed.copy || seed.back.empty()) return std::size_t{0};
  auto lock = FolderLock::Take(seed.lock);
  if (!lock) return lock.error();
  std::size_t given = 0;
  for (const SeedStep& step : seed.back) {
    // Reached name by name: the box may have left a link on the way.
    auto box = OpenBoxDir(seed.base, step.from);
    if (!box) continue;
    std::optional<Error> failed;
    BoxFiles(box->get(), "", 0, [&](int dir, const std::string& name, const std::string& path,
                                    const struct stat& st) {
      std::string host = step.to + "/" + path;
      struct stat mine {};
      if (failed || st.st_size > static_cast<off_t>(kLargestFile) ||
          (::stat(host.c_str(), &mine) == 0 &&
           (!S_ISREG(mine.st_mode) || mine.st_mtime >= st.st_mtime))) {
        return;
      }
      auto bytes = ReadBoxFile(dir, name, path, st);
      if (!bytes) return;
      std::error_code ec;
      fs::create_directories(Parent(host), ec);
      int parent = ec ? -1 : ::open(Parent(host).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (parent < 0) {
        failed = Error("cannot make " + Parent(host) + " for the box's " + step.shown);
        return;
      }
      UniqueFd held(parent);
      if (auto ok = WriteIn(parent, Name(host), *bytes, 0600, host); !ok) {
        failed = ok.error();
        return;
      }
      ++given;
    });
    if (failed) return *failed;
  }
  return given;
}

}  // namespace corral::launcher
