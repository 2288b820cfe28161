#include "netfilter/forge/pack_reader.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <unordered_set>

#include "netfilter/forge/pack_object.h"

namespace corral::netfilter::forge {
namespace {

// Skipped objects inflate into this, a piece at a time, and are dropped.
constexpr std::size_t kScratchBytes = 64 << 10;
// A kept object may inflate to at most this many times its compressed bytes
// past the first MiB: commits are text, and a few bytes that inflate to many
// are a bomb, not a commit.
constexpr uint64_t kMaxKeptRatio = 100;
constexpr uint64_t kRatioAllowance = 1 << 20;
// What a kept entry costs beyond its bytes (map nodes, strings), roughly.
constexpr std::size_t kEntryOverhead = 64;
constexpr std::size_t kPackHeaderBytes = 12;
// An object header is a type and a size of at most 64 bits: 10 bytes.
constexpr int kMaxObjectHeaderBytes = 10;

enum ObjectType { kCommit = 1, kTree = 2, kBlob = 3, kTag = 4, kOfsDelta = 6, kRefDelta = 7 };

enum class Step { kPackHeader, kObjectHeader, kOfsBase, kRefBase, kData, kTrailer, kDone };

constexpr std::size_t kNoBase = SIZE_MAX;

struct KeptObject {
  int type;  // kCommit or kTag
  std::string content;
};

uint32_t BigEndian32(std::string_view bytes) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(bytes[i]);
  return value;
}

}  // namespace

struct PackReader::State {
  State(ObjectFormat format, std::size_t max_kept)
      : format(format),
        oid_bytes(OidBytes(format)),
        max_kept(max_kept),
        pack_hash(format),
        object_hash(format) {}
  ~State() {
    if (zlib_ready) inflateEnd(&zlib);
  }

  Result<void> Feed(std::string_view data);
  bool Ready();
  bool Fail(std::string detail);
  bool ReadPackHeader(std::string_view data, std::size_t& pos);
  bool ReadObjectHeader(unsigned char byte, uint64_t at);
  bool ReadOfsBase(unsigned char byte);
  bool ReadRefBase(std::string_view data, std::size_t& pos);
  bool StartData();
  bool Inflate(std::string_view data, std::size_t& pos);
  bool EndObject();
  bool Keep(int type, std::string content);
  bool ReadTrailer(std::string_view data, std::size_t& pos);

  const ObjectFormat format;
  const std::size_t oid_bytes;
  const std::size_t max_kept;
  Hasher pack_hash;    // every byte before the trailer
  Hasher object_hash;  // oids of kept objects
  z_stream zlib{};
  bool zlib_ready = false;
  std::unique_ptr<unsigned char[]> scratch;
  std::optional<Error> failure;

  Step step = Step::kPackHeader;
  uint64_t chunk_offset = 0;  // pack offset of the bytes being fed
  std::string fixed;          // the pack header, a base oid or the trailer, as it arrives
  uint32_t objects_left = 0;

  // The object being read.
  uint64_t object_offset = 0;
  int type = 0;
  uint64_t size = 0;  // inflated size its header claims
  int header_bytes = 0;
  uint64_t distance = 0;       // OFS_DELTA: how far back its base starts
  std::size_t base = kNoBase;  // the kept object a delta applies to
  bool keep = false;
  uint64_t inflated = 0, compressed = 0;
  std::string building;

  std::vector<uint64_t> offsets;  // where each object starts, ascending
  std::vector<KeptObject> kept;
  std::unordered_map<uint64_t, std::size_t> kept_at_offset;
  std::unordered_map<std::string, std::size_t> kept_by_oid;
  std::size_t kept_bytes = 0;
  CommitGraph commits;
};

bool PackReader::State::Fail(std::string detail) {
  failure = Error("git pack: " + detail);
  return false;
}

bool PackReader::State::Ready() {
  if (zlib_ready) return true;
  if (!pack_hash.ok() || !object_hash.ok()) return Fail("OpenSSL could not set up its digest");
  if (inflateInit(&zlib) != Z_OK) return Fail("zlib could not start");
  zlib_ready = true;
  scratch = std::make_unique<unsigned char[]>(kScratchBytes);
  fixed.reserve(32);
  return true;
}

Result<void> PackReader::State::Feed(std::string_view data) {
  if (failure || !Ready()) return *failure;
  std::size_t pos = 0, hashed = 0;
  bool hashing = step < Step::kTrailer;
  bool ok = true;
  while (ok && pos < data.size()) {
    unsigned char byte = static_cast<unsigned char>(data[pos]);
    switch (step) {
      case Step::kPackHeader: ok = ReadPackHeader(data, pos); break;
      case Step::kObjectHeader: ok = ReadObjectHeader(byte, chunk_offset + pos++); break;
      case Step::kOfsBase:
        ++pos;
        ok = ReadOfsBase(byte);
        break;
      case Step::kRefBase: ok = ReadRefBase(data, pos); break;
      case Step::kData: ok = Inflate(data, pos); break;
      case Step::kTrailer:
        if (hashing) pack_hash.Update(data.data() + hashed, pos - hashed);
        hashing = false;
        ok = ReadTrailer(data, pos);
        break;
      case Step::kDone: ok = Fail("bytes follow the pack's checksum"); break;
    }
  }
  if (!ok) return *failure;
  if (hashing) pack_hash.Update(data.data() + hashed, pos - hashed);
  chunk_offset += data.size();
  return Ok();
}

