// The project copied into a per-session volume through the engine's API,
// for an engine that cannot see this machine's folders: the files as a tar
// PUT into a container that is never started, and a manifest of what went
// in, saved before the volume exists, which the copy-back compares against.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {

using nlohmann::json;

CopierArchive CopierArchiveFor(bool podman) {
  std::string mount = std::string(kCopierMount).substr(1);
  if (podman) return {kCopierMount, ".", ""};
  return {"/", mount, mount};
}

std::map<std::string, std::string> ProjectVolumeLabels(const Layout& layout,
                                                       const std::string& project_dir) {
  auto labels = layout.labels;
  labels[kLabelPart] = kProjectPart;
  labels[kLabelProject] = project_dir;
  return labels;
}

json CopierBody(const Layout& layout, const std::string& image, bool with_session_volume) {
  // The filler's body (never started, no network), the project volume added
  // and, unless asked for, the session volume taken out.
  json body = FillerBody(layout, image);
  body["Labels"][kLabelPart] = "copier";
  json project = {{"Type", "volume"}, {"Source", layout.project_volume}, {"Target", kCopierMount}};
  json& mounts = body["HostConfig"]["Mounts"];
  if (!with_session_volume) mounts = json::array();
  mounts.push_back(project);
  return body;
}

std::string ContentHash(std::string_view content) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : content) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char text[64];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx:%zu", static_cast<unsigned long long>(hash),
                content.size());
  return text;
}

namespace {

const char* KindName(TarEntry::Kind kind) {
  return kind == TarEntry::kFolder ? "folder" : kind == TarEntry::kSymlink ? "symlink" : "file";
}

}  // namespace

json ManifestJson(const CopyManifest& manifest) {
  json entries = json::object();
  for (const auto& [path, entry] : manifest.entries) {
    entries[path] = {{"kind", KindName(entry.kind)},
                     {"mode", entry.mode},
                     {"size", entry.size},
                     {"mtime", entry.mtime},
                     {"hash", entry.hash}};
  }
  return {{"session", manifest.session_id}, {"project", manifest.project_dir},
          {"volume", manifest.volume},      {"image", manifest.image},
          {"uid", manifest.uid},            {"gid", manifest.gid},
          {"landed", manifest.landed},      {"entries", entries},
          {"review", manifest.review.upper.empty()
                         ? json(nullptr)
                         : json{{"upper", manifest.review.upper},
                                {"removed_list", manifest.review.removed_list}}}};
}

Result<CopyManifest> ManifestFromJson(const json& value) {
  try {
    CopyManifest manifest;
    manifest.session_id = value.at("session").get<std::string>();
    manifest.project_dir = value.at("project").get<std::string>();
    manifest.volume = value.at("volume").get<std::string>();
    manifest.image = value.at("image").get<std::string>();
    manifest.uid = value.at("uid").get<std::uint32_t>();
    manifest.gid = value.at("gid").get<std::uint32_t>();
    manifest.landed = value.value("landed", true);
    if (auto review = value.find("review"); review != value.end() && review->is_object()) {
      manifest.review.upper = review->at("upper").get<std::string>();
      manifest.review.removed_list = review->at("removed_list").get<std::string>();
    }
    for (const auto& [path, entry] : value.at("entries").items()) {
      std::string kind = entry.at("kind").get<std::string>();
      CopiedEntry copied;
      copied.kind = kind == "folder"    ? TarEntry::kFolder
                    : kind == "symlink" ? TarEntry::kSymlink
                                        : TarEntry::kFile;
      copied.mode = entry.at("mode").get<unsigned>();
      copied.size = entry.at("size").get<std::int64_t>();
      copied.mtime = entry.at("mtime").get<std::int64_t>();
      copied.hash = entry.at("hash").get<std::string>();
      manifest.entries[path] = copied;
    }
    return manifest;
  } catch (const json::exception& e) {
    return Error(std::string("the copy-in manifest is damaged: ") + e.what());
  }
}

std::string ManifestPath(const std::string& state_dir, const std::string& session_id) {
  return state_dir + "/sessions/" + session_id + ".copy.json";
}

