// A ustar stream written in memory: what PUT /containers/{id}/archive takes
// (the box's volume owners, the network mode's session volume).
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

}  // namespace

std::optional<std::string> WriteTar(const std::vector<TarEntry>& entries, std::int64_t mtime) {
  std::string tar;
  for (const TarEntry& entry : entries) {
    std::size_t first = entry.path.find_first_not_of('/');
    if (first == std::string::npos) return std::nullopt;
    std::string path = entry.path.substr(first);
    if (entry.kind == TarEntry::kFolder && path.back() != '/') path += '/';
    std::string prefix, name;
    if (!SplitPath(path, prefix, name)) return std::nullopt;
    bool file = entry.kind == TarEntry::kFile;
    if (entry.kind == TarEntry::kSymlink && entry.content.size() > 100) return std::nullopt;
    char header[512] = {};
    std::memcpy(header, name.data(), name.size());
    if (!PutOctal(header + 100, 8, entry.mode) || !PutOctal(header + 108, 8, entry.uid) ||
        !PutOctal(header + 116, 8, entry.gid) ||
        !PutOctal(header + 124, 12, file ? entry.content.size() : 0) ||
        !PutOctal(header + 136, 12, static_cast<std::uint64_t>(std::max<std::int64_t>(mtime, 0)))) {
      return std::nullopt;
    }
    header[156] = entry.kind == TarEntry::kFolder ? '5' : file ? '0' : '2';
    if (entry.kind == TarEntry::kSymlink) {
      std::memcpy(header + 157, entry.content.data(), entry.content.size());
    }
    std::memcpy(header + 257, "ustar", 6);
    std::memcpy(header + 263, "00", 2);
    std::memcpy(header + 345, prefix.data(), prefix.size());
    std::memset(header + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : header) sum += c;
    std::snprintf(header + 148, 8, "%06o", sum);  // six digits, NUL, then the space
    header[155] = ' ';
    tar.append(header, sizeof header);
    if (file) {
      tar += entry.content;
      tar.append((512 - entry.content.size() % 512) % 512, '\0');
    }
  }
  tar.append(1024, '\0');
  return tar;
}

}  // namespace corral::launcher
