// What srt's and sandbox.json's network and filesystem settings mean in
// corral's box, which holds the project (read-write, .git/hooks and
// .git/config read-only) and the folders filesystem.extra_* name, nothing else
// of the host, and reaches the network only through corral's proxy.
#include <filesystem>

#include "base/paths.h"
#include "launcher/config_import/config_import.h"
#include "policy/network/network.h"

namespace corral::config_import {
namespace {

namespace fs = std::filesystem;

std::string ExpandHome(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.starts_with("~/")) return home + path.substr(1);
  return path;
}

bool IsGlob(const std::string& path) { return path.find_first_of("*?[") != std::string::npos; }

bool HasDotDot(const std::string& path) {
  for (const auto& part : fs::path(path)) {
    if (part == "..") return true;
  }
  return false;
}

// "./a/b/" -> "a/b"; "/x/y/" -> "/x/y".
std::string Tidy(std::string path) {
  while (path.starts_with("./")) path = path.substr(2);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

bool IsWithin(const std::string& path, const std::string& folder) {
  return path == folder || (path.starts_with(folder) && path[folder.size()] == '/');
}

const char* const kOutsideHint =
    " (if it lies inside a project, write it relative to the project in filesystem.deny_read)";

}  // namespace

void TranslateHostPath(const std::string& setting, const std::string& where,
                       const std::string& raw, PathUse use, const ImportOptions& options,
                       Translation& out) {
  std::string shown = setting + " \"" + raw + "\"";
  auto skip = [&](NoteKind kind, std::string reason) {
    out.Add(kind, shown, where, std::move(reason));
  };
  const char* verb = use == PathUse::kWrite ? "write" : "read";
  if (raw.empty()) return skip(NoteKind::kNotTranslated, "an empty path names nothing");
  if (IsGlob(raw)) return skip(NoteKind::kNotTranslated, "a pattern: corral mounts folders by path");
  if (raw.starts_with("~") && raw != "~" && !raw.starts_with("~/")) {
    return skip(NoteKind::kNotTranslated, "another user's home folder: write it as a full path");
  }
  std::string path = Tidy(ExpandHome(raw, options.home));
  if (path == Tidy(options.home) || path == "/") {
    return skip(NoteKind::kNotTranslated,
                "corral never mounts the whole home folder or file system: an agent could change "
                "your shell's startup files and keys; list the folders it needs");
  }
  if (path.empty() || path == "." || path[0] != '/') {
    if (HasDotDot(path)) {
      return skip(NoteKind::kNotTranslated,
                  "relative to the folder the tool ran in, outside the project: corral cannot "
                  "know which; write it as a full path");
    }
    return skip(NoteKind::kNoMeaning, std::string("inside the project, which the box can always ") +
                                          verb);
  }
  path = fs::path(path).lexically_normal().string();
  path = Tidy(path);
  if (path == "/tmp" || path == "/private/tmp" || path == "/var/tmp") {
    return skip(NoteKind::kNoMeaning, "the box has a temporary folder of its own");
  }
  bool exists = options.exists ? options.exists(path) : fs::exists(path);
  if (!exists) {
    return skip(NoteKind::kNotTranslated,
                path + " does not exist here, and corral does not start a session whose "
                       "filesystem.extra_* folder is missing; create it and import again");
  }
  out.Append(use == PathUse::kWrite ? "filesystem.extra_writable" : "filesystem.extra_readonly",
             {path}, setting + (where.empty() ? "" : " (" + where + ")"));
}

void TranslateDenyRead(const std::string& setting, const std::string& where,
                       const std::string& raw, const ImportOptions& options, Translation& out,
                       std::vector<OutsidePath>& outside) {
  std::string shown = setting + " \"" + raw + "\"";
  std::string path = Tidy(ExpandHome(raw, options.home));
  if (path.starts_with("/")) {
    outside.push_back({shown, where, fs::path(path).lexically_normal().string(), false});
    return;
  }
  if (raw.starts_with("~")) {
    out.Add(NoteKind::kNotTranslated, shown, where, "another user's home folder");
  } else if (path.empty() || path == "." || HasDotDot(path)) {
    out.Add(NoteKind::kNotTranslated, shown, where,
            "not a path inside the project: the box needs the project, and corral cannot know "
            "what lies outside it relative to where the tool ran");
  } else if (path.find("**") != std::string::npos) {
    out.Add(NoteKind::kNotTranslated, shown, where,
            "corral's deny_read patterns have no '**' (a name without '/' matches at any depth)");
  } else {
    out.Append("filesystem.deny_read", {path}, setting + (where.empty() ? "" : " (" + where + ")"));
  }
}

void TranslateDenyWrite(const std::string& setting, const std::string& where,
                        const std::string& raw, const ImportOptions& options, Translation& out,
                        std::vector<OutsidePath>& outside) {
  std::string shown = setting + " \"" + raw + "\"";
  std::string path = Tidy(ExpandHome(raw, options.home));
  if (path.starts_with("/")) {
    outside.push_back({shown, where, fs::path(path).lexically_normal().string(), true});
    return;
  }
  if (IsWithin(path, ".git/hooks") || path == ".git/config") {
    out.Add(NoteKind::kNoMeaning, shown, where,
            "already read-only in corral's box: a hook or git config written there could run "
            "programs on the host");
    return;
  }
  out.Add(NoteKind::kNotTranslated, shown, where,
          "corral has no list of project paths the box cannot write: the project is writable "
          "as a whole, except .git/hooks and .git/config");
}

void FinishDenyPaths(const std::vector<OutsidePath>& outside, Translation& out) {
  std::vector<std::pair<std::string, bool>> mounted;  // folder, writable
  for (const auto& [key, writable] : {std::pair{"filesystem.extra_writable", true},
                                      std::pair{"filesystem.extra_readonly", false}}) {
    if (const Assignment* a = out.Find(key)) {
      for (const auto& folder : a->value) mounted.emplace_back(folder.get<std::string>(), writable);
    }
  }
  for (const OutsidePath& entry : outside) {
    const std::pair<std::string, bool>* inside = nullptr;
    for (const auto& folder : mounted) {
      if (IsWithin(entry.path, folder.first) && (!inside || folder.second)) inside = &folder;
    }
    if (inside && (!entry.deny_write || inside->second)) {
      out.Add(NoteKind::kNotTranslated, entry.setting, entry.where,
              "inside " + inside->first + ", which this import mounts " +
                  (inside->second ? "read-write" : "read-only") + ": corral cannot " +
                  (entry.deny_write ? "keep part of it read-only" : "hide part of it"));
    } else if (inside) {
      out.Add(NoteKind::kNoMeaning, entry.setting, entry.where,
              "inside " + inside->first + ", which is mounted read-only");
    } else {
      out.Add(NoteKind::kNoMeaning, entry.setting, entry.where,
              std::string("outside the project and the folders this import mounts: the box "
                          "does not see it") + kOutsideHint);
    }
  }
}

void TranslateDomains(const std::string& setting, const std::string& where,
                      const std::vector<std::string>& domains, bool denied, Translation& out) {
  std::vector<std::string> valid;
  for (const std::string& domain : domains) {
    std::string shown = setting + " \"" + domain + "\"";
    if (domain == "localhost") {
      out.Add(NoteKind::kNotTranslated, shown, where,
              "the box's localhost is the box itself; corral's proxy reaches a service on the "
              "host's loopback only through network.allow_addresses, which the import does not "
              "set for you");
      continue;
    }
    if (auto entry = policy::ParseDomainEntry(domain); !entry) {
      out.Add(NoteKind::kNotTranslated, shown, where, entry.error().message);
      continue;
    }
    valid.push_back(domain);
  }
  const char* key = denied ? "network.denied_domains" : "network.allowed_domains";
  if (!valid.empty()) out.Append(key, valid, setting + (where.empty() ? "" : " (" + where + ")"));
}

}  // namespace corral::config_import
