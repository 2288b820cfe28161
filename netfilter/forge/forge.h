// netfilter/forge/: the project's git host and forge API, judged request by
// request (docs/forge.md). Git's smart HTTP and the API reach the project's
// repositories; other repositories are read without the user's token or
// refused; while nobody watches, a push may not delete a ref, rewrite
// history or write a protected branch. Pure judgements over bytes the server
// hands in: no sockets here. The room's one public header.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge {

// A commit's oid (lower-case hex) -> its parents' oids.
using CommitGraph = std::unordered_map<std::string, std::vector<std::string>>;

// One forge the project's repositories are on.
struct Forge {
  std::string git_host;  // "github.com:443": lower case, with the port
  // The forge's API host ("api.github.com:443", or the GitHub Enterprise host
  // itself); "" when corral does not scope this forge's API (GitLab, Gitea).
  std::string api_host;
  bool enterprise = false;                // GitHub Enterprise: the API under /api/v3 and /api/graphql
  std::vector<std::string> repositories;  // the project's on this forge: "owner/name"
};

struct ForgeConfig {
  std::vector<Forge> forges;
  std::vector<std::string> protected_branches;  // besides each repository's default branch
  bool other_reads = true;  // reads of other repositories go, without the user's token
  bool history = true;      // the history rules hold while nobody watches
  bool empty() const { return forges.empty(); }
};

// The config as JSON, and back (corral proxy --forge-file, the sidecar);
// the parse refuses unknown keys and wrong types, naming them.
std::string ForgeConfigJson(const ForgeConfig& config);
Result<ForgeConfig> ParseForgeConfigJson(std::string_view text);

// What to do with one request to a forge host.
struct Judgement {
  enum class Action {
    kPass,      // forward it; `token` says whether the user's token may go with it
    kRefuse,    // answer 403 with `reason`
    kReadBody,  // read the (small) body whole and ask JudgeBody
    kPush,      // a receive-pack: stream its body through a PushCheck
  };
  Action action = Action::kRefuse;
  bool token = false;
  std::string repo;    // "owner/name" when the request names one
  std::string rule;    // for the log: "other-repository", "repo-delete", ...
  std::string reason;  // for the 403 body and the log; names what would allow it
};

// The repository a GraphQL node id belongs to ("owner/name"), "" when it
// belongs to none or cannot be told. The server resolves ids with the
// user's token and keeps the answers for the session.
using NodeRepository = std::function<std::string(const std::string& node_id)>;

class Scope {
 public:
  // Checks every host and repository; an error names the bad entry.
  static Result<std::shared_ptr<const Scope>> Make(ForgeConfig config);

  // A host ("name:port") whose requests are judged here: the proxy ends its TLS.
  bool Covers(std::string_view host_port) const;
  // The git host of a forge whose API is `host_port` ("" when it is none).
  bool IsApiHost(std::string_view host_port) const;

  // Judges a request by its head. `target` is origin-form ("/o/r.git/info/refs?...").
  Judgement Judge(std::string_view host_port, std::string_view method, std::string_view target,
                  bool unattended) const;
  // A kReadBody request, with its body.
  Judgement JudgeBody(std::string_view host_port, std::string_view method, std::string_view target,
                      std::string_view body, bool unattended, const NodeRepository& node_repository) const;

  const ForgeConfig& config() const { return config_; }

 private:
  explicit Scope(ForgeConfig config) : config_(std::move(config)) {}
  const Forge* ForgeOf(std::string_view host_port, bool* api) const;
  std::set<std::string> ProjectRepos(const Forge& forge) const;
  Judgement JudgeGit(const Forge& forge, std::string_view method, std::string_view target, bool unattended) const;
  Judgement JudgeApi(const Forge& forge, std::string_view method, std::string_view target, bool unattended) const;

  ForgeConfig config_;
};

// A push's body (POST .../git-receive-pack), streamed through while nobody
// watches: every byte is forwarded at once but a short tail, held until the
// body has ended and its ref updates are judged, so an origin that never
// gets the tail never gets a whole pack, and updates no ref.
class PushCheck {
 public:
  // `protected_refs`: "refs/heads/main", the default branch among them.
  explicit PushCheck(std::set<std::string> protected_refs);
  ~PushCheck();
  PushCheck(const PushCheck&) = delete;
  PushCheck& operator=(const PushCheck&) = delete;

  // The next bytes of the body; `forward` gets what may go on now.
  void Feed(std::string_view bytes, std::string& forward);

  struct Outcome {
    bool refused = false;
    std::string tail;           // to forward when the push may go
    std::string report;         // when refused: git's report-status answer, for a 200
    std::string reason;         // for the log: each refused ref and why, or the reading error
    std::vector<std::string> refs;  // every ref the push named
  };
  // Asked when the pushed commits do not prove an update a fast-forward:
  // the commits the forge holds between `wants` (where the walk left the
  // pack) and `have` (the old commit), or an error (then it is refused).
  using AskForge = std::function<Result<CommitGraph>(const std::vector<std::string>& wants, const std::string& have)>;
  // The body ended.
  Outcome Finish(const AskForge& ask_forge = nullptr);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Asking the forge for the commits between (PushCheck::AskForge): the body
// of a POST .../git-upload-pack, and the commits of its answer.
std::string UploadPackRequest(const std::vector<std::string>& wants, const std::string& have, bool sha256);
Result<CommitGraph> CommitsOfUploadPackAnswer(std::string_view answer, bool sha256);
// Where a walk from `new_oid` through `commits` leaves them: the commits it
// reached that are not among them.
std::vector<std::string> LeftThePack(const CommitGraph& commits, const std::string& new_oid);

// The default branch ("refs/heads/main") from the body of an upload-pack
// advertisement (GET info/refs?service=git-upload-pack, protocol v0), or "".
std::string DefaultBranchOf(std::string_view advertisement_body);
// The advertisement's path for the repository a push target names
// ("/o/r.git/git-receive-pack" -> "/o/r.git/info/refs?service=git-upload-pack").
std::string AdvertisementTarget(std::string_view receive_pack_target);

// "owner/name" as the forge resolves it ("Owner/Name.git" -> "owner/name"),
// or an error saying which form is expected: the config's forge.repositories.
Result<std::string> CanonicalRepository(std::string_view text);

// A git remote's URL as its forge host and repository: "git@github.com:o/r.git"
// -> {"github.com:443" (HTTPS, where the box's git is sent), "o/r", "ssh"}.
struct RemoteRepository {
  std::string https_host;  // "name:port" git over HTTPS reaches (an ssh remote's host on 443)
  std::string repository;  // "owner/name"
  std::string scheme;      // "https", "http", "ssh", "git"
  std::string host_name;   // the host alone, lower case
};
Result<RemoteRepository> RemoteOf(std::string_view url);

}  // namespace corral::netfilter::forge
