// The box's changes brought home from the project volume: the volume's tree
// read through a copier, compared with the manifest and this machine
// (copy_back_plan.cc), written here without following any symlink, and only
// then the volume removed. Run again after a kill, it finishes the job: what
// was already written counts as "both made the same change".
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {
namespace {

// The folder that holds `path` (relative), each component opened without
// following a symlink; missing folders made when `make` is set. On error,
// errno says why (ELOOP: a symlink on the way).
UniqueFd OpenParent(const std::string& project_dir, const std::string& path, bool make,
                    std::string& leaf) {
  UniqueFd dir(::open(project_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  std::size_t start = 0;
  for (std::size_t slash = path.find('/'); dir.valid() && slash != std::string::npos;
       slash = path.find('/', start)) {
    std::string part = path.substr(start, slash - start);
    start = slash + 1;
    // Said apart first (open with O_NOFOLLOW|O_DIRECTORY gives ENOTDIR for
    // a symlink too); the open below refuses a symlink whatever happens between.
    struct stat st {};
    if (::fstatat(dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT || !make) return UniqueFd();
      if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST) return UniqueFd();
    } else if (S_ISLNK(st.st_mode)) {
      errno = ELOOP;
      return UniqueFd();
    } else if (!S_ISDIR(st.st_mode)) {
      errno = ENOTDIR;
      return UniqueFd();
    }
    dir = UniqueFd(::openat(dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  }
  leaf = path.substr(start);
  return dir;
}

HostEntry ReadOne(const std::string& project_dir, const std::string& path) {
  std::string leaf;
  UniqueFd dir = OpenParent(project_dir, path, /*make=*/false, leaf);
  if (!dir.valid()) {
    // A folder on the way that is gone, or is a file: nothing there (a write
    // will fail and say so). A symlink on the way: nothing may go there.
    return HostEntry::Of(errno == ENOENT || errno == ENOTDIR ? HostEntry::kAbsent : HostEntry::kBlocked);
  }
  struct stat st {};
  if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return HostEntry::Of(errno == ENOENT ? HostEntry::kAbsent : HostEntry::kBlocked);
  }
  HostEntry entry = HostEntry::Of(HostEntry::kPresent);
  entry.mode = st.st_mode & 07777;
  if (S_ISDIR(st.st_mode)) {
    entry.kind = TarEntry::kFolder;
  } else if (S_ISLNK(st.st_mode)) {
    entry.kind = TarEntry::kSymlink;
    std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlinkat(dir.get(), leaf.c_str(), target.data(), target.size());
    target.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    entry.hash = target;
    entry.mode = 0777;
  } else if (S_ISREG(st.st_mode)) {
    auto content = ReadNoFollow(dir.get(), leaf);
    if (!content) return HostEntry::Of(HostEntry::kBlocked);  // unreadable: never overwritten unseen
    entry.hash = ContentHash(*content);
  } else {
    entry.kind = TarEntry::kOther;
  }
  return entry;
}

std::string Why(const std::string& path, const char* what) {
  return path + ": " + what + " (" + std::strerror(errno) + ")";
}

// A file or link written beside `leaf` and renamed over it: a reader sees
// the old one or the new one, and a kill leaves at most the temporary file.
bool WriteOver(int dir, const std::string& leaf, const SyncAction& action) {
  std::string temp = "." + leaf + ".corral-tmp";
  ::unlinkat(dir, temp.c_str(), 0);
  if (action.kind == SyncAction::kWriteSymlink) {
    if (::symlinkat(action.content.c_str(), dir, temp.c_str()) != 0) return false;
  } else {
    UniqueFd fd(::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                         0600));
    if (!fd.valid()) return false;
    if (!WriteAll(fd.get(), action.content.data(), action.content.size()) ||
        ::fchmod(fd.get(), action.mode & 07777) != 0 || ::fsync(fd.get()) != 0) {
      int saved = errno;
      ::unlinkat(dir, temp.c_str(), 0);
      errno = saved;
      return false;
    }
  }
  if (::renameat(dir, temp.c_str(), dir, leaf.c_str()) != 0) {
    int saved = errno;
    ::unlinkat(dir, temp.c_str(), 0);
    errno = saved;
    return false;
  }
  return true;
}

void ApplyOne(const std::string& project_dir, const SyncAction& action, CopyBackReport& report) {
  bool writes = action.kind == SyncAction::kMakeFolder || action.kind == SyncAction::kWriteFile ||
                action.kind == SyncAction::kWriteSymlink;
  std::string leaf;
  UniqueFd dir = OpenParent(project_dir, action.path, writes, leaf);
  if (!dir.valid()) {
    if (!writes && errno == ENOENT) return;  // gone already
    report.not_copied.push_back(Why(action.path, "cannot open its folder"));
    return;
  }
  switch (action.kind) {
    case SyncAction::kRemove:
    case SyncAction::kRemoveFolder: {
      int flags = action.kind == SyncAction::kRemoveFolder ? AT_REMOVEDIR : 0;
      if (::unlinkat(dir.get(), leaf.c_str(), flags) != 0 && errno != ENOENT) {
        report.not_copied.push_back(Why(action.path, "cannot remove it"));
        return;
      }
      report.removed.push_back(action.path);
      return;
    }
    case SyncAction::kMakeFolder: {
      struct stat st {};
      if (::mkdirat(dir.get(), leaf.c_str(), 0700) != 0 &&
          !(errno == EEXIST && ::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode))) {
        report.not_copied.push_back(Why(action.path, "cannot make the folder"));
        return;
      }
      if (::fchmodat(dir.get(), leaf.c_str(), action.mode & 07777, 0) != 0) {
        report.not_copied.push_back(Why(action.path, "cannot set its mode"));
        return;
      }
      report.written.push_back(action.path + "/");
      return;
    }
    case SyncAction::kWriteFile:
    case SyncAction::kWriteSymlink:
      if (!WriteOver(dir.get(), leaf, action)) {
        report.not_copied.push_back(Why(action.path, "cannot write it"));
        return;
      }
      report.written.push_back(action.path);
      return;
    case SyncAction::kChmod: {
      struct stat st {};
      if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISLNK(st.st_mode) ||
          ::fchmodat(dir.get(), leaf.c_str(), action.mode & 07777, 0) != 0) {
        report.not_copied.push_back(Why(action.path, "cannot set its mode"));
        return;
      }
      report.written.push_back(action.path);
      return;
    }
  }
}

// An exclusive lock beside the manifest for the copy-back's whole length.
Result<UniqueFd> LockCopy(const std::string& manifest_path) {
  return OpenLocked(manifest_path + ".lock", O_NOFOLLOW);
}

Result<std::optional<CopyManifest>> LoadManifest(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) {
    if (IsMissing(text.error())) return std::optional<CopyManifest>();
    return text.error();
  }
  auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded()) return Error(path + " is not JSON");
  auto manifest = ManifestFromJson(json);
  if (!manifest) return manifest.error().Context(path);
  return std::optional<CopyManifest>(std::move(*manifest));
}