bool PackReader::State::ReadPackHeader(std::string_view data, std::size_t& pos) {
  std::size_t take = std::min(kPackHeaderBytes - fixed.size(), data.size() - pos);
  fixed.append(data.substr(pos, take));
  pos += take;
  if (fixed.size() < kPackHeaderBytes) return true;
  if (fixed.compare(0, 4, "PACK") != 0) return Fail("does not start with PACK");
  uint32_t version = BigEndian32(fixed.substr(4));
  if (version != 2 && version != 3) {
    return Fail("version " + std::to_string(version) + " is not 2 or 3");
  }
  objects_left = BigEndian32(fixed.substr(8));
  fixed.clear();
  step = objects_left > 0 ? Step::kObjectHeader : Step::kTrailer;
  return true;
}

// Type in bits 4-6 of the first byte, size in its low 4 bits and then 7 bits
// a byte, least significant first; the top bit says another byte follows.
bool PackReader::State::ReadObjectHeader(unsigned char byte, uint64_t at) {
  if (header_bytes == 0) {
    object_offset = at;
    type = (byte >> 4) & 7;
    size = byte & 15;
  } else {
    int shift = 4 + 7 * (header_bytes - 1);
    uint64_t bits = byte & 0x7f;
    if (header_bytes >= kMaxObjectHeaderBytes || (shift > 57 && (bits >> (64 - shift)) != 0)) {
      return Fail("object size at offset " + std::to_string(object_offset) + " overflows");
    }
    size |= bits << shift;
  }
  ++header_bytes;
  if (byte & 0x80) return true;
  if (type != kCommit && type != kTree && type != kBlob && type != kTag && type != kOfsDelta &&
      type != kRefDelta) {
    return Fail("object at offset " + std::to_string(object_offset) + " has invalid type " +
                std::to_string(type));
  }
  offsets.push_back(object_offset);
  kept_bytes += sizeof(uint64_t);
  if (kept_bytes > max_kept) return Fail("has more objects than corral can check");
  header_bytes = 0;
  distance = 0;
  base = kNoBase;
  if (type == kOfsDelta) step = Step::kOfsBase;
  if (type == kRefDelta) step = Step::kRefBase;
  return step == Step::kObjectHeader ? StartData() : true;
}

// git's offset encoding: 7 bits a byte, most significant first, each
// continuation adding one so that no two encodings mean the same distance.
bool PackReader::State::ReadOfsBase(unsigned char byte) {
  if (header_bytes++ > 0) {
    if ((distance + 1) >> 57 != 0) return Fail("delta base offset overflows");
    distance = (distance + 1) << 7;
  }
  distance |= byte & 0x7f;
  if (byte & 0x80) return true;
  header_bytes = 0;
  if (distance == 0 || distance > object_offset ||
      !std::binary_search(offsets.begin(), offsets.end() - 1, object_offset - distance)) {
    return Fail("delta at offset " + std::to_string(object_offset) +
                " names a base that is not an earlier object");
  }
  auto found = kept_at_offset.find(object_offset - distance);
  if (found != kept_at_offset.end()) base = found->second;
  return StartData();
}

// The base by oid. One outside the pack (a thin pack's), a blob or a tree is
// not kept: the delta is skipped, and a commit it might make stays unknown.
bool PackReader::State::ReadRefBase(std::string_view data, std::size_t& pos) {
  std::size_t take = std::min(oid_bytes - fixed.size(), data.size() - pos);
  fixed.append(data.substr(pos, take));
  pos += take;
  if (fixed.size() < oid_bytes) return true;
  auto found = kept_by_oid.find(Hex(fixed));
  if (found != kept_by_oid.end()) base = found->second;
  fixed.clear();
  return StartData();
}

bool PackReader::State::StartData() {
  keep = type == kCommit || type == kTag || base != kNoBase;
  if (keep && size > max_kept - std::min(kept_bytes, max_kept)) {
    return Fail("commit, tag or delta at offset " + std::to_string(object_offset) +
                " is larger than corral can check");
  }
  if (inflateReset(&zlib) != Z_OK) return Fail("zlib could not restart");
  inflated = compressed = 0;
  building.clear();
  step = Step::kData;
  return true;
}

