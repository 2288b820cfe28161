// Which forge a host is, and the verdict on one request's head (and, where
// the head cannot tell, its small body): git's HTTP protocols on the git
// host, GitHub's REST and GraphQL APIs on its API host.
#include <algorithm>

#include "netfilter/forge/forge.h"
#include "netfilter/forge/github_rest.h"
#include "netfilter/forge/graphql.h"
#include "netfilter/forge/repo_path.h"

namespace corral::netfilter::forge {
namespace {

constexpr std::string_view kReposSetting = "forge.repositories";
constexpr std::string_view kOtherReadsSetting = "forge.other_reads: true";

Judgement Refuse(std::string rule, std::string reason, std::string repo = {}) {
  Judgement j;
  j.action = Judgement::Action::kRefuse;
  j.rule = std::move(rule);
  j.reason = std::move(reason);
  j.repo = std::move(repo);
  return j;
}

Judgement Pass(bool token, std::string rule, std::string repo = {}) {
  Judgement j;
  j.action = Judgement::Action::kPass;
  j.token = token;
  j.rule = std::move(rule);
  j.repo = std::move(repo);
  return j;
}

bool IsRead(std::string_view method) { return method == "GET" || method == "HEAD"; }

Result<void> CheckHost(const std::string& host, std::string_view what) {
  auto colon = host.rfind(':');
  if (host.empty() || colon == std::string::npos || colon == 0 || colon + 1 == host.size()) {
    return Error(std::string(what) + " '" + host + "' must be NAME:PORT, e.g. github.com:443");
  }
  return Ok();
}

// A repository other than the project's: reads go without the token where
// the config allows them; writes never go.
Judgement OtherRepository(const RepoPath& repo, bool write, bool other_reads) {
  if (write) {
    return Refuse("other-repository",
                  repo.path + " is not one of this project's repositories, and corral's proxy lets the box write "
                              "only to those (" + std::string(kReposSetting) + " adds one)",
                  repo.path);
  }
  if (!other_reads) {
    return Refuse("other-repository-read",
                  repo.path + " is not one of this project's repositories, and reads of other repositories are "
                              "off (" + std::string(kOtherReadsSetting) + " allows them without your token; " +
                              std::string(kReposSetting) + " adds one)",
                  repo.path);
  }
  return Pass(false, "other-repository-read", repo.path);
}

}  // namespace

Result<std::shared_ptr<const Scope>> Scope::Make(ForgeConfig config) {
  for (Forge& forge : config.forges) {
    if (auto ok = CheckHost(forge.git_host, "git host"); !ok) return ok.error();
    if (!forge.api_host.empty()) {
      if (auto ok = CheckHost(forge.api_host, "API host"); !ok) return ok.error();
    }
    for (std::string& repo : forge.repositories) {
      auto canonical = CanonicalRepository(repo);
      if (!canonical) return canonical.error().Context("repository '" + repo + "'");
      repo = *canonical;
    }
  }
  return std::shared_ptr<const Scope>(new Scope(std::move(config)));
}

const Forge* Scope::ForgeOf(std::string_view host_port, bool* api) const {
  for (const Forge& forge : config_.forges) {
    if (forge.git_host == host_port) {
      *api = forge.enterprise && forge.api_host == host_port;
      return &forge;
    }
    if (forge.api_host == host_port) {
      *api = true;
      return &forge;
    }
  }
  return nullptr;
}

bool Scope::Covers(std::string_view host_port) const {
  bool api = false;
  return ForgeOf(host_port, &api) != nullptr;
}

bool Scope::IsApiHost(std::string_view host_port) const {
  return std::any_of(config_.forges.begin(), config_.forges.end(),
                     [&](const Forge& f) { return f.api_host == host_port; });
}

std::set<std::string> Scope::ProjectRepos(const Forge& forge) const {
  return {forge.repositories.begin(), forge.repositories.end()};
}

Judgement Scope::Judge(std::string_view host_port, std::string_view method, std::string_view target,
                       bool unattended) const {
  bool api = false;
  const Forge* forge = ForgeOf(host_port, &api);
  if (!forge) return Pass(false, "not-a-forge");
  auto resolved = ResolveTarget(target);
  if (!resolved) {
    return Refuse("unresolvable-path", "the path cannot be resolved exactly as the forge would: " +
                                           resolved.error().message);
  }
  // GitHub Enterprise serves git and the API on one host: /api/ is the API.
  bool api_path = api && (forge->api_host != forge->git_host ||
                          (!resolved->segments.empty() && resolved->segments[0] == "api"));
  return api_path ? JudgeApi(*forge, method, target, unattended) : JudgeGit(*forge, method, target, unattended);
}

Judgement Scope::JudgeGit(const Forge& forge, std::string_view method, std::string_view target,
                          bool unattended) const {
  auto resolved = ResolveTarget(target);
  if (!resolved) return Refuse("unresolvable-path", resolved.error().message);
  auto git = ClassifyGitRequest(method, *resolved);
  if (!git) return Refuse("bad-git-request", git.error().message);
  std::set<std::string> mine = ProjectRepos(forge);
  if (!*git) {
    // A web page, a release download: read it, with the token only for the
    // project's own repositories; nothing else is written through the proxy.
    const auto& segments = resolved->segments;
    std::string repo;
    if (segments.size() >= 2) {
      auto named = RepoPathFromSegments(std::span<const std::string>(segments.data(), 2));
      if (named) repo = named->path;
    }
    bool project = !repo.empty() && mine.count(repo);
    if (IsRead(method)) return Pass(project, project ? "project-page" : "page-read", repo);
    if (project) return Pass(true, "project-page", repo);
    return Refuse("not-git-write", "only git's own requests write through corral's proxy to " + forge.git_host +
                                       ", and only to this project's repositories (" + std::string(kReposSetting) +
                                       ")");
  }
  const GitRequest& request = **git;
  bool project = mine.count(request.repo.path) > 0;
  if (request.op == GitOp::kLfsBatch) {
    Judgement j;
    j.action = Judgement::Action::kReadBody;
    j.repo = request.repo.path;
    j.rule = "lfs-batch";
    return j;
  }
  if (!project) return OtherRepository(request.repo, request.write, config_.other_reads);
  if (request.op == GitOp::kReceivePack && unattended && config_.history) {
    Judgement j;
    j.action = Judgement::Action::kPush;
    j.token = true;
    j.repo = request.repo.path;
    j.rule = "push";
    return j;
  }
  return Pass(true, request.write ? "project-write" : "project-read", request.repo.path);
}

Judgement Scope::JudgeApi(const Forge& forge, std::string_view method, std::string_view target,
                          bool unattended) const {
  auto resolved = ResolveTarget(target);
  if (!resolved) return Refuse("unresolvable-path", resolved.error().message);
  RestRequest request{std::string(method), resolved->segments, forge.enterprise};
  RestContext context{ProjectRepos(forge),
                      {config_.protected_branches.begin(), config_.protected_branches.end()},
                      unattended && config_.history};
  RestVerdict verdict = JudgeRest(request, context);
  switch (verdict.action) {
    case RestAction::kWithToken: return Pass(true, verdict.rule, verdict.repo);
    case RestAction::kWithoutToken: return Pass(false, verdict.rule, verdict.repo);
    case RestAction::kRefuse: return Refuse(verdict.rule, verdict.reason, verdict.repo);
    case RestAction::kNeedBody: {
      Judgement j;
      j.action = Judgement::Action::kReadBody;
      j.repo = verdict.repo;
      j.rule = verdict.rule;
      return j;
    }
  }
  return Refuse("internal", "no verdict");
}

Judgement Scope::JudgeBody(std::string_view host_port, std::string_view method, std::string_view target,
                           std::string_view body, bool unattended, const NodeRepository& node_repository) const {
  bool api = false;
  const Forge* forge = ForgeOf(host_port, &api);
  if (!forge) return Refuse("not-a-forge", "no forge is set up for " + std::string(host_port));
  auto resolved = ResolveTarget(target);
  if (!resolved) return Refuse("unresolvable-path", resolved.error().message);
  std::set<std::string> mine = ProjectRepos(*forge);
  auto git = ClassifyGitRequest(method, *resolved);
  if (git && *git && (*git)->op == GitOp::kLfsBatch) {
    auto upload = LfsBatchIsUpload(body);
    if (!upload) return Refuse("bad-lfs-batch", upload.error().message, (*git)->repo.path);
    bool project = mine.count((*git)->repo.path) > 0;
    if (project) return Pass(true, *upload ? "project-write" : "project-read", (*git)->repo.path);
    return OtherRepository((*git)->repo, *upload, config_.other_reads);
  }
  RestRequest request{std::string(method), resolved->segments, forge->enterprise};
  RestContext context{mine, {config_.protected_branches.begin(), config_.protected_branches.end()},
                      unattended && config_.history};
  RestVerdict verdict = JudgeRest(request, context);
  if (verdict.action == RestAction::kNeedBody && verdict.rule == "graphql") {
    GraphqlVerdict graphql = JudgeGraphqlBody(body, mine, node_repository, unattended && config_.history);
    switch (graphql.action) {
      case GraphqlVerdict::Action::kWithToken: return Pass(true, graphql.rule);
      case GraphqlVerdict::Action::kWithoutToken: {
        Judgement j = Pass(false, graphql.rule);
        j.reason = graphql.reason;
        return j;
      }
      case GraphqlVerdict::Action::kRefuse: return Refuse(graphql.rule, graphql.reason);
    }
  }
  verdict = JudgeRestBody(request, context, body);
  switch (verdict.action) {
    case RestAction::kWithToken: return Pass(true, verdict.rule, verdict.repo);
    case RestAction::kWithoutToken: return Pass(false, verdict.rule, verdict.repo);
    default: return Refuse(verdict.rule, verdict.reason, verdict.repo);
  }
}

Result<std::string> CanonicalRepository(std::string_view text) {
  auto repo = ParseRepoPath(text);
  if (!repo) return repo.error();
  return repo->path;
}

Result<RemoteRepository> RemoteOf(std::string_view url) {
  auto remote = ParseRemoteUrl(url);
  if (!remote) return remote.error();
  RemoteRepository out;
  out.scheme = remote->scheme;
  out.repository = remote->repo.path;
  std::string_view host = remote->host;
  out.host_name = std::string(host.substr(0, host.rfind(':')));
  // An ssh or git:// remote is the same repository over HTTPS on the same
  // name, which is where the box's git is sent (insteadOf).
  out.https_host = remote->scheme == "https" || remote->scheme == "http" ? remote->host : out.host_name + ":443";
  return out;
}

}  // namespace corral::netfilter::forge