namespace {

// One path of the project into the tar and the manifest; false when it is
// not copied (a socket, a device, unreadable).
bool AddPath(const std::string& project_dir, const std::string& relative, std::uint32_t uid,
             std::uint32_t gid, const std::string& put_root, std::vector<TarEntry>& entries,
             CopyManifest& manifest) {
  std::string full = project_dir + "/" + relative;
  struct stat st {};
  if (::lstat(full.c_str(), &st) != 0) return false;
  TarEntry entry;
  entry.path = put_root + "/" + relative;
  entry.mode = st.st_mode & 07777;
  entry.uid = uid;
  entry.gid = gid;
  entry.mtime = st.st_mtime;
  CopiedEntry copied;
  copied.mode = entry.mode;
  copied.mtime = st.st_mtime;
  if (S_ISDIR(st.st_mode)) {
    entry.kind = copied.kind = TarEntry::kFolder;
  } else if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(full, ec);
    if (ec) return false;
    entry.kind = copied.kind = TarEntry::kSymlink;
    entry.content = copied.hash = target.string();
    entry.mode = copied.mode = 0777;
  } else if (S_ISREG(st.st_mode)) {
    auto content = ReadNoFollow(AT_FDCWD, full);
    if (!content) return false;
    entry.kind = copied.kind = TarEntry::kFile;
    copied.size = static_cast<std::int64_t>(content->size());
    copied.hash = ContentHash(*content);
    entry.content = std::move(*content);
  } else {
    return false;
  }
  manifest.entries[relative] = copied;
  entries.push_back(std::move(entry));
  return true;
}

Result<void> WriteManifest(const std::string& path, const CopyManifest& manifest) {
  std::string folder = std::filesystem::path(path).parent_path().string();
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return Error("cannot create " + folder + ": " + ec.message());
  ::chmod(folder.c_str(), 0700);
  return ReplaceFile(path, ManifestJson(manifest).dump() + "\n");
}

}  // namespace

