#include <cctype>

#include "netfilter/forge/graphql.h"

namespace corral::netfilter::forge {
namespace {

using Action = GraphqlVerdict::Action;

// Mutations refused even on a project repository. Names are GitHub's
// (public schema, octokit/graphql-schema). Deploy keys, hooks, secrets and
// deleting or transferring a repository have no GraphQL mutation: the REST
// table holds them.
struct RefusedMutation {
  std::string_view mutation;
  bool only_unattended;  // allowed while a person watches
  std::string_view rule;
  std::string_view reason;
};

constexpr RefusedMutation kRefusedMutations[] = {
    {"updateRepository", false, "repo-settings",
     "changes the repository's name, description or features"},
    {"updateRepositoryWebCommitSignoffSetting", false, "repo-settings",
     "changes whether web commits need a sign-off"},
    {"setRepositoryInteractionLimit", false, "repo-settings",
     "limits who may interact with the repository"},
    {"archiveRepository", false, "repo-lifecycle", "archives the repository"},
    {"unarchiveRepository", false, "repo-lifecycle", "unarchives the repository"},
    {"createRepository", false, "repo-lifecycle", "creates a repository outside the project"},
    {"cloneTemplateRepository", false, "repo-lifecycle",
     "creates a repository outside the project"},
    {"accessUserNamespaceRepository", false, "repo-lifecycle",
     "grants an enterprise owner a user's repository"},
    {"startRepositoryMigration", false, "repo-lifecycle", "migrates a repository"},
    {"abortRepositoryMigration", false, "repo-lifecycle", "stops a repository's migration"},
    {"createBranchProtectionRule", false, "branch-protection", "adds a branch protection rule"},
    {"updateBranchProtectionRule", false, "branch-protection", "changes a branch protection rule"},
    {"deleteBranchProtectionRule", false, "branch-protection", "removes a branch protection rule"},
    {"createRepositoryRuleset", false, "branch-protection",
     "adds a ruleset governing pushes and merges"},
    {"updateRepositoryRuleset", false, "branch-protection",
     "changes a ruleset governing pushes and merges"},
    {"deleteRepositoryRuleset", false, "branch-protection",
     "removes a ruleset governing pushes and merges"},
    {"updateTeamsRepository", false, "collaborators",
     "changes which teams may reach the repository"},
    {"removeOutsideCollaborator", false, "collaborators",
     "removes a collaborator from the organization"},
    {"createEnvironment", false, "environments",
     "adds a deployment environment, which holds secrets"},
    {"updateEnvironment", false, "environments",
     "changes a deployment environment's protection rules"},
    {"deleteEnvironment", false, "environments",
     "removes a deployment environment and its secrets"},
    {"approveDeployments", false, "environments",
     "approves a deployment a reviewer is meant to approve"},
    {"rejectDeployments", false, "environments",
     "rejects a deployment a reviewer is meant to judge"},
    {"dismissRepositoryVulnerabilityAlert", false, "security",
     "hides a security alert from the owners"},
    {"updatePullRequestBranch", false, "other-repo-write",
     "writes the pull request's head branch, which may be in a fork outside the project"},
    {"deleteRef", true, "history", "deletes a branch or tag"},
    {"updateRef", true, "history", "moves a branch or tag, which may be protected or forced"},
    {"updateRefs", true, "history", "moves or deletes branches and tags, with force if asked"},
    {"createCommitOnBranch", true, "history",
     "commits straight to a branch, which may be protected"},
    {"mergePullRequest", true, "merge", "merges into the base branch"},
    {"mergeBranch", true, "merge", "merges into a branch"},
    {"enablePullRequestAutoMerge", true, "merge", "merges into the base branch once checks pass"},
    {"enqueuePullRequest", true, "merge", "queues a merge into the base branch"},
    {"dismissPullRequestReview", true, "merge",
     "dismisses a review that branch protection may count"},
    {"createDeployment", true, "environments",
     "starts a deployment, which runs with the environment's secrets"},
};

const RefusedMutation* FindRefused(std::string_view mutation) {
  for (const RefusedMutation& row : kRefusedMutations) {
    if (row.mutation == mutation) return &row;
  }
  return nullptr;
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

GraphqlVerdict Verdict(Action action, std::string rule, std::string reason) {
  return GraphqlVerdict{action, std::move(rule), std::move(reason)};
}

// Why a query goes without the token, or a mutation is refused, when it
// reaches beyond the project; "" when it stays inside.
std::string OutsideProject(const GraphqlRequest& request,
                           const std::set<std::string>& project_repos,
                           const std::function<std::string(const std::string&)>& repo_of_node,
                           std::string& rule) {
  bool mutation = request.kind == GraphqlRequest::Kind::kMutation;
  if (request.unbounded) {
    rule = mutation ? "other-repo-read" : "unbounded-read";
    return request.unbounded_why;
  }
  rule = mutation ? "other-repo-write" : "other-repo-read";
  for (const std::string& repo : request.repos) {
    if (!project_repos.count(repo))
      return "it names " + repo + ", which is not one of the project's repositories";
  }
  for (const std::string& id : request.node_ids) {
    std::string repo = repo_of_node ? Lower(repo_of_node(id)) : "";
    if (repo.empty()) {
      rule = "unknown-node";
      return "node id " + id.substr(0, 80) + " belongs to no repository the proxy could find";
    }
    if (!project_repos.count(repo))
      return "node id " + id.substr(0, 80) + " belongs to " + repo + ", not the project";
  }
  return "";
}

}  // namespace

GraphqlVerdict JudgeGraphql(const GraphqlRequest& request,
                            const std::set<std::string>& project_repos,
                            const std::function<std::string(const std::string&)>& repo_of_node,
                            bool unattended) {
  if (request.kind == GraphqlRequest::Kind::kSubscription) {
    return Verdict(Action::kRefuse, "graphql-subscription",
                   "GitHub's API has no subscriptions to pass on");
  }
  bool mutation = request.kind == GraphqlRequest::Kind::kMutation;
  if (mutation) {
    for (const std::string& name : request.mutations) {
      const RefusedMutation* row = FindRefused(name);
      if (!row || (row->only_unattended && !unattended)) continue;
      std::string reason = name + " " + std::string(row->reason) +
                           (row->only_unattended ? "; refused while nobody watches the session"
                                                 : "; do this yourself on GitHub");
      return Verdict(Action::kRefuse, std::string(row->rule), std::move(reason));
    }
  }
  std::string rule;
  std::string outside = OutsideProject(request, project_repos, repo_of_node, rule);
  if (!outside.empty()) {
    if (mutation) return Verdict(Action::kRefuse, rule, "mutation refused: " + outside);
    return Verdict(
        Action::kWithoutToken, rule,
        "sent without the token (GitHub answers it as anonymous, public data only): " + outside);
  }
  if (mutation && request.repos.empty() && request.node_ids.empty()) {
    return Verdict(
        Action::kRefuse, "mutation-without-target",
        "mutation refused: it names no repository or node id, so the proxy cannot check that it "
        "stays within the project");
  }
  return Verdict(Action::kWithToken, "project-repo", "reaches only the project's repositories");
}

GraphqlVerdict JudgeGraphqlBody(std::string_view json_body,
                                const std::set<std::string>& project_repos,
                                const std::function<std::string(const std::string&)>& repo_of_node,
                                bool unattended) {
  auto request = ScanGraphql(json_body);
  if (!request.ok()) {
    return Verdict(
        Action::kRefuse, "graphql-unreadable",
        "the proxy could not read this GraphQL request exactly: " + request.error().message);
  }
  return JudgeGraphql(*request, project_repos, repo_of_node, unattended);
}

}  // namespace corral::netfilter::forge
