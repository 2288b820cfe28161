// Reading a tar stream as the engines give it (GET /containers/{id}/archive):
// ustar headers, GNU long names and link targets ('L', 'K'), pax headers
// ('x': path, linkpath, size, mtime, uid, gid), GNU base-256 numbers. The
// stream comes from a box's files, so every length is checked against what
// is there; nothing here touches the disk.
#include <cstring>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

constexpr std::size_t kBlock = 512;

// A NUL-terminated (or full) text field.
std::string Field(const char* at, std::size_t width) {
  return std::string(at, strnlen(at, width));
}

// Octal digits (spaces and NULs around them), or GNU's base-256 with the
// high bit of the first byte set; nullopt when neither.
std::optional<std::uint64_t> Number(const char* at, std::size_t width) {
  auto bytes = reinterpret_cast<const unsigned char*>(at);
  if (bytes[0] & 0x80) {
    if (bytes[0] & 0x40) return std::nullopt;  // negative
    std::uint64_t value = bytes[0] & 0x3f;
    for (std::size_t i = 1; i < width; ++i) {
      if (value >> 56) return std::nullopt;
      value = value << 8 | bytes[i];
    }
    return value;
  }
  std::size_t i = 0;
  while (i < width && at[i] == ' ') ++i;
  std::uint64_t value = 0;
  bool any = false;
  for (; i < width && at[i] >= '0' && at[i] <= '7'; ++i) {
    if (value >> 60) return std::nullopt;
    value = value * 8 + static_cast<std::uint64_t>(at[i] - '0');
    any = true;
  }
  for (; i < width; ++i) {
    if (at[i] != ' ' && at[i] != '\0') return std::nullopt;
  }
  if (!any) return 0;
  return value;
}

bool ChecksumHolds(const char* header) {
  auto stored = Number(header + 148, 8);
  if (!stored) return false;
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < kBlock; ++i) {
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(header[i]);
  }
  return sum == *stored;
}

bool AllZero(const char* block) {
  for (std::size_t i = 0; i < kBlock; ++i) {
    if (block[i] != 0) return false;
  }
  return true;
}

// What a pax header says about the next member.
struct PaxValues {
  std::optional<std::string> path, linkpath;
  std::optional<std::uint64_t> size, uid, gid;
  std::optional<std::int64_t> mtime;
};

std::optional<std::uint64_t> Decimal(const std::string& text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

Result<void> ReadPax(std::string_view data, PaxValues& pax) {
  while (!data.empty()) {
    std::size_t space = data.find(' ');
    if (space == std::string_view::npos) return Error("a pax record without a length");
    auto length = Decimal(std::string(data.substr(0, space)));
    if (!length || *length <= space + 1 || *length > data.size() || data[*length - 1] != '\n') {
      return Error("a pax record with a wrong length");
    }
    std::string_view record = data.substr(space + 1, *length - space - 2);
    data.remove_prefix(*length);
    std::size_t equals = record.find('=');
    if (equals == std::string_view::npos) return Error("a pax record without '='");
    std::string key(record.substr(0, equals));
    std::string value(record.substr(equals + 1));
    if (key == "path") {
      pax.path = value;
    } else if (key == "linkpath") {
      pax.linkpath = value;
    } else if (key == "size" || key == "uid" || key == "gid") {
      auto number = Decimal(value);
      if (!number) return Error("a pax " + key + " that is not a number");
      (key == "size" ? pax.size : key == "uid" ? pax.uid : pax.gid) = number;
    } else if (key == "mtime") {
      auto number = Decimal(value.substr(0, value.find('.')));
      if (number) pax.mtime = static_cast<std::int64_t>(*number);
    }
  }
  return Ok();
}

TarEntry::Kind KindOf(char type) {
  switch (type) {
    case '0': case '\0': case '7': return TarEntry::kFile;
    case '5': return TarEntry::kFolder;
    case '2': return TarEntry::kSymlink;
    case '1': return TarEntry::kHardlink;
    default: return TarEntry::kOther;
  }
}

}  // namespace

Result<std::vector<TarEntry>> ReadTar(std::string_view tar) {
  std::vector<TarEntry> entries;
  PaxValues pax;
  std::optional<std::string> long_name, long_link;
  std::size_t at = 0;
  while (true) {
    if (at == tar.size()) break;  // some writers leave out the end blocks
    if (tar.size() - at < kBlock) return Error("the tar stream ends inside a header");
    const char* header = tar.data() + at;
    if (AllZero(header)) break;
    std::string where = "the tar member at byte " + std::to_string(at);
    if (!ChecksumHolds(header)) return Error(where + " has a wrong checksum");
    auto size = Number(header + 124, 12);
    auto mode = Number(header + 100, 8);
    auto uid = Number(header + 108, 8);
    auto gid = Number(header + 116, 8);
    auto mtime = Number(header + 136, 12);
    if (!size || !mode || !uid || !gid || !mtime) return Error(where + " has a field that is not a number");
    char type = header[156];
    if (type == 'x' || type == 'g' || type == 'L' || type == 'K') {
      // A meta member describes the next one; its size is its own.
    } else if (pax.size) {
      size = pax.size;
    }
    at += kBlock;
    if (*size > tar.size() - at) return Error(where + " says it holds more than the stream has");
    std::string_view data = tar.substr(at, *size);
    at += (*size + kBlock - 1) / kBlock * kBlock;
    if (at > tar.size()) at = tar.size();
    if (type == 'x') {
      if (auto ok = ReadPax(data, pax); !ok) return ok.error().Context(where);
      continue;
    }
    if (type == 'g') continue;  // global values: nothing the engines set that matters here
    if (type == 'L' || type == 'K') {
      std::string text(data.substr(0, data.find('\0')));
      (type == 'L' ? long_name : long_link) = text;
      continue;
    }
    TarEntry entry;
    entry.kind = KindOf(type);
    std::string name = Field(header, 100);
    // POSIX ustar ("ustar\0") has a prefix field; GNU's magic ("ustar  ") uses it otherwise.
    if (std::memcmp(header + 257, "ustar\0", 6) == 0) {
      std::string prefix = Field(header + 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    entry.path = pax.path ? *pax.path : long_name ? *long_name : name;
    std::string link = pax.linkpath ? *pax.linkpath : long_link ? *long_link : Field(header + 157, 100);
    entry.mode = static_cast<unsigned>(*mode & 07777);
    entry.uid = static_cast<std::uint32_t>(pax.uid ? *pax.uid : *uid);
    entry.gid = static_cast<std::uint32_t>(pax.gid ? *pax.gid : *gid);
    entry.mtime = pax.mtime ? *pax.mtime : static_cast<std::int64_t>(*mtime);
    if (entry.kind == TarEntry::kFile) entry.content = std::string(data);
    if (entry.kind == TarEntry::kSymlink || entry.kind == TarEntry::kHardlink) entry.content = link;
    entries.push_back(std::move(entry));
    pax = {};
    long_name.reset();
    long_link.reset();
  }
  return entries;
}

}  // namespace corral::launcher
