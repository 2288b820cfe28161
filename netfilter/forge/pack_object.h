// The pieces of git's object model that PackReader needs, apart from the
// streaming: object ids, delta application and a commit's parents. Private to
// netfilter/forge/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "netfilter/forge/pack_reader.h"

struct evp_md_ctx_st;
struct evp_md_st;

namespace corral::netfilter::forge {

// Bytes of a raw object id: 20 for SHA-1, 32 for SHA-256.
std::size_t OidBytes(ObjectFormat format);

// Lower-case hex of raw bytes.
std::string Hex(std::string_view raw);

// A reusable SHA-1 or SHA-256 context (OpenSSL's EVP), fetched once.
class Hasher {
 public:
  explicit Hasher(ObjectFormat format);
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  bool ok() const { return ctx_ != nullptr; }  // false when OpenSSL could not set it up
  void Start();
  void Update(const void* data, std::size_t size);
  std::string Finish();  // the raw digest; Start() again to reuse

 private:
  evp_md_st* md_ = nullptr;
  evp_md_ctx_st* ctx_ = nullptr;
};

// The object id (lower-case hex) git gives `content` of `type` ("commit",
// "tag", ...): the hash of "<type> <size>\0<content>".
std::string ObjectId(Hasher& hasher, std::string_view type, std::string_view content);

// Applies a git delta (source size, result size, then copy/insert
// instructions) to `base`. Every copy is bounds-checked; a result over
// `max_result` bytes, or a delta not exactly consumed, is an error.
Result<std::string> ApplyDelta(std::string_view base, std::string_view delta,
                               std::size_t max_result);

// A commit's parent ids (lower-case hex), read as git reads them: the
// "parent" lines right after the first line, "tree <oid>". A "parent" header
// anywhere else, or a malformed id, is an error: git would not see it as a
// parent, so reading it differently could vouch for history git does not have.
Result<std::vector<std::string>> ParseParents(std::string_view commit, ObjectFormat format);

}  // namespace corral::netfilter::forge
