// libFuzzer target for the pack reader: any bytes, as a SHA-1 and as a
// SHA-256 pack, fed whole and cut in pieces, and again with the last bytes
// made the right checksum, so mutations get past it to the commits. Crashes,
// sanitizer reports and broken invariants (abort) are findings. Seeds:
// fuzz/corpus/forge_pack/.
#include <openssl/evp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "netfilter/forge/pack_reader.h"

namespace {

using namespace corral::netfilter::forge;

// Small, so the budget's refusals are reached too.
constexpr std::size_t kMaxKept = 1 << 20;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Read {
  bool ok = false;
  bool done = false;
  CommitGraph commits;
};

// Feeds `data` cut at `cuts` (ascending, each at most data.size()), then Finish.
Read ReadCut(std::string_view data, ObjectFormat format, const std::vector<std::size_t>& cuts) {
  PackReader reader(format, kMaxKept);
  bool ok = true;
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    ok = ok && reader.Feed(data.substr(at, cut - at)).ok();
    at = cut;
  }
  ok = ok && reader.Feed(data.substr(at)).ok();
  ok = ok && reader.Finish().ok();
  Check(!ok || reader.done());
  return {ok, reader.done(), ok ? reader.commits() : CommitGraph{}};
}

bool IsOid(const std::string& oid, std::size_t hex_len) {
  if (oid.size() != hex_len) return false;
  for (char c : oid) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void FuzzFormat(std::string_view data, ObjectFormat format) {
  std::size_t size = data.size();
  Read whole = ReadCut(data, format, {});
  // Cuts inside the header, mid-pack, and just before where a trailer starts.
  std::size_t tail = size - std::min<std::size_t>(size, format == ObjectFormat::kSha1 ? 20 : 32);
  std::vector<std::size_t> cuts = {5, size / 3, size / 2 + 1, tail};
  for (std::size_t& cut : cuts) cut = std::min(cut, size);
  std::sort(cuts.begin(), cuts.end());
  Read split = ReadCut(data, format, cuts);
  Check(split.ok == whole.ok && split.done == whole.done && split.commits == whole.commits);
  if (size <= 512) {  // and a byte at a time
    std::vector<std::size_t> every(size);
    for (std::size_t i = 0; i < size; ++i) every[i] = i;
    Read bytes = ReadCut(data, format, every);
    Check(bytes.ok == whole.ok && bytes.done == whole.done && bytes.commits == whole.commits);
  }
  if (!whole.ok) return;
  std::size_t hex_len = format == ObjectFormat::kSha1 ? 40 : 64;
  for (const auto& [oid, parents] : whole.commits) {
    Check(IsOid(oid, hex_len));
    for (const std::string& parent : parents) {
      Check(IsOid(parent, hex_len));
      Check(Descends(whole.commits, oid, parent) == Ancestry::kDescends);
    }
  }
  // Bytes after a complete pack are refused.
  if (size < 4096) Check(!ReadCut(std::string(data) + "x", format, {size}).ok);
}

// `data` with its last bytes replaced by the checksum of the rest.
std::string Resealed(std::string_view data, ObjectFormat format) {
  std::size_t hash_len = format == ObjectFormat::kSha1 ? 20 : 32;
  if (data.size() < 12 + hash_len) return {};
  std::string sealed(data.substr(0, data.size() - hash_len));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  EVP_Digest(sealed.data(), sealed.size(), digest, &digest_len,
             format == ObjectFormat::kSha1 ? EVP_sha1() : EVP_sha256(), nullptr);
  return sealed.append(reinterpret_cast<const char*>(digest), digest_len);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, std::size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  for (ObjectFormat format : {ObjectFormat::kSha1, ObjectFormat::kSha256}) {
    FuzzFormat(data, format);
    std::string sealed = Resealed(data, format);
    if (!sealed.empty() && sealed != data) FuzzFormat(sealed, format);
  }
  return 0;
}