// The volume's tree as the box left it.
Result<std::string> ArchiveOfVolume(Engine& engine, const Layout& layout,
                                    const std::string& image) {
  // A copier naming a volume that is gone would get a new, empty one, and
  // the plan would read that as "the box deleted everything".
  auto exists = engine.VolumeCreatedAt(layout.project_volume);
  if (!exists) return exists.error();
  if (!*exists) return Error("the volume " + layout.project_volume + " is gone");
  // The copy-in's copier, when it is still there; else a new one (after
  // a kill, `corral stop` has only the volume).
  auto tar = engine.GetArchive(layout.copier, kCopierMount);
  if (!tar) {
    (void)engine.Remove(layout.copier);
    auto copier = engine.CreateContainer(ForEngine(CopierBody(layout, image), engine), layout.copier,
                                         "make the container that copies the project back");
    if (!copier) return copier.error();
    tar = engine.GetArchive(*copier, kCopierMount);
  }
  (void)engine.Remove(layout.copier);
  return tar;
}

// Review mode: the box's changes into the upper folder, and the list of
// what it removed, replaced whole (a run again after a kill writes the same).
Result<void> IntoUpper(const CopyManifest& manifest, const std::map<std::string, TarEntry>& box,
                       CopyBackReport& report) {
  UpperPlan plan = PlanIntoUpper(manifest, box);
  for (const SyncAction& action : plan.writes) ApplyOne(manifest.review.upper, action, report);
  std::string list;
  for (const std::string& path : plan.removed) list += path + '\0';
  if (auto ok = ReplaceFile(manifest.review.removed_list, list); !ok) return ok;
  report.removed = std::move(plan.removed);
  report.review = true;
  return Ok();
}

}  // namespace

