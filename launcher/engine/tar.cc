// A ustar stream written in memory: what PUT /containers/{id}/archive takes
// (the box's volume owners, the network mode's session and project volumes).
// A path or link target too long for ustar goes in a pax header before it,
// as GNU tar and the engines' own archives do.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

// An octal number in a tar header field of `width` bytes (digits, then NUL).
bool PutOctal(char* field, std::size_t width, std::uint64_t value) {
  char digits[32];
  int n = std::snprintf(digits, sizeof digits, "%0*llo", static_cast<int>(width - 1),
                        static_cast<unsigned long long>(value));
  if (n < 0 || static_cast<std::size_t>(n) != width - 1) return false;
  std::memcpy(field, digits, width);  // with the NUL
  return true;
}

// ustar splits a long path into prefix (155) '/' name (100); false when it cannot.
bool SplitPath(std::string path, std::string& prefix, std::string& name) {
  prefix.clear();
  name = std::move(path);
  if (name.size() <= 100) return true;
  std::size_t cut = name.find('/', name.size() - 101);
  if (cut == std::string::npos || cut > 155) return false;
  prefix = name.substr(0, cut);
  name = name.substr(cut + 1);
  return true;
}

// One pax record, "LEN key=value\n", where LEN counts itself.
std::string PaxRecord(const std::string& key, const std::string& value) {
  std::size_t rest = 1 + key.size() + 1 + value.size() + 1;  // ' ' key '=' value '\n'
  std::size_t length = rest + 1;
  while (std::to_string(length).size() + rest != length) ++length;
  return std::to_string(length) + " " + key + "=" + value + "\n";
}

void Pad(std::string& tar, std::size_t size) { tar.append((512 - size % 512) % 512, '\0'); }

// One 512-byte header; false when a number does not fit its field.
bool PutHeader(std::string& tar, const std::string& prefix, const std::string& name, char type,
               const std::string& link, std::uint64_t size, unsigned mode, std::uint32_t uid,
               std::uint32_t gid, std::int64_t mtime) {
  char header[512] = {};
  std::memcpy(header, name.data(), std::min<std::size_t>(name.size(), 100));
  if (!PutOctal(header + 100, 8, mode) || !PutOctal(header + 108, 8, uid) ||
      !PutOctal(header + 116, 8, gid) || !PutOctal(header + 124, 12, size) ||
      !PutOctal(header + 136, 12, static_cast<std::uint64_t>(std::max<std::int64_t>(mtime, 0)))) {
    return false;
  }
  header[156] = type;
  std::memcpy(header + 157, link.data(), std::min<std::size_t>(link.size(), 100));
  std::memcpy(header + 257, "ustar", 6);
  std::memcpy(header + 263, "00", 2);
  std::memcpy(header + 345, prefix.data(), std::min<std::size_t>(prefix.size(), 155));
  std::memset(header + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  std::snprintf(header + 148, 8, "%06o", sum);  // six digits, NUL, then the space
  header[155] = ' ';
  tar.append(header, sizeof header);
  return true;
}

char TypeFlag(TarEntry::Kind kind) {
  switch (kind) {
    case TarEntry::kFolder: return '5';
    case TarEntry::kFile: return '0';
    case TarEntry::kSymlink: return '2';
    case TarEntry::kHardlink: return '1';
    case TarEntry::kOther: break;
  }
  return 0;
}

}  // namespace

std::optional<std::string> WriteTar(const std::vector<TarEntry>& entries, std::int64_t mtime) {
  std::string tar;
  for (const TarEntry& entry : entries) {
    char type = TypeFlag(entry.kind);
    if (type == 0) return std::nullopt;
    std::size_t first = entry.path.find_first_not_of('/');
    if (first == std::string::npos) return std::nullopt;
    std::string path = entry.path.substr(first);
    if (entry.kind == TarEntry::kFolder && path.back() != '/') path += '/';
    bool file = entry.kind == TarEntry::kFile;
    bool link = entry.kind == TarEntry::kSymlink || entry.kind == TarEntry::kHardlink;
    std::int64_t when = entry.mtime >= 0 ? entry.mtime : mtime;
    std::string prefix, name, pax;
    if (!SplitPath(path, prefix, name)) {
      pax += PaxRecord("path", path);
      prefix.clear();
      name = path.substr(0, 100);
    }
    if (link && entry.content.size() > 100) pax += PaxRecord("linkpath", entry.content);
    if (!pax.empty()) {
      if (!PutHeader(tar, "", "PaxHeaders/" + name.substr(0, 80), 'x', "", pax.size(), 0644, 0, 0,
                     when)) {
        return std::nullopt;
      }
      tar += pax;
      Pad(tar, pax.size());
    }
    if (!PutHeader(tar, prefix, name, type, link ? entry.content : "",
                   file ? entry.content.size() : 0, entry.mode, entry.uid, entry.gid, when)) {
      return std::nullopt;
    }
    if (file) {
      tar += entry.content;
      Pad(tar, entry.content.size());
    }
  }
  tar.append(1024, '\0');
  return tar;
}

}  // namespace corral::launcher
