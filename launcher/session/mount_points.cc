// The box's mount points inside the host folders it is given (node_modules/,
// .venv/, .git/hooks/ in the project): made by corral as the user before the
// box, and those it made removed after the box when still empty. The OCI
// runtime would make a missing one as the box's root (a subordinate uid
// under rootless Podman, root under rootful Docker): a folder the user could
// not write into.
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "base/paths.h"
#include "base/log.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// Another session holds its holder's LOCK_EX only while it removes what it
// made; longer means something else holds it (a box can reach the project).
constexpr auto kHolderWait = std::chrono::seconds(10);

// The mount whose target holds `target` most closely (not `target` itself).
const Mount* Holder(const std::vector<Mount>& mounts, const std::string& target) {
  const Mount* holder = nullptr;
  for (const Mount& m : mounts) {
    if (m.target == target || !IsWithin(target, m.target)) continue;
    if (!holder || m.target.size() > holder->target.size()) holder = &m;
  }
  return holder;
}

UniqueFd OpenFolder(const std::string& path) {
  return UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

int Flock(int fd, int operation) {
  int rc;
  do {
    rc = ::flock(fd, operation);
  } while (rc != 0 && errno == EINTR);
  return rc;
}

std::size_t Depth(const std::string& path) {
  return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/'));
}

}  // namespace

PathKind KindOnHost(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return PathKind::kMissing;
  return S_ISDIR(st.st_mode) ? PathKind::kFolder : PathKind::kFile;
}

std::vector<HostMountPoint> MountPointsOnHost(
    const std::vector<Mount>& mounts, const std::function<PathKind(const std::string&)>& kind_of) {
  std::vector<HostMountPoint> points;
  for (const Mount& m : mounts) {
    const Mount* holder = Holder(mounts, m.target);
    // Inside a volume or a tmpfs, the engine makes it where no user looks.
    if (!holder || holder->kind != MountKind::kBind) continue;
    if (kind_of(holder->source) != PathKind::kFolder) continue;
    PathKind kind = m.kind == MountKind::kBind ? kind_of(m.source) : PathKind::kFolder;
    if (kind == PathKind::kMissing) continue;  // the engine refuses the box anyway
    points.push_back({holder->source + m.target.substr(holder->target.size()), holder->source,
                      kind == PathKind::kFile});
  }
  return points;
}

Result<void> MountPoints::Hold(const std::string& holder) {
  if (held_.count(holder)) return Ok();
  UniqueFd fd = OpenFolder(holder);
  if (!fd.valid()) return Error::FromErrno("cannot open " + holder);
  auto deadline = std::chrono::steady_clock::now() + kHolderWait;
  while (Flock(fd.get(), LOCK_SH | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      // No locks on this file system: no session can take LOCK_EX either,
      // so none removes anything there.
      log::debug("no lock on " + holder + ": " + std::strerror(errno));
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Error(holder +
                   " stays locked (flock) by another program: corral cannot make "
                   "sure that another session's end leaves the box's mount points in it. "
                   "Look for what holds it (lslocks), end it, and start again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  held_.emplace(holder, std::move(fd));
  return Ok();
}

Result<void> MountPoints::MakeMissing(const HostMountPoint& point) {
  // The nearest thing that is there must be a folder, not a link to one:
  // what is made below it stays where the box sees it.
  std::vector<std::string> missing;
  std::string at = point.path;
  struct stat st {};
  while (::lstat(at.c_str(), &st) != 0) {
    if (errno != ENOENT) return Error::FromErrno("cannot look at " + at);
    missing.push_back(at);
    at = at.substr(0, at.rfind('/'));
    if (at.empty()) at = "/";
  }
  if (missing.empty()) return Ok();
  if (!S_ISDIR(st.st_mode)) {
    return Error(at + " is not a folder (a link or a file): corral makes nothing below it");
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    bool file = point.file && *it == point.path;
    // Modes as the user's umask makes them, as mkdir and touch would.
    int fd = file ? ::open(it->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)
                  : ::mkdir(it->c_str(), 0777);
    if (fd < 0 && errno == EEXIST) continue;  // another session's, made just now
    if (fd < 0) return Error::FromErrno("cannot create " + *it);
    if (file) ::close(fd);
    made_.push_back({*it, point.holder, file});
  }
  return Ok();
}

Result<void> MountPoints::Make(const HostMountPoint& point) {
  // Held first: a session that is ending removes what it made only when no
  // other session holds the folder.
  if (auto held = Hold(point.holder); !held) return held;
  return MakeMissing(point);
}

void MountPoints::RemoveMade() {
  held_.clear();  // this session's own LOCK_SH would refuse its LOCK_EX
  RemoveIfEmpty(made_);
  made_.clear();
}

void RemoveIfEmpty(const std::vector<HostMountPoint>& made) {
  std::map<std::string, std::vector<HostMountPoint>> by_holder;
  for (const HostMountPoint& point : made) by_holder[point.holder].push_back(point);
  for (auto& [holder, points] : by_holder) {
    UniqueFd fd = OpenFolder(holder);
    // Held by another session (its box has these mounted) or a box: kept.
    if (!fd.valid() || Flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;
    std::stable_sort(points.begin(), points.end(),
                     [](const auto& a, const auto& b) { return Depth(a.path) > Depth(b.path); });
    // Only what corral made, as it made it: an empty folder or empty file.
    for (const HostMountPoint& point : points) {
      struct stat st {};
      if (::lstat(point.path.c_str(), &st) != 0) continue;
      if (!point.file && S_ISDIR(st.st_mode)) {
        ::rmdir(point.path.c_str());  // ENOTEMPTY: it has content, which is kept
      } else if (point.file && S_ISREG(st.st_mode) && st.st_size == 0) {
        ::unlink(point.path.c_str());
      }
    }
  }
}

Result<void> MakeMountPoints(const SessionPlan& plan, MountPoints& points) {
  for (const HostMountPoint& point : MountPointsOnHost(plan.mounts, KindOnHost)) {
    auto made = points.Make(point);
    if (made) continue;
    if (!points.Holds(point.holder)) {  // unguarded, a box could lose its mounts
      return made.error().Context("the box's mount points in " + point.holder);
    }
    log::warn(made.error().message + "; the engine will make " + point.path +
              " as the box's root, and you may not be able to write into it afterwards");
  }
  return Ok();
}

}  // namespace corral::launcher