// The compressed length is not stored: the object ends where its zlib stream
// does, so every object is inflated, kept ones into `building`.
bool PackReader::State::Inflate(std::string_view data, std::size_t& pos) {
  zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + pos));
  zlib.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size() - pos, UINT_MAX));
  const std::size_t given = zlib.avail_in;
  for (;;) {
    zlib.next_out = scratch.get();
    zlib.avail_out = kScratchBytes;
    uInt in_before = zlib.avail_in;
    int rc = inflate(&zlib, Z_NO_FLUSH);
    std::size_t produced = kScratchBytes - zlib.avail_out;
    compressed += in_before - zlib.avail_in;
    inflated += produced;
    if (inflated > size) {
      return Fail("object at offset " + std::to_string(object_offset) +
                  " inflates to more than its header says");
    }
    if (keep) building.append(reinterpret_cast<const char*>(scratch.get()), produced);
    if (rc == Z_STREAM_END) {
      pos += given - zlib.avail_in;
      return EndObject();
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Fail("object at offset " + std::to_string(object_offset) + " is not valid zlib");
    }
    if (zlib.avail_out == 0) continue;  // more output may be waiting
    if (zlib.avail_in != 0) return Fail("zlib stopped before the end of its input");
    pos += given;  // all taken: the stream goes on in the next bytes
    return true;
  }
}

bool PackReader::State::EndObject() {
  if (inflated != size) {
    return Fail("object at offset " + std::to_string(object_offset) +
                " inflates to less than its header says");
  }
  // Checked at the end, where it does not depend on how the bytes were split;
  // until then the claimed size, within the budget, bounds the memory.
  if (keep && inflated > kMaxKeptRatio * compressed + kRatioAllowance) {
    return Fail("object at offset " + std::to_string(object_offset) + " inflates too far");
  }
  bool ok = true;
  if (type == kCommit || type == kTag) {
    ok = Keep(type, std::move(building));
  } else if (base != kNoBase) {
    auto result =
        ApplyDelta(kept[base].content, building, max_kept - std::min(kept_bytes, max_kept));
    if (!result.ok()) {
      return Fail("delta at offset " + std::to_string(object_offset) + ": " +
                  result.error().message);
    }
    ok = Keep(kept[base].type, std::move(*result));
  }
  if (building.capacity() > kScratchBytes) std::string().swap(building);
  step = --objects_left > 0 ? Step::kObjectHeader : Step::kTrailer;
  return ok;
}

bool PackReader::State::Keep(int kept_type, std::string content) {
  std::string oid = ObjectId(object_hash, kept_type == kCommit ? "commit" : "tag", content);
  kept_bytes += content.size() + oid.size() + kEntryOverhead;
  if (kept_type == kCommit) {
    auto parents = ParseParents(content, format);
    if (!parents.ok()) return Fail("commit " + oid + ": " + parents.error().message);
    kept_bytes += parents->size() * (oid.size() + kEntryOverhead);
    commits.insert_or_assign(oid, std::move(*parents));
  }
  if (kept_bytes > max_kept) {
    return Fail(
        "its commits and tags are more than corral checks in one push; "
        "push fewer commits at a time");
  }
  kept_at_offset.emplace(object_offset, kept.size());
  kept_by_oid.emplace(std::move(oid), kept.size());
  kept.push_back({kept_type, std::move(content)});
  return true;
}

bool PackReader::State::ReadTrailer(std::string_view data, std::size_t& pos) {
  std::size_t take = std::min(oid_bytes - fixed.size(), data.size() - pos);
  fixed.append(data.substr(pos, take));
  pos += take;
  if (fixed.size() < oid_bytes) return true;
  if (pack_hash.Finish() != fixed) return Fail("checksum does not match its contents");
  step = Step::kDone;
  return true;
}

PackReader::PackReader(ObjectFormat format, std::size_t max_kept_bytes)
    : state_(std::make_unique<State>(format, max_kept_bytes)) {}
PackReader::~PackReader() = default;
PackReader::PackReader(PackReader&&) noexcept = default;
PackReader& PackReader::operator=(PackReader&&) noexcept = default;

Result<void> PackReader::Feed(std::string_view bytes) { return state_->Feed(bytes); }

Result<void> PackReader::Finish() {
  if (state_->failure) return *state_->failure;
  if (state_->step != Step::kDone) {
    state_->Fail("the body ended before the pack and its checksum were complete");
    return *state_->failure;
  }
  return Ok();
}

bool PackReader::done() const { return state_->step == Step::kDone && !state_->failure; }

const CommitGraph& PackReader::commits() const { return state_->commits; }

Ancestry Descends(const CommitGraph& commits, const std::string& new_oid,
                  const std::string& old_oid) {
  if (new_oid.empty() || old_oid.empty()) return Ancestry::kNotProven;
  std::vector<const std::string*> todo = {&new_oid};
  std::unordered_set<std::string_view> seen;
  while (!todo.empty()) {
    const std::string& oid = *todo.back();
    todo.pop_back();
    if (oid == old_oid) return Ancestry::kDescends;
    if (!seen.insert(oid).second) continue;
    auto found = commits.find(oid);
    if (found == commits.end()) continue;  // outside the pack: unknown, not descent
    for (const std::string& parent : found->second) todo.push_back(&parent);
  }
  return Ancestry::kNotProven;
}

}  // namespace corral::netfilter::forge
