#include "launcher/session/session.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

// The fields of each line of a colon-separated file (passwd, group).
using Fields = std::vector<std::vector<std::string>>;

Fields Lines(const std::string& text) {
  Fields lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t colon; (colon = line.find(':', start)) != std::string::npos;) {
      fields.push_back(line.substr(start, colon - start));
      start = colon + 1;
    }
    fields.push_back(line.substr(start));
    lines.push_back(std::move(fields));
  }
  return lines;
}

bool HasId(const Fields& lines, std::uint32_t id) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const auto& f) { return f.size() > 2 && f[2] == std::to_string(id); });
}

std::string FreeName(const Fields& lines, std::uint32_t id) {
  bool taken = std::any_of(lines.begin(), lines.end(),
                           [](const auto& f) { return !f.empty() && f[0] == "corral"; });
  return taken ? "corral" + std::to_string(id) : "corral";
}

std::string Appended(const std::string& text, const std::string& line) {
  if (text.empty() || text.back() == '\n') return text + line + "\n";
  return text + "\n" + line + "\n";
}

}  // namespace

std::optional<std::string> OwnedFoldersTar(const std::vector<std::string>& paths,
                                           std::uint32_t uid, std::uint32_t gid,
                                           std::int64_t mtime) {
  std::vector<TarEntry> entries;
  for (const std::string& path : paths) {
    entries.push_back({TarEntry::kFolder, path, "", 0755, uid, gid});
  }
  return WriteTar(entries, mtime);
}

Result<void> GiveVolumesToTheBoxUser(Engine& engine, const SessionPlan& plan) {
  if (plan.uid == 0 || engine.podman()) return Ok();
  // A note per volume in corral's state folder: "uid:gid CreatedAt" once it
  // was given, so later sessions skip the extra container (a volume removed
  // and made again has another CreatedAt).
  std::string owner = std::to_string(plan.uid) + ":" + std::to_string(plan.gid);
  auto note = [&](const Mount& m) { return plan.volume_root + "/" + m.source + ".owner"; };
  auto created = [&](const Mount& m) {
    auto at = engine.VolumeCreatedAt(m.source);
    return at && *at ? **at : std::string();
  };
  // Each volume not yet given, with its CreatedAt ("" until the volume exists).
  std::vector<std::pair<const Mount*, std::string>> volumes;
  std::vector<std::string> targets;
  for (const Mount& m : plan.mounts) {
    if (m.kind != MountKind::kVolume) continue;
    std::string at = created(m);
    if (!at.empty() && ReadText(note(m)) == owner + " " + at + "\n") continue;
    volumes.emplace_back(&m, at);
    targets.push_back(m.target);
  }
  if (targets.empty()) return Ok();
  auto tar = OwnedFoldersTar(targets, plan.uid, plan.gid, ::time(nullptr));
  auto given = tar ? engine.UnpackIntoVolumes(plan, *tar)
                   : Result<void>(Error("a volume's path is too long for a tar header"));
  if (!given) {
    log::warn(given.error().message +
              "; the box's user may not be able to write to its HOME (Docker makes a new "
              "volume root's)");
    return Ok();
  }
  std::error_code ec;
  std::filesystem::create_directories(plan.volume_root, ec);
  for (auto& [m, at] : volumes) {
    if (at.empty()) at = created(*m);  // made just now, by the unpacking container
    if (!at.empty()) (void)WriteFile(note(*m), owner + " " + at + "\n", 0644);
  }
  return Ok();
}

std::optional<std::string> WithPasswdLine(const std::string& passwd, std::uint32_t uid,
                                          std::uint32_t gid, const std::string& home) {
  Fields lines = Lines(passwd);
  if (HasId(lines, uid)) return std::nullopt;
  return Appended(passwd, FreeName(lines, uid) + ":x:" + std::to_string(uid) + ":" +
                              std::to_string(gid) + ":corral box user:" + home + ":/bin/sh");
}

std::optional<std::string> WithGroupLine(const std::string& group, std::uint32_t gid) {
  Fields lines = Lines(group);
  if (HasId(lines, gid)) return std::nullopt;
  return Appended(group, FreeName(lines, gid) + ":x:" + std::to_string(gid) + ":");
}

std::optional<std::string> FirstFileInTar(std::string_view tar) {
  if (tar.size() < 512) return std::nullopt;
  char type = tar[156];
  if (type != '0' && type != '\0') return std::nullopt;  // a link, a folder, ...
  std::uint64_t size = 0;
  for (char c : tar.substr(124, 12)) {
    if (c == '\0' || c == ' ') {
      if (size > 0) break;
      continue;
    }
    if (c < '0' || c > '7') return std::nullopt;
    size = size * 8 + static_cast<std::uint64_t>(c - '0');
  }
  if (size > tar.size() - 512) return std::nullopt;
  return std::string(tar.substr(512, size));
}

Result<void> NameTheBoxUser(Engine& engine, SessionPlan& plan) {
  // Rootless Podman runs the box with keep-id, which writes the line itself.
  if (plan.uid == 0 || (engine.podman() && engine.rootless())) return Ok();
  auto tars = engine.ImageFiles(plan.image, {"/etc/passwd", "/etc/group"});
  if (!tars) {
    log::warn(tars.error().message +
              "; the box's user may have no name in /etc/passwd (ssh needs one)");
    return Ok();
  }
  // Each file's text, "" when the image has none, nullopt when it is not a
  // plain file (then it is left as the image has it).
  auto text = [](const std::optional<std::string>& tar) {
    return tar ? FirstFileInTar(*tar) : std::optional<std::string>("");
  };
  std::optional<std::string> passwd = text((*tars)[0]), group = text((*tars)[1]);
  std::string home = "/";
  for (const std::string& line : plan.env) {
    if (line.rfind("HOME=", 0) == 0) home = line.substr(5);
  }
  if (passwd) passwd = WithPasswdLine(*passwd, plan.uid, plan.gid, home);
  if (group) group = WithGroupLine(*group, plan.gid);
  for (const auto& [path, with_line] :
       {std::pair{"/etc/passwd", passwd}, std::pair{"/etc/group", group}}) {
    if (!with_line) continue;
    std::string copy = plan.session_dir + "/" + std::string(path).substr(5);  // passwd, group
    if (auto ok = WriteFile(copy, *with_line, 0444); !ok) return ok;
    plan.mounts.push_back({MountKind::kBind,
                           copy,
                           path,
                           true,
                           {},
                           std::string("the image's ") + path + " with a line for the box's user"});
  }
  return Ok();
}

}  // namespace corral::launcher
