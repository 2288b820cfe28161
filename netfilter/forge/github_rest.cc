#include "netfilter/forge/github_rest.h"

#include <array>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "netfilter/forge/github_rest_body.h"
#include "netfilter/forge/github_rest_path.h"

namespace corral::netfilter::forge {
namespace {

using rest::AsciiLower;
using rest::BodyOutcome;
using rest::EqualsIgnoreCase;
using rest::IsProtectedBranch;
using rest::PathMatches;
using rest::SplitSegments;
using rest::ValidRepoName;

// What the reasons name as the way to allow a refused request; "{repos}",
// "{branches}" and "{watching}" in a reason are replaced by these.
constexpr std::string_view kReposSetting = "forge.repositories";
constexpr std::string_view kBranchesSetting = "forge.protected_branches";
constexpr std::string_view kWatchingHint = "run it while somebody is watching (`corral presence`)";

enum MethodBit : unsigned { kGet = 1, kHead = 2, kPost = 4, kPut = 8, kPatch = 16, kDelete = 32 };
constexpr unsigned kRead = kGet | kHead;
constexpr unsigned kWrite = kPost | kPut | kPatch | kDelete;
constexpr unsigned kAny = kRead | kWrite;

// Which repository a /repos/{owner}/{repo} path must name for the row to apply.
enum class Whose { kAny, kProject, kOther };
enum class When { kAlways, kUnattended };
// What else must hold: nothing, or a test of the path or the JSON body. A row
// whose test passes refuses; one whose test fails is skipped.
enum class Test {
  kNone,
  kPathRefProtected,     // the ref after git/refs/ is a protected branch
  kBodyForce,            // body "force" is true
  kBodyRefProtected,     // body "ref" is refs/heads/<protected>
  kBodyBranchOrDefault,  // body "branch" is absent (the default branch) or protected
  kBodyBaseProtected,    // body "base" is protected
  kBodyBranchProtected,  // body "branch" is protected
};

struct Row {
  unsigned methods;
  std::string_view path;  // '/'-separated; * one segment, ** any number, a|b either
  Whose whose;
  When when;
  Test test;
  RestAction action;
  std::string_view rule;
  std::string_view reason;
};

using enum RestAction;
constexpr Whose kP = Whose::kProject;
constexpr Whose kO = Whose::kOther;
constexpr Whose kA = Whose::kAny;
constexpr When kNow = When::kAlways;
constexpr When kAway = When::kUnattended;

#define REPO "/repos/{owner}/{repo}"
// Everything here is refused with no setting to allow it: the box must not
// change who can reach the project or what guards it.
#define NO_SETTING " No setting lets the box do this; do it yourself on GitHub."

// The rules, first match wins. The last two rows catch everything.
constexpr std::array kRules = std::to_array<Row>({
    // GraphQL carries its operation in the body; the GraphQL judge reads it.
    {kPost, "/graphql", kA, kNow, Test::kNone, kNeedBody, "graphql",
     "GraphQL is judged by its query: queries pass, mutations only on a project repository."},
    // GitHub's GraphQL endpoint takes only POST; anything else is not a use we know.
    {kAny, "/graphql", kA, kNow, Test::kNone, kRefuse, "graphql", "GraphQL takes only POST."},
    // A numeric id cannot be matched to a project repository without asking GitHub.
    {kRead, "/repositories/**", kA, kNow, Test::kNone, kWithoutToken, "repo-by-id",
     "A repository named by its numeric id is read without your token: the proxy cannot tell "
     "whose it is. Use /repos/OWNER/NAME."},
    {kAny, "/repositories/**", kA, kNow, Test::kNone, kRefuse, "repo-by-id",
     "A repository named by its numeric id cannot be matched to the project's repositories. "
     "Write through /repos/OWNER/NAME."},
    // Public dependencies stay readable; the token never reaches another repository.
    {kRead, REPO "/**", kO, kNow, Test::kNone, kWithoutToken, "other-repo-read",
     "Not one of the project's repositories: read without your token (public data only). "
     "List it in {repos} if it belongs to the project."},
    // The box must not carry the project, or anything, into another repository.
    {kAny, REPO "/**", kO, kNow, Test::kNone, kRefuse, "other-repo-write",
     "Not one of the project's repositories, and only those may be changed. List it in {repos} "
     "if it belongs to the project."},

    // --- The project's repositories: what the token may not do all the same. ---
    // Deleting cannot be undone.
    {kDelete, REPO, kP, kNow, Test::kNone, kRefuse, "repo-delete",
     "Deleting the repository is refused." NO_SETTING},
    // Name, visibility, default branch, archiving: who sees the project and what guards it.
    {kWrite, REPO, kP, kNow, Test::kNone, kRefuse, "repo-settings",
     "Changing the repository's settings (name, visibility, default branch, archive) is "
     "refused." NO_SETTING},
    // Git LFS on or off for the repository is a setting too.
    {kWrite, REPO "/lfs", kP, kNow, Test::kNone, kRefuse, "repo-settings",
     "Changing the repository's settings is refused." NO_SETTING},
    // Transfer hands the repository to another owner.
    {kWrite, REPO "/transfer", kP, kNow, Test::kNone, kRefuse, "repo-transfer",
     "Transferring the repository to another owner is refused." NO_SETTING},
    // A fork or a repository from a template is a new repository outside the project.
    {kWrite, REPO "/forks", kP, kNow, Test::kNone, kRefuse, "repo-fork",
     "Forking copies the project into another repository; that is refused." NO_SETTING},
    {kWrite, REPO "/generate", kP, kNow, Test::kNone, kRefuse, "repo-generate",
     "Creating a repository from this template is refused." NO_SETTING},
    // Who may reach the repository: collaborators, their invitations, teams.
    {kWrite, REPO "/collaborators/**", kP, kNow, Test::kNone, kRefuse, "collaborators",
     "Changing who may reach the repository is refused." NO_SETTING},
    {kWrite, REPO "/invitations/**", kP, kNow, Test::kNone, kRefuse, "collaborators",
     "Changing who may reach the repository is refused." NO_SETTING},
    {kWrite, REPO "/teams/**", kP, kNow, Test::kNone, kRefuse, "teams",
     "Changing which teams reach the repository is refused." NO_SETTING},
    // A deploy key is a way in that outlives the session.
    {kWrite, REPO "/keys/**", kP, kNow, Test::kNone, kRefuse, "deploy-keys",
     "Adding or removing deploy keys is refused: a key outlives the session." NO_SETTING},
    // Hook configs hold secrets and URLs that receive every push: reads too.
    {kAny, REPO "/hooks/**", kP, kNow, Test::kNone, kRefuse, "hooks",
     "Webhooks are refused, reads too: their configuration holds secrets." NO_SETTING},
    // Secrets, all methods: even their names and public key serve only to set them.
    {kAny, REPO "/actions/secrets/**", kP, kNow, Test::kNone, kRefuse, "secrets",
     "Actions secrets are refused, reads too." NO_SETTING},
    {kAny, REPO "/actions/organization-secrets/**", kP, kNow, Test::kNone, kRefuse, "secrets",
     "Actions secrets are refused, reads too." NO_SETTING},
    {kAny, REPO "/dependabot/secrets/**", kP, kNow, Test::kNone, kRefuse, "secrets",
     "Dependabot secrets are refused, reads too." NO_SETTING},
    {kAny, REPO "/codespaces/secrets/**", kP, kNow, Test::kNone, kRefuse, "secrets",
     "Codespaces secrets are refused, reads too." NO_SETTING},
    // Environment names may hold '/', hence ** before secrets.
    {kAny, REPO "/environments/**/secrets/**", kP, kNow, Test::kNone, kRefuse, "secrets",
     "Environment secrets are refused, reads too." NO_SETTING},
    // Variables feed workflows (deploy targets, feature switches).
    {kWrite, REPO "/actions/variables/**", kP, kNow, Test::kNone, kRefuse, "actions-variables",
     "Changing Actions variables is refused: workflows trust them." NO_SETTING},
    // Environments hold their own variables, reviewers and branch policies.
    {kWrite, REPO "/environments/**", kP, kNow, Test::kNone, kRefuse, "environments",
     "Changing deployment environments (variables, reviewers, branch policies) is "
     "refused." NO_SETTING},
    // Which actions may run, and with what GITHUB_TOKEN permissions.
    {kWrite, REPO "/actions/permissions/**", kP, kNow, Test::kNone, kRefuse, "actions-permissions",
     "Changing what Actions may run or do is refused." NO_SETTING},
    // A registration token or JIT config lets a machine run the repository's workflows.
    {kWrite, REPO "/actions/runners/**", kP, kNow, Test::kNone, kRefuse, "actions-runners",
     "Registering or removing self-hosted runners is refused: a runner receives the "
     "workflows and their secrets." NO_SETTING},
    // The OIDC subject template is what cloud trust policies match.
    {kWrite, REPO "/actions/oidc/**", kP, kNow, Test::kNone, kRefuse, "actions-oidc",
     "Changing the Actions OIDC claims is refused: cloud trust policies match them." NO_SETTING},
    // Approving a deployment is the review a protected environment waits for.
    {kWrite, REPO "/actions/runs/*/pending_deployments|deployment_protection_rule", kP, kNow,
     Test::kNone, kRefuse, "deployment-approval",
     "Approving a deployment to a protected environment is refused: that review is a "
     "person's." NO_SETTING},
    // A codespace is a machine with the project and your codespaces secrets, outside the box.
    {kWrite, REPO "/codespaces/**", kP, kNow, Test::kNone, kRefuse, "codespaces",
     "Creating or changing codespaces is refused: a codespace runs outside the box." NO_SETTING},
    // Branch names may hold '/', hence ** before protection.
    {kWrite, REPO "/branches/**/protection/**", kP, kNow, Test::kNone, kRefuse, "branch-protection",
     "Changing branch protection is refused." NO_SETTING},
    {kWrite, REPO "/rulesets/**", kP, kNow, Test::kNone, kRefuse, "rulesets",
     "Changing rulesets is refused: they guard the branches." NO_SETTING},
    {kWrite, REPO "/tags/protection/**", kP, kNow, Test::kNone, kRefuse, "rulesets",
     "Changing tag protection is refused." NO_SETTING},
    // Custom properties decide which organisation rulesets apply to the repository.
    {kWrite, REPO "/properties/values", kP, kNow, Test::kNone, kRefuse, "custom-properties",
     "Changing custom properties is refused: organisation rulesets select by them." NO_SETTING},
    // Turning security features off is a setting of the repository's guard.
    {kWrite, REPO "/vulnerability-alerts|automated-security-fixes|private-vulnerability-reporting",
     kP, kNow, Test::kNone, kRefuse, "security-settings",
     "Changing the repository's security features is refused." NO_SETTING},
    // Dismissing alerts, or bypassing secret push protection, is triage for a person.
    {kWrite, REPO "/code-scanning|secret-scanning/**", kP, kNow, Test::kNone, kRefuse,
     "security-alerts",
     "Changing code or secret scanning (alerts, setup, push-protection bypasses) is "
     "refused." NO_SETTING},
    {kWrite, REPO "/dependabot/alerts/**", kP, kNow, Test::kNone, kRefuse, "security-alerts",
     "Dismissing Dependabot alerts is refused." NO_SETTING},
    // Publishing an advisory discloses a vulnerability; its private fork is a new repository.
    {kWrite, REPO "/security-advisories/**", kP, kNow, Test::kNone, kRefuse, "security-advisories",
     "Creating or publishing security advisories is refused." NO_SETTING},
    // Pages publishes the repository's content on a site, perhaps public, perhaps on a
    // custom domain: a way to publish private code, or to take over a domain.
    {kWrite, REPO "/pages/**", kP, kNow, Test::kNone, kRefuse, "pages",
     "Changing GitHub Pages is refused: it publishes the repository's content." NO_SETTING},
    // Immutable releases guard published releases against change.
    {kWrite, REPO "/immutable-releases", kP, kNow, Test::kNone, kRefuse, "immutable-releases",
     "Changing immutable releases is refused." NO_SETTING},
    // Limits on who may comment are moderation, a person's call.
    {kWrite, REPO "/interaction-limits", kP, kNow, Test::kNone, kRefuse, "interaction-limits",
     "Changing interaction limits is refused." NO_SETTING},
    // An autolink turns references in every issue and commit into links to any URL.
    {kWrite, REPO "/autolinks/**", kP, kNow, Test::kNone, kRefuse, "autolinks",
     "Changing autolinks is refused." NO_SETTING},
    // A user token may set any commit status, which CI results and branch protection trust.
    {kWrite, REPO "/statuses/**", kP, kNow, Test::kNone, kRefuse, "commit-status",
     "Setting commit statuses is refused: CI and branch protection trust them." NO_SETTING},

    // --- History, while nobody watches (the receive-pack rules, held on the API). ---
    {kDelete, REPO "/git/refs|ref/**", kP, kAway, Test::kNone, kRefuse, "ref-delete",
     "While nobody watches, branches and tags are not deleted. Leave it for a person, or "
     "{watching}."},
    // A rename deletes the old name (and may move the default branch).
    {kWrite, REPO "/branches/**/rename", kP, kAway, Test::kNone, kRefuse, "ref-delete",
     "While nobody watches, branches are not renamed: the old name is deleted. Leave it for a "
     "person, or {watching}."},
    {kWrite, REPO "/git/refs|ref/**", kP, kAway, Test::kPathRefProtected, kRefuse,
     "protected-branch",
     "While nobody watches, protected branches ({branches}) are not written. Push to another "
     "branch and open a pull request, or {watching}."},
    {kPatch, REPO "/git/refs|ref/**", kP, kAway, Test::kBodyForce, kRefuse, "not-fast-forward",
     "While nobody watches, a ref update must be a fast-forward: \"force\": true is refused. "
     "Push to a new branch, or {watching}."},
    {kPost, REPO "/git/refs", kP, kAway, Test::kBodyRefProtected, kRefuse, "protected-branch",
     "While nobody watches, protected branches ({branches}) are not written. Create another "
     "branch, or {watching}."},
    // Without "branch" the contents API commits to the default branch.
    {kPut | kDelete, REPO "/contents/**", kP, kAway, Test::kBodyBranchOrDefault, kRefuse,
     "protected-branch",
     "While nobody watches, files are not committed to the default branch or a protected one "
     "({branches}): name another \"branch\" and open a pull request, or {watching}."},
    {kPost, REPO "/merges", kP, kAway, Test::kBodyBaseProtected, kRefuse, "protected-branch",
     "While nobody watches, nothing is merged into a protected branch ({branches}). Merge into "
     "another branch, or {watching}."},
    {kPost, REPO "/merge-upstream", kP, kAway, Test::kBodyBranchProtected, kRefuse,
     "protected-branch",
     "While nobody watches, a protected branch ({branches}) is not synced from upstream. "
     "Sync another branch, or {watching}."},
    // The path has only the pull request's number; its base branch is unknown here.
    {kWrite, REPO "/pulls/*/merge", kP, kAway, Test::kNone, kRefuse, "merge-unattended",
     "While nobody watches, pull requests are not merged: the proxy cannot see the base branch "
     "to tell whether it is protected. Leave the merge to a person, or {watching}."},
    // Updating a pull request's branch writes its head branch, which is unknown here.
    {kWrite, REPO "/pulls/*/update-branch", kP, kAway, Test::kNone, kRefuse, "merge-unattended",
     "While nobody watches, a pull request's branch is not updated through the API: the proxy "
     "cannot see which branch that is. Merge locally and push, or {watching}."},
    // Everything else on a project repository is the agent's work.
    {kAny, REPO "/**", kP, kNow, Test::kNone, kWithToken, "project-repo",
     "A project repository: sent with your token."},

    // --- Outside any repository. ---
    // What gh reads at start and for `gh auth status` (the root's X-OAuth-Scopes).
    {kRead, "/", kA, kNow, Test::kNone, kWithToken, "account-read", "The API root: with token."},
    {kRead, "/user|rate_limit|meta|octocat|zen", kA, kNow, Test::kNone, kWithToken, "account-read",
     "Your account and the API's limits: with token."},
    // A new repository is a place to carry the project to.
    {kPost, "/user/repos", kA, kNow, Test::kNone, kRefuse, "repo-create",
     "Creating a repository is refused: only the project's repositories are reached." NO_SETTING},
    {kPost, "/orgs/*/repos", kA, kNow, Test::kNone, kRefuse, "repo-create",
     "Creating a repository is refused: only the project's repositories are reached." NO_SETTING},
    // A gist is a public or secret paste outside the project.
    {kWrite, "/gists/**", kA, kNow, Test::kNone, kRefuse, "gist-write",
     "Creating or changing gists is refused: they are outside the project." NO_SETTING},
    // Keys on the account open every repository the account reaches.
    {kWrite, "/user/keys|gpg_keys|ssh_signing_keys/**", kA, kNow, Test::kNone, kRefuse,
     "account-keys", "Changing your account's keys is refused." NO_SETTING},
    {kWrite, "/user/emails/**", kA, kNow, Test::kNone, kRefuse, "account-emails",
     "Changing your account's email addresses is refused." NO_SETTING},
    // Revoking or resetting tokens and OAuth grants.
    {kWrite, "/applications|authorizations/**", kA, kNow, Test::kNone, kRefuse, "token-admin",
     "Managing tokens and OAuth grants is refused." NO_SETTING},
    {kWrite, "/orgs|teams/**", kA, kNow, Test::kNone, kRefuse, "org-write",
     "Changing organisations and teams is refused." NO_SETTING},
    // Public data stays readable; the token does not leave the project.
    {kRead, "/**", kA, kNow, Test::kNone, kWithoutToken, "api-read-outside-project",
     "Outside the project's repositories: sent without your token (public data only). List "
     "repositories in {repos} to read them with it."},
    {kAny, "/**", kA, kNow, Test::kNone, kRefuse, "api-write-outside-project",
     "Only the project's repositories may be changed through the API; this request changes "
     "something else (an account, an organisation, a gist)." NO_SETTING},
});

#undef REPO

unsigned MethodBitOf(std::string_view method) {
  static constexpr std::pair<std::string_view, unsigned> kMethods[] = {
      {"GET", kGet}, {"HEAD", kHead},   {"POST", kPost},
      {"PUT", kPut}, {"PATCH", kPatch}, {"DELETE", kDelete}};
  for (const auto& [name, bit] : kMethods) {
    if (method == name) return bit;
  }
  return 0;
}

std::string Expand(std::string_view reason) {
  static constexpr std::pair<std::string_view, std::string_view> kPlaces[] = {
      {"{repos}", kReposSetting}, {"{branches}", kBranchesSetting}, {"{watching}", kWatchingHint}};
  std::string out(reason);
  for (const auto& [place, text] : kPlaces) {
    for (std::size_t at = out.find(place); at != std::string::npos; at = out.find(place, at)) {
      out.replace(at, place.size(), text);
      at += text.size();
    }
  }
  return out;
}

RestVerdict Verdict(RestAction action, std::string repo, std::string_view rule,
                    std::string_view reason) {
  return RestVerdict{action, std::move(repo), std::string(rule), Expand(reason)};
}

// The path as the table sees it (github_rest_path.h), the GHE prefix removed,
// and the repository it names; a verdict instead when the table cannot judge it.
struct Path {
  std::vector<std::string> segments;
  std::string repo;  // lower-case owner/name for /repos/ paths
};

std::variant<Path, RestVerdict> NormalizePath(const RestRequest& request, unsigned method) {
  auto split = SplitSegments(request.segments);
  if (!split) return Verdict(kRefuse, "", "bad-path", "The path has an empty segment.");
  Path path{std::move(*split), ""};
  std::vector<std::string>& s = path.segments;
  if (request.enterprise) {
    if (s.size() >= 2 && EqualsIgnoreCase(s[0], "api") && EqualsIgnoreCase(s[1], "v3")) {
      s.erase(s.begin(), s.begin() + 2);
    } else if (s.size() == 2 && EqualsIgnoreCase(s[0], "api") &&
               EqualsIgnoreCase(s[1], "graphql")) {
      s.erase(s.begin());
    } else if (method & kRead) {
      return Verdict(kWithoutToken, "", "not-api",
                     "Not the REST API (/api/v3/): sent without your token.");
    } else {
      return Verdict(kRefuse, "", "not-api",
                     "Writes outside the REST API (/api/v3/), such as release asset uploads, "
                     "are refused." NO_SETTING);
    }
  }
  if (!s.empty() && EqualsIgnoreCase(s[0], "repos")) {
    if (s.size() < 3 || !ValidRepoName(s[1]) || !ValidRepoName(s[2])) {
      return Verdict(kRefuse, "", "bad-path",
                     "A /repos/ path needs a valid owner and name ([A-Za-z0-9._-], at most 100 "
                     "characters each).");
    }
    path.repo = AsciiLower(s[1]) + "/" + AsciiLower(s[2]);
  }
  return path;
}

#undef NO_SETTING

BodyOutcome TestBody(Test test, const nlohmann::json& body, const RestContext& context) {
  const std::set<std::string>& branches = context.protected_branches;
  switch (test) {
    case Test::kBodyForce: return rest::CheckForce(body);
    case Test::kBodyRefProtected: return rest::CheckNewRef(body, branches);
    case Test::kBodyBranchOrDefault: return rest::CheckContentsBranch(body, branches);
    case Test::kBodyBaseProtected: return rest::CheckBranchField(body, "base", branches);
    case Test::kBodyBranchProtected: return rest::CheckBranchField(body, "branch", branches);
    case Test::kNone:
    case Test::kPathRefProtected: break;
  }
  return BodyOutcome::kUnreadable;
}

// repos/{owner}/{repo}/git/refs/<ref>: the ref starts at the sixth segment.
constexpr std::size_t kRefStart = 5;

std::string RefInPath(const std::vector<std::string>& segments) {
  std::string ref;
  for (std::size_t i = kRefStart; i < segments.size(); ++i) {
    if (!ref.empty()) ref += '/';
    ref += segments[i];
  }
  return ref;
}

bool RowApplies(const Row& row, unsigned method, const Path& path, const RestContext& context) {
  if ((row.methods & method) == 0 || !PathMatches(row.path, path.segments)) return false;
  bool project = !path.repo.empty() && context.project_repos.contains(path.repo);
  if (row.whose == Whose::kProject && !project) return false;
  if (row.whose == Whose::kOther && (path.repo.empty() || project)) return false;
  return row.when == When::kAlways || context.unattended;
}

// The walk down the table; `body_text` is null until the caller has the body.
RestVerdict Judge(const RestRequest& request, const RestContext& context,
                  const std::string_view* body_text) {
  unsigned method = MethodBitOf(request.method);
  if (method == 0) {
    return Verdict(kRefuse, "", "bad-method",
                   "Only GET, HEAD, POST, PUT, PATCH and DELETE reach the API.");
  }
  auto normalized = NormalizePath(request, method);
  if (auto* refusal = std::get_if<RestVerdict>(&normalized)) return std::move(*refusal);
  const Path& path = std::get<Path>(normalized);
  std::optional<std::optional<nlohmann::json>> body;  // parsed once, when a row first needs it
  for (const Row& row : kRules) {
    if (!RowApplies(row, method, path, context)) continue;
    if (row.test == Test::kNone) return Verdict(row.action, path.repo, row.rule, row.reason);
    if (row.test == Test::kPathRefProtected) {
      if (IsProtectedBranch(RefInPath(path.segments), context.protected_branches)) {
        return Verdict(row.action, path.repo, row.rule, row.reason);
      }
      continue;
    }
    if (body_text == nullptr) return Verdict(kNeedBody, path.repo, row.rule, row.reason);
    if (!body) body = rest::ParseBodyObject(*body_text);
    BodyOutcome outcome = *body ? TestBody(row.test, **body, context) : BodyOutcome::kUnreadable;
    if (outcome == BodyOutcome::kRefuse) {
      return Verdict(row.action, path.repo, row.rule, row.reason);
    }
    if (outcome == BodyOutcome::kUnreadable) {
      return Verdict(kRefuse, path.repo, "bad-body",
                     "The request body is not the JSON object GitHub expects here (or repeats a "
                     "key), so the proxy cannot tell which branch it writes. Send plain JSON.");
    }
  }
  return Verdict(kRefuse, path.repo, "no-rule", "No rule covers this request.");
}

std::string MethodsText(unsigned methods) {
  if (methods == kAny) return "any";
  if (methods == kWrite) return "writes";
  static constexpr std::pair<unsigned, std::string_view> kNames[] = {
      {kGet, "GET"}, {kHead, "HEAD"},   {kPost, "POST"},
      {kPut, "PUT"}, {kPatch, "PATCH"}, {kDelete, "DELETE"}};
  std::string text;
  for (const auto& [bit, name] : kNames) {
    if (methods & bit) text += (text.empty() ? "" : " ") + std::string(name);
  }
  return text;
}

std::string ConditionText(const Row& row) {
  static constexpr std::string_view kTests[] = {
      "",
      "the ref is a protected branch",
      "body \"force\" is true",
      "body \"ref\" is a protected branch",
      "body \"branch\" is absent (the default branch) or protected",
      "body \"base\" is protected",
      "body \"branch\" is protected",
  };
  std::vector<std::string_view> parts;
  if (row.whose == Whose::kProject) parts.push_back("project repository");
  if (row.whose == Whose::kOther) parts.push_back("another repository");
  if (row.when == When::kUnattended) parts.push_back("while nobody watches");
  if (row.test != Test::kNone) parts.push_back(kTests[static_cast<int>(row.test)]);
  std::string text;
  for (std::string_view part : parts) text += (text.empty() ? "" : ", ") + std::string(part);
  return text;
}

std::string ActionText(RestAction action) {
  switch (action) {
    case kWithToken: return "with token";
    case kWithoutToken: return "without token";
    case kRefuse: return "refuse";
    case kNeedBody: return "read the body";
  }
  return "refuse";
}

}  // namespace

RestVerdict JudgeRest(const RestRequest& request, const RestContext& context) {
  return Judge(request, context, nullptr);
}

RestVerdict JudgeRestBody(const RestRequest& request, const RestContext& context,
                          std::string_view json_body) {
  return Judge(request, context, &json_body);
}

std::vector<RestRuleText> DescribeRestRules() {
  std::vector<RestRuleText> rows;
  for (const Row& row : kRules) {
    rows.push_back({MethodsText(row.methods), std::string(row.path), ConditionText(row),
                    ActionText(row.action), std::string(row.rule), Expand(row.reason)});
  }
  return rows;
}

}  // namespace corral::netfilter::forge