std::optional<std::string> ReadNoFollow(int dir, const std::string& name) {
  UniqueFd fd(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  auto content = ReadToEnd(fd.get());
  if (!content) return std::nullopt;
  return std::move(*content);
}

std::map<std::string, HostEntry> ReadHostState(const std::string& project_dir,
                                               const std::vector<std::string>& paths) {
  std::map<std::string, HostEntry> host;
  for (const std::string& path : paths) host[path] = ReadOne(project_dir, path);
  return host;
}

void ApplyPlan(const std::string& project_dir, const SyncPlan& plan, CopyBackReport& report) {
  for (const SyncAction& action : plan.actions) ApplyOne(project_dir, action, report);
}

bool ProjectVolumeMayGo(const CopyBackReport& report) { return report.not_copied.empty(); }

Result<CopyBackReport> CopyProjectBack(Engine& engine, const Layout& layout,
                                       const CopyManifest& manifest) {
  std::string manifest_path = ManifestPath(policy::StateDir(), manifest.session_id);
  auto lock = LockCopy(manifest_path);
  if (!lock) return lock.error();
  CopyBackReport report;
  report.volume = layout.project_volume;
  if (::access(manifest_path.c_str(), F_OK) != 0 && errno == ENOENT) {
    report.volume_removed = true;  // another corral finished it while this one waited
    return report;
  }
  auto context = "copy the box's changes back from " + layout.project_volume;
  auto tar = ArchiveOfVolume(engine, layout, manifest.image);
  if (!tar) return tar.error().Context(context);
  auto archive = ReadTar(*tar);
  if (!archive) return archive.error().Context(context);
  auto box = BoxEntries(*archive, CopierArchiveFor(engine.podman()).get_root, report.refused);
  if (!manifest.review.upper.empty()) {
    if (auto ok = IntoUpper(manifest, box, report); !ok) return ok.error().Context(context);
  } else {
    auto host = ReadHostState(manifest.project_dir, PathsToCompare(manifest, box));
    SyncPlan plan = PlanCopyBack(manifest, box, host);
    report.conflicts = plan.conflicts;
    report.refused.insert(report.refused.end(), plan.refused.begin(), plan.refused.end());
    report.not_copied = plan.blocked;
    ApplyPlan(manifest.project_dir, plan, report);
  }
  if (!ProjectVolumeMayGo(report)) return report;
  // The volume first: a manifest without a volume is only a leftover; a
  // volume without its manifest could not be copied back.
  if (auto removed = engine.RemoveVolume(layout.project_volume); !removed) {
    report.not_copied.push_back(removed.error().message);
    return report;
  }
  report.volume_removed = true;
  ::unlink(manifest_path.c_str());
  ::unlink((manifest_path + ".lock").c_str());
  return report;
}

Result<std::optional<CopyBackReport>> ResumeCopyBack(Engine& engine,
                                                     const std::string& session_id) {
  auto manifest = LoadManifest(ManifestPath(policy::StateDir(), session_id));
  if (!manifest) return manifest.error();
  if (!*manifest) return std::optional<CopyBackReport>();
  if (!(*manifest)->landed) {
    // corral was killed while the project went in: the agent never ran
    // (it runs only once the copy is read back), so the volume holds
    // nothing of the box's, and what it lacks was never deleted.
    CopyBackReport report;
    report.volume = (*manifest)->volume;
    auto gone = DiscardCopyIn(engine, LayoutFor(session_id));
    if (!gone) return gone.error().Context("remove a copy-in that never finished");
    report.volume_removed = true;
    report.never_landed = true;
    return std::optional<CopyBackReport>(std::move(report));
  }
  auto report = CopyProjectBack(engine, LayoutFor(session_id), **manifest);
  if (!report) return report.error();
  return std::optional<CopyBackReport>(std::move(*report));
}

std::string DescribeCopyBack(const CopyBackReport& report, const std::string& session_id) {
  std::ostringstream out;
  if (report.never_landed) {
    return "corral: session " + session_id + "'s project never finished going into the volume " +
           report.volume + " (corral was stopped while it went in), so the agent never ran: "
           "the volume is removed and the project here is as it was\n";
  }
  out << "corral: the box's changes" << (report.review ? " (into review mode's copy)" : "") << ": "
      << report.written.size() << " written, " << report.removed.size() << " removed";
  out << (report.conflicts.empty() ? "" : ", " + std::to_string(report.conflicts.size()) +
                                              " changed on both sides")
      << "\n";
  for (const auto& line : report.conflicts) out << "corral: conflict: " << line << "\n";
  for (const auto& line : report.refused) out << "corral: not copied (refused): " << line << "\n";
  for (const auto& line : report.not_copied) out << "corral: not copied yet: " << line << "\n";
  if (report.volume_removed) {
    out << "corral: the volume " << report.volume << " is removed\n";
  } else {
    out << "corral: the box's work is kept in the volume " << report.volume
        << "; `corral stop " << session_id << "` copies it back\n";
  }
  return out.str();
}

std::string ProjectModeLine(const Layout& layout, const std::string& project_dir, bool copied) {
  if (!copied) {
    return "project: " + project_dir + " bind-mounted (the engine sees it at the same path); "
           "the box writes it directly";
  }
  return "project: " + project_dir + " copied into the volume " + layout.project_volume +
         " (the engine cannot see it); the box's changes come back when the session ends. If "
         "corral is killed first they stay in that volume: `corral ps` lists it and `corral "
         "stop " + layout.session_id + "` copies them back";
}

}  // namespace corral::launcher::network_mode
