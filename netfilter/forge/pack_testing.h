// Test helpers for the pack reader: the packs real git made (testdata/packs/,
// see make_packs.sh there), and packs built by hand for bytes git never
// writes. Only the tests include this.
#pragma once

#include <gtest/gtest.h>
#include <openssl/sha.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

#include "netfilter/forge/pack_reader.h"

namespace corral::netfilter::forge::pack_testing {

inline std::string ReadPack(const std::string& name) {
  auto path = std::filesystem::path(CORRAL_SOURCE_DIR) / "netfilter" / "forge" / "testdata" / "packs" / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What a reader made of a pack fed in pieces of `piece` bytes.
struct Outcome {
  bool ok = false;
  std::string error;
  bool done = false;
  CommitGraph commits;
};

inline Outcome ReadInPieces(std::string_view pack, std::size_t piece,
                            ObjectFormat format = ObjectFormat::kSha1,
                            std::size_t max_kept = 64 << 20) {
  PackReader reader(format, max_kept);
  Outcome outcome;
  Result<void> result = Ok();
  for (std::size_t at = 0; at < pack.size() && result.ok(); at += piece) {
    result = reader.Feed(pack.substr(at, piece));
  }
  if (result.ok()) result = reader.Finish();
  outcome.ok = result.ok();
  if (!result.ok()) outcome.error = result.error().message;
  outcome.done = reader.done();
  outcome.commits = reader.commits();
  return outcome;
}

inline Outcome ReadWhole(std::string_view pack, ObjectFormat format = ObjectFormat::kSha1,
                         std::size_t max_kept = 64 << 20) {
  return ReadInPieces(pack, std::max<std::size_t>(pack.size(), 1), format, max_kept);
}

// `git rev-list --parents` output, one commit a line, as a CommitGraph.
inline CommitGraph FromRevList(std::string_view lines) {
  CommitGraph graph;
  std::size_t at = 0;
  while (at < lines.size()) {
    std::size_t end = std::min(lines.find('\n', at), lines.size());
    std::string_view line = lines.substr(at, end - at);
    at = end + 1;
    if (line.empty()) continue;
    std::size_t space = std::min(line.find(' '), line.size());
    std::vector<std::string>& parents = graph[std::string(line.substr(0, space))];
    while (space < line.size()) {
      std::size_t next = std::min(line.find(' ', space + 1), line.size());
      parents.emplace_back(line.substr(space + 1, next - space - 1));
      space = next;
    }
  }
  return graph;
}

inline std::string Unhex(std::string_view hex) {
  std::string raw;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    raw += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return raw;
}

inline std::string Sha1(std::string_view bytes) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

inline std::string Deflate(std::string_view data) {
  uLongf size = compressBound(data.size());
  std::string out(size, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &size,
            reinterpret_cast<const Bytef*>(data.data()), data.size(), 6);
  out.resize(size);
  return out;
}

// The pack-format object header: type, then the size 4 bits and 7 bits a byte.
inline std::string ObjectHeader(int type, uint64_t size) {
  std::string out(1, static_cast<char>(type << 4 | (size & 15)));
  size >>= 4;
  while (size != 0) {
    out.back() = static_cast<char>(out.back() | 0x80);
    out += static_cast<char>(size & 0x7f);
    size >>= 7;
  }
  return out;
}

enum { kCommitType = 1, kTreeType = 2, kBlobType = 3, kTagType = 4, kOfsType = 6, kRefType = 7 };

inline std::string Object(int type, std::string_view content) {
  return ObjectHeader(type, content.size()) + Deflate(content);
}

// An OFS_DELTA `distance` bytes after its base, in git's offset encoding.
inline std::string OfsDelta(uint64_t distance, std::string_view delta) {
  std::string offset(1, static_cast<char>(distance & 0x7f));
  while (distance >>= 7) offset.insert(0, 1, static_cast<char>(0x80 | (--distance & 0x7f)));
  return ObjectHeader(kOfsType, delta.size()) + offset + Deflate(delta);
}

inline std::string RefDelta(std::string_view base_hex, std::string_view delta) {
  return ObjectHeader(kRefType, delta.size()) + Unhex(base_hex) + Deflate(delta);
}

// "PACK", version, count, the objects, then the SHA-1 of it all.
inline std::string Seal(std::string_view objects, uint32_t count, uint32_t version = 2) {
  std::string pack = "PACK";
  for (uint32_t word : {version, count}) {
    for (int shift = 24; shift >= 0; shift -= 8) pack += static_cast<char>(word >> shift);
  }
  pack += objects;
  return pack + Sha1(pack);
}

// Delta pieces: a size varint, a copy from the base, an insert.
inline std::string DeltaSize(uint64_t size) {
  std::string out;
  do {
    out += static_cast<char>((size & 0x7f) | (size > 0x7f ? 0x80 : 0));
    size >>= 7;
  } while (size != 0);
  return out;
}

inline std::string Copy(uint32_t offset, uint32_t size) {
  std::string out(1, '\x80');
  for (int i = 0; i < 4; ++i) {
    if (offset >> (8 * i) & 0xff) {
      out[0] = static_cast<char>(out[0] | 1 << i);
      out += static_cast<char>(offset >> (8 * i));
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (size >> (8 * i) & 0xff) {
      out[0] = static_cast<char>(out[0] | 1 << (4 + i));
      out += static_cast<char>(size >> (8 * i));
    }
  }
  return out;
}

inline std::string Insert(std::string_view bytes) {
  return std::string(1, static_cast<char>(bytes.size())) + std::string(bytes);
}

}  // namespace corral::netfilter::forge::pack_testing
