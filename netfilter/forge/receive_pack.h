// What a `git push` over smart HTTP (protocol v0/v1) asks of the git host,
// read in the proxy: the ref advertisement it pushes against, the ref updates
// at the start of the receive-pack request, a judge of those updates, and the
// report-status answer that makes the user's git print each refusal.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge {

// One command of a push. Oids are lower-case hex, all of one length in a
// request: 40 (SHA-1) or 64 (SHA-256); all zeros is "no object".
struct RefUpdate {
  std::string old_oid, new_oid, ref;
  bool Creates() const;  // old is all zeros
  bool Deletes() const;  // new is all zeros
  bool operator==(const RefUpdate&) const = default;
};

// Reads the command list at the start of a receive-pack request body as it
// streams in, holding only that part (the packfile after it is not kept).
class ReceivePackCommands {
 public:
  static constexpr std::size_t kMaxCommands = 10000;
  static constexpr std::size_t kMaxBytes = 4 << 20;  // command list and push options

  enum class Progress { kNeedMore, kDone, kError };

  // Reads the next bytes of the body. Once kDone or kError, further calls
  // change nothing and return the same.
  Progress Feed(std::string_view bytes);

  Progress progress() const { return progress_; }
  const Error& error() const { return error_; }  // set when kError

  // Valid once kDone.
  const std::vector<RefUpdate>& updates() const { return updates_; }
  // As sent on the first command: "report-status-v2", "agent=git/2.39.5", ...
  const std::set<std::string>& capabilities() const { return capabilities_; }
  const std::vector<std::string>& shallow() const { return shallow_; }
  const std::vector<std::string>& push_options() const { return push_options_; }
  bool ExpectsPack() const;  // a packfile follows: some command is not a delete

  // Bytes from the start of the body that are the command list and push options:
  // the packfile starts there.
  std::size_t consumed() const { return consumed_; }
  // Bytes at the end of the Feed() that returned kDone that come after them:
  // the pack's start is `last_fed.substr(last_fed.size() - leftover())`.
  std::size_t leftover() const { return leftover_; }

 private:
  void Take(std::string_view payload, bool flush);
  void TakeCommand(std::string_view line);
  void Fail(std::string message);

  enum class Section { kCommands, kPushOptions };

  Progress progress_ = Progress::kNeedMore;
  Section section_ = Section::kCommands;
  Error error_;
  std::string pending_;  // a packet cut by the end of a Feed()
  std::size_t consumed_ = 0;
  std::size_t leftover_ = 0;
  std::size_t oid_size_ = 0;  // set by the first oid
  std::vector<RefUpdate> updates_;
  std::set<std::string> capabilities_;
  std::vector<std::string> shallow_;
  std::vector<std::string> push_options_;
  std::set<std::string> refs_;  // named so far, to refuse a ref named twice
};

// The body of `GET info/refs?service=git-upload-pack|git-receive-pack`.
struct Advertisement {
  std::string service;                        // "git-upload-pack" or "git-receive-pack"
  std::map<std::string, std::string> refs;    // ref (or "HEAD") -> oid
  std::map<std::string, std::string> peeled;  // tag ref -> oid of what it points at (`^{}`)
  std::set<std::string> capabilities;
  std::string head_target;    // from symref=HEAD:refs/heads/main, or ""
  std::string object_format;  // as advertised; "sha1" when not named
};

// Reads a protocol v0/v1 advertisement; protocol v2 and anything malformed are errors.
Result<Advertisement> ParseAdvertisement(std::string_view body);

// The whole body (application/x-git-receive-pack-result) that answers a push
// refused as a whole: "unpack ok", then "ng <ref> <reason>" for every update in
// order (refs not in `refused` are "not pushed" because another ref was), in
// side band 1 when the client asked side-band(-64k), with a `remote: corral:`
// line on band 2. Git asks report-status(-v2) whenever the host offers it; a
// client that asks neither gets the same body, shows no reasons and exits 1
// (git 2.39 with side band then even prints the ref as pushed, after "error in
// sideband demultiplexer"): a caller may prefer an HTTP 403 for such a client.
std::string RefusalReport(const std::vector<RefUpdate>& updates,
                          const std::map<std::string, std::string>& refused,
                          const std::set<std::string>& client_capabilities);

struct PushRules {
  std::set<std::string> protected_refs;  // full names: "refs/heads/main"
};

// ref -> reason for each update that may not happen while nobody watches:
// deletions, moving an existing tag, writes to protected refs, and updates
// `is_fast_forward` says are not fast-forwards (asked only for updates of refs
// not already refused, with old and new both present).
std::map<std::string, std::string> JudgeUpdates(
    const std::vector<RefUpdate>& updates, const PushRules& rules,
    const std::function<bool(const RefUpdate&)>& is_fast_forward);

// Whether `ref` is a name git would write: "refs/...", as `git check-ref-format`.
bool IsValidRefName(std::string_view ref);

}  // namespace corral::netfilter::forge