Result<ProjectScan> ScanProject(const std::string& given_dir, std::uint32_t uid,
                                std::uint32_t gid, const std::string& put_root) {
  std::string project_dir = given_dir;
  while (project_dir.size() > 1 && project_dir.back() == '/') project_dir.pop_back();
  struct stat root {};
  if (::stat(project_dir.c_str(), &root) != 0 || !S_ISDIR(root.st_mode)) {
    return Error::FromErrno("cannot read the project folder " + project_dir);
  }
  ProjectScan scan;
  scan.manifest.project_dir = project_dir;
  scan.manifest.uid = uid;
  scan.manifest.gid = gid;
  // The volume's root is the mount point: its entry gives it the box's owner.
  std::vector<TarEntry> entries = {
      {TarEntry::kFolder, put_root, "", root.st_mode & 07777, uid, gid, root.st_mtime}};
  std::error_code ec;
  std::vector<std::string> paths;
  auto options = std::filesystem::directory_options::skip_permission_denied;
  for (auto it = std::filesystem::recursive_directory_iterator(project_dir, options, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    // Lexically: relative() would resolve a symlink to what it names.
    paths.push_back(it->path().lexically_relative(project_dir).string());
  }
  if (ec) return Error("cannot read the project folder " + project_dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());  // folders before what they hold
  for (const std::string& relative : paths) {
    if (!AddPath(project_dir, relative, uid, gid, put_root, entries, scan.manifest)) {
      scan.manifest.skipped.push_back(relative);
    }
  }
  auto tar = WriteTar(entries, root.st_mtime);
  if (!tar) return Error("a file of the project does not fit a tar header");
  scan.tar = std::move(*tar);
  return scan;
}

Result<CopyIn> PrepareCopyIn(Engine& engine, const Layout& layout, const std::string& project_dir,
                             const std::string& image, std::uint32_t uid, std::uint32_t gid,
                             const ReviewInto& review) {
  CopierArchive names = CopierArchiveFor(engine.podman());
  auto scan = ScanProject(project_dir, uid, gid, names.put_root);
  if (!scan) return scan.error().Context("copy the project into the box's volume");
  CopyIn copy{std::move(scan->manifest), std::move(scan->tar), ""};
  CopyManifest& manifest = copy.manifest;
  manifest.session_id = layout.session_id;
  manifest.volume = layout.project_volume;
  manifest.image = image;
  manifest.landed = false;
  manifest.review = review;
  // Saved before the volume exists: a volume is never without its manifest.
  std::string path = ManifestPath(policy::StateDir(), layout.session_id);
  if (auto ok = WriteManifest(path, manifest); !ok) return ok.error();
  auto mountpoint =
      engine.CreateVolume(layout.project_volume, ProjectVolumeLabels(layout, project_dir));
  if (!mountpoint) {
    ::unlink(path.c_str());
    return mountpoint.error().Context("copy the project into the volume " + layout.project_volume);
  }
  manifest.mountpoint = *mountpoint;
  return copy;
}

Result<void> FillCopyIn(Engine& engine, const Layout& layout, const CopyIn& copy) {
  // A new session's name: no copier can be there. It stays for the
  // copy-back, which removes it (so do the reaper and `corral stop`).
  const bool both = !copy.session_tar.empty();
  auto copier = engine.CreateContainer(ForEngine(CopierBody(layout, copy.manifest.image, both), engine),
                                       layout.copier,
                                       "make the container that copies the project in");
  // One tar: the project's without its end (two zero blocks), then the session's.
  std::string joined;
  if (both) {
    joined.reserve(copy.tar.size() + copy.session_tar.size());
    joined.append(copy.tar, 0, copy.tar.size() - 1024);
    joined += copy.session_tar;
  }
  auto put = copier ? engine.PutArchive(*copier, CopierArchiveFor(engine.podman()).put_path,
                                        both ? joined : copy.tar, /*timeout_ms=*/0)
                    : Result<void>(copier.error());
  if (!put) return put.error().Context("copy the project into the volume " + layout.project_volume);
  return Ok();
}

Result<void> MarkLanded(CopyManifest& manifest) {
  manifest.landed = true;
  return WriteManifest(ManifestPath(policy::StateDir(), manifest.session_id), manifest);
}

Result<CopyManifest> CopyProjectIn(Engine& engine, const Layout& layout,
                                   const std::string& project_dir, const std::string& image,
                                   std::uint32_t uid, std::uint32_t gid) {
  auto copy = PrepareCopyIn(engine, layout, project_dir, image, uid, gid);
  if (!copy) return copy.error();
  Result<void> ok = FillCopyIn(engine, layout, *copy);
  if (ok) ok = CheckCopiedIn(engine, layout, copy->manifest);
  if (ok) ok = MarkLanded(copy->manifest);
  if (!ok) {
    (void)DiscardCopyIn(engine, layout);
    return ok.error();
  }
  return std::move(copy->manifest);
}

Result<void> CheckCopiedIn(Engine& engine, const Layout& layout, const CopyManifest& manifest) {
  const std::pair<const std::string, CopiedEntry>* sample = nullptr;
  for (const auto& entry : manifest.entries) {
    if (entry.second.kind == TarEntry::kFile && (!sample || entry.second.size < sample->second.size)) {
      sample = &entry;
    }
  }
  if (!sample) return Ok();  // no file to check
  auto tar = engine.GetArchive(layout.copier, std::string(kCopierMount) + "/" + sample->first);
  if (!tar) return tar.error().Context("read back what was copied in");
  auto members = ReadTar(*tar);
  if (members && members->size() == 1 && (*members)[0].kind == TarEntry::kFile &&
      ContentHash((*members)[0].content) == sample->second.hash) {
    return Ok();
  }
  return Error("the volume does not hold " + sample->first + " as it was copied in");
}

Result<void> DiscardCopyIn(Engine& engine, const Layout& layout) {
  Result<void> ok = engine.Remove(layout.copier);
  if (ok) ok = engine.RemoveVolume(layout.project_volume);
  // The manifest goes only with the volume: a kept volume needs it.
  if (ok) ::unlink(ManifestPath(policy::StateDir(), layout.session_id).c_str());
  return ok;
}

}  // namespace corral::launcher::network_mode
