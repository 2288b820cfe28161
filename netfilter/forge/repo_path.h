// Which repository a request to the git host, or a remote in .git/config, is
// for: resolved the way the forge (GitHub, GitLab, Gitea) resolves it, and
// refused, never guessed, where that cannot be done exactly.
#pragma once

#include <compare>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge {

// A repository as the forge resolves it: segments joined with '/', lower case
// (forges match owner and name without regard to case), one ".git" removed
// from the last segment. "owner/name", or "group/sub/name" on GitLab.
struct RepoPath {
  std::string path;
  auto operator<=>(const RepoPath&) const = default;
};

// A config entry of `forge.repositories`: "owner/name", "owner/name.git",
// "/group/sub/name/". Each segment 1-100 of [A-Za-z0-9._-], not "." or "..".
Result<RepoPath> ParseRepoPath(std::string_view text);

// The repository named by these (already decoded) segments, each checked as
// ParseRepoPath checks them; at least two.
Result<RepoPath> RepoPathFromSegments(std::span<const std::string> segments);

// An origin-form request target as the server sees it: the path's segments
// percent-decoded, with empty and dot segments resolved; the query as written.
struct Target {
  std::vector<std::string> segments;
  std::string query;
};

// Refuses what servers could read two ways: an escaped '/', '\\', '%', a
// control or non-ASCII byte, '#', ".." above the root (see repo_path.cc).
Result<Target> ResolveTarget(std::string_view origin_form_target);

// What a request of git's HTTP protocols (smart, dumb, LFS) does.
enum class GitOp {
  kAdvertiseUpload,   // GET info/refs?service=git-upload-pack
  kAdvertiseReceive,  // GET info/refs?service=git-receive-pack: a push begins
  kUploadPack,        // POST git-upload-pack: a fetch
  kReceivePack,       // POST git-receive-pack: a push
  kLfsBatch,          // POST info/lfs/objects/batch: see LfsBatchIsUpload
  kLfsLocks,          // info/lfs/locks and below
  kLfsObject,         // info/lfs/objects/<oid>
  kDumb,              // the dumb protocol's reads: info/refs, HEAD, objects/...
};

struct GitRequest {
  RepoPath repo;
  GitOp op;
  bool write;  // for kLfsBatch always false: the body decides
  bool operator==(const GitRequest&) const = default;
};

// The git request this is, nullopt for any other request (a web page, the
// API), or an error for a git request that is malformed or ambiguous.
Result<std::optional<GitRequest>> ClassifyGitRequest(std::string_view method, const Target& target);

// Whether an LFS batch request body asks to upload (true) or download (false).
Result<bool> LfsBatchIsUpload(std::string_view json_body);

// A remote's URL from .git/config, as the host the proxy sees and the
// repository an HTTPS request for it would name.
struct Remote {
  std::string host;    // "github.com:443", "[::1]:8443": lower case, always a port
  std::string scheme;  // "https", "http", "ssh" (also scp-like), "git"
  RepoPath repo;       // the same over every scheme: git@h:o/r.git is https://h/o/r
  bool operator==(const Remote&) const = default;
};

// https://, http://, ssh:// (git+ssh://), git:// URLs and scp-like
// [user@]host:owner/name.git. Local paths, file:// and helpers are errors.
Result<Remote> ParseRemoteUrl(std::string_view url);

}  // namespace corral::netfilter::forge
