// Reads the pack a `git push` sends, as it streams through the proxy, and
// keeps what the fast-forward check needs: every commit in it and its parents.
// The pack can be hundreds of MB, so it is never held whole: blobs and trees
// are inflated only to find where they end; commits and tags are kept, so a
// commit sent as a delta against one of them can be rebuilt. The reader fails
// closed: anything it cannot read exactly is an error.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge {

enum class ObjectFormat { kSha1, kSha256 };

// A commit's oid (lower-case hex) -> its parents' oids, in the commit's order.
using CommitGraph = std::unordered_map<std::string, std::vector<std::string>>;

class PackReader {
 public:
  // `max_kept_bytes` caps what is kept (commits, tags, object offsets): a pack
  // that needs more is an error, never a larger allocation.
  explicit PackReader(ObjectFormat format = ObjectFormat::kSha1,
                      std::size_t max_kept_bytes = 64 << 20);
  ~PackReader();
  PackReader(PackReader&&) noexcept;
  PackReader& operator=(PackReader&&) noexcept;

  // The next bytes of the pack, split anywhere. Once it fails it stays failed.
  Result<void> Feed(std::string_view bytes);
  // The body ended: an error unless the whole pack, checksum included, was read.
  Result<void> Finish();
  // The pack's checksum has been read and matched.
  bool done() const;
  // Every commit in the pack, by the oid the reader computed from its bytes.
  const CommitGraph& commits() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

enum class Ancestry { kDescends, kNotProven };

// Walks parents from `new_oid` through `commits` only: kDescends when
// `old_oid` is reached (or is `new_oid`). A commit not in `commits` ends its
// path, so a history the pack does not show is never taken as descent.
Ancestry Descends(const CommitGraph& commits, const std::string& new_oid,
                  const std::string& old_oid);

}  // namespace corral::netfilter::forge
