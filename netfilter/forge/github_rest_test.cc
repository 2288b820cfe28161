#include "netfilter/forge/github_rest.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

namespace corral::netfilter::forge {
namespace {

using enum RestAction;

// "/repos/me/proj" -> {"repos","me","proj"}; "/" -> {}.
std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  if (path.starts_with('/')) path.remove_prefix(1);
  if (path.empty()) return out;
  for (std::size_t start = 0;;) {
    std::size_t end = path.find('/', start);
    out.emplace_back(path.substr(start, end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

RestContext Context(bool unattended) {
  RestContext context;
  context.project_repos = {"me/proj", "me/lib"};
  context.protected_branches = {"main", "release/1.x"};
  context.unattended = unattended;
  return context;
}

std::string ActionName(RestAction action) {
  switch (action) {
    case kWithToken: return "with-token";
    case kWithoutToken: return "without-token";
    case kRefuse: return "refuse";
    case kNeedBody: return "need-body";
  }
  return "?";
}

struct PathCase {
  const char* method;
  const char* path;
  bool unattended;
  RestAction action;
  const char* rule;
  const char* repo;
};

constexpr bool kAway = true;
constexpr bool kHere = false;

// Expected verdicts worked out from the brief and GitHub's REST reference.
const PathCase kPathCases[] = {
    // The repository itself.
    {"DELETE", "/repos/me/proj", kHere, kRefuse, "repo-delete", "me/proj"},
    {"GET", "/repos/me/proj", kHere, kWithToken, "project-repo", "me/proj"},
    {"HEAD", "/repos/me/lib", kAway, kWithToken, "project-repo", "me/lib"},
    {"PATCH", "/repos/me/proj", kHere, kRefuse, "repo-settings", "me/proj"},
    {"PATCH", "/repos/Me/PROJ", kHere, kRefuse, "repo-settings", "me/proj"},
    {"PUT", "/repos/me/proj/lfs", kHere, kRefuse, "repo-settings", "me/proj"},
    {"PUT", "/repos/me/proj/topics", kAway, kWithToken, "project-repo", "me/proj"},
    {"GET", "/repos/ME/Proj/pulls", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/pulls", kAway, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/issues/3/comments", kAway, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/transfer", kHere, kRefuse, "repo-transfer", "me/proj"},
    {"POST", "/repos/me/proj/forks", kHere, kRefuse, "repo-fork", "me/proj"},
    {"GET", "/repos/me/proj/forks", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/generate", kHere, kRefuse, "repo-generate", "me/proj"},
    // Access to the repository.
    {"PUT", "/repos/me/proj/collaborators/bob", kHere, kRefuse, "collaborators", "me/proj"},
    {"GET", "/repos/me/proj/collaborators", kHere, kWithToken, "project-repo", "me/proj"},
    {"PATCH", "/repos/me/proj/invitations/3", kHere, kRefuse, "collaborators", "me/proj"},
    {"DELETE", "/repos/me/proj/teams/x", kHere, kRefuse, "teams", "me/proj"},
    {"GET", "/repos/me/proj/teams", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/keys", kHere, kRefuse, "deploy-keys", "me/proj"},
    {"GET", "/repos/me/proj/keys", kHere, kWithToken, "project-repo", "me/proj"},
    {"GET", "/repos/me/proj/hooks", kHere, kRefuse, "hooks", "me/proj"},
    {"GET", "/repos/me/proj/HOOKS/1/config", kHere, kRefuse, "hooks", "me/proj"},
    // Secrets, variables, environments, Actions.
    {"GET", "/repos/me/proj/actions/secrets/public-key", kHere, kRefuse, "secrets", "me/proj"},
    {"PUT", "/repos/me/proj/actions/secrets/TOKEN", kHere, kRefuse, "secrets", "me/proj"},
    {"GET", "/repos/me/proj/actions/organization-secrets", kHere, kRefuse, "secrets", "me/proj"},
    {"PUT", "/repos/me/proj/dependabot/secrets/X", kHere, kRefuse, "secrets", "me/proj"},
    {"GET", "/repos/me/proj/codespaces/secrets", kHere, kRefuse, "secrets", "me/proj"},
    {"GET", "/repos/me/proj/environments/prod/secrets", kHere, kRefuse, "secrets", "me/proj"},
    {"GET", "/repos/me/proj/environments/prod/eu/secrets/K", kHere, kRefuse, "secrets", "me/proj"},
    {"GET", "/repos/me/proj/environments/prod", kHere, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/environments/prod", kHere, kRefuse, "environments", "me/proj"},
    {"POST", "/repos/me/proj/environments/prod/variables", kHere, kRefuse, "environments",
     "me/proj"},
    {"POST", "/repos/me/proj/actions/variables", kHere, kRefuse, "actions-variables", "me/proj"},
    {"GET", "/repos/me/proj/actions/variables", kHere, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/actions/permissions", kHere, kRefuse, "actions-permissions", "me/proj"},
    {"PUT", "/repos/me/proj/actions/permissions/workflow", kHere, kRefuse, "actions-permissions",
     "me/proj"},
    {"GET", "/repos/me/proj/actions/permissions", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/actions/runners/registration-token", kHere, kRefuse, "actions-runners",
     "me/proj"},
    {"POST", "/repos/me/proj/actions/runners/generate-jitconfig", kHere, kRefuse, "actions-runners",
     "me/proj"},
    {"GET", "/repos/me/proj/actions/runners", kHere, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/actions/oidc/customization/sub", kHere, kRefuse, "actions-oidc",
     "me/proj"},
    {"POST", "/repos/me/proj/actions/runs/5/pending_deployments", kHere, kRefuse,
     "deployment-approval", "me/proj"},
    {"POST", "/repos/me/proj/actions/runs/5/rerun", kAway, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/codespaces", kHere, kRefuse, "codespaces", "me/proj"},
    {"GET", "/repos/me/proj/codespaces", kHere, kWithToken, "project-repo", "me/proj"},
    // Guards of the branches and security settings.
    {"PUT", "/repos/me/proj/branches/main/protection", kHere, kRefuse, "branch-protection",
     "me/proj"},
    {"DELETE", "/repos/me/proj/branches/feature/x/protection/required_signatures", kHere, kRefuse,
     "branch-protection", "me/proj"},
    {"GET", "/repos/me/proj/branches/main/protection", kHere, kWithToken, "project-repo",
     "me/proj"},
    {"POST", "/repos/me/proj/rulesets", kHere, kRefuse, "rulesets", "me/proj"},
    {"GET", "/repos/me/proj/rulesets", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/tags/protection", kHere, kRefuse, "rulesets", "me/proj"},
    {"PATCH", "/repos/me/proj/properties/values", kHere, kRefuse, "custom-properties", "me/proj"},
    {"PUT", "/repos/me/proj/vulnerability-alerts", kHere, kRefuse, "security-settings", "me/proj"},
    {"DELETE", "/repos/me/proj/automated-security-fixes", kHere, kRefuse, "security-settings",
     "me/proj"},
    {"PUT", "/repos/me/proj/private-vulnerability-reporting", kHere, kRefuse, "security-settings",
     "me/proj"},
    {"GET", "/repos/me/proj/vulnerability-alerts", kHere, kWithToken, "project-repo", "me/proj"},
    {"PATCH", "/repos/me/proj/code-scanning/alerts/3", kHere, kRefuse, "security-alerts",
     "me/proj"},
    {"POST", "/repos/me/proj/secret-scanning/push-protection-bypasses", kHere, kRefuse,
     "security-alerts", "me/proj"},
    {"PATCH", "/repos/me/proj/dependabot/alerts/1", kHere, kRefuse, "security-alerts", "me/proj"},
    {"GET", "/repos/me/proj/code-scanning/alerts", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/security-advisories", kHere, kRefuse, "security-advisories",
     "me/proj"},
    {"POST", "/repos/me/proj/pages", kHere, kRefuse, "pages", "me/proj"},
    {"GET", "/repos/me/proj/pages", kHere, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/immutable-releases", kHere, kRefuse, "immutable-releases", "me/proj"},
    {"PUT", "/repos/me/proj/interaction-limits", kHere, kRefuse, "interaction-limits", "me/proj"},
    {"POST", "/repos/me/proj/autolinks", kHere, kRefuse, "autolinks", "me/proj"},
    {"POST", "/repos/me/proj/statuses/abc123", kHere, kRefuse, "commit-status", "me/proj"},
    {"POST", "/repos/me/proj/releases", kAway, kWithToken, "project-repo", "me/proj"},
    // History: refused while nobody watches, with the token while somebody does.
    {"DELETE", "/repos/me/proj/git/refs/heads/feature", kAway, kRefuse, "ref-delete", "me/proj"},
    {"DELETE", "/repos/me/proj/git/refs/heads/feature", kHere, kWithToken, "project-repo",
     "me/proj"},
    {"DELETE", "/repos/me/proj/git/refs/tags/v1", kAway, kRefuse, "ref-delete", "me/proj"},
    {"PATCH", "/repos/me/proj/git/refs/heads/main", kAway, kRefuse, "protected-branch", "me/proj"},
    {"PATCH", "/repos/me/proj/git/refs/heads/Main", kAway, kRefuse, "protected-branch", "me/proj"},
    {"PATCH", "/repos/me/proj/git/refs/heads/release/1.x", kAway, kRefuse, "protected-branch",
     "me/proj"},
    {"PATCH", "/repos/me/proj/git/refs/heads/main", kHere, kWithToken, "project-repo", "me/proj"},
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kAway, kNeedBody, "not-fast-forward",
     "me/proj"},
    {"POST", "/repos/me/proj/git/refs", kAway, kNeedBody, "protected-branch", "me/proj"},
    {"POST", "/repos/me/proj/git/refs", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/git/commits", kAway, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/contents/README.md", kAway, kNeedBody, "protected-branch", "me/proj"},
    {"DELETE", "/repos/me/proj/contents/a/b.txt", kAway, kNeedBody, "protected-branch", "me/proj"},
    {"PUT", "/repos/me/proj/contents/README.md", kHere, kWithToken, "project-repo", "me/proj"},
    {"GET", "/repos/me/proj/contents/README.md", kAway, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/pulls/7/merge", kAway, kRefuse, "merge-unattended", "me/proj"},
    {"PUT", "/repos/me/proj/pulls/7/merge", kHere, kWithToken, "project-repo", "me/proj"},
    {"GET", "/repos/me/proj/pulls/7/merge", kAway, kWithToken, "project-repo", "me/proj"},
    {"PUT", "/repos/me/proj/pulls/7/update-branch", kAway, kRefuse, "merge-unattended", "me/proj"},
    {"POST", "/repos/me/proj/merges", kAway, kNeedBody, "protected-branch", "me/proj"},
    {"POST", "/repos/me/proj/merges", kHere, kWithToken, "project-repo", "me/proj"},
    {"POST", "/repos/me/proj/merge-upstream", kAway, kNeedBody, "protected-branch", "me/proj"},
    {"POST", "/repos/me/proj/branches/feature/rename", kAway, kRefuse, "ref-delete", "me/proj"},
    {"POST", "/repos/me/proj/branches/feature/rename", kHere, kWithToken, "project-repo",
     "me/proj"},
    // Other repositories: read without the token, never written.
    {"POST", "/repos/other/x/issues", kHere, kRefuse, "other-repo-write", "other/x"},
    {"GET", "/repos/other/x", kHere, kWithoutToken, "other-repo-read", "other/x"},
    {"HEAD", "/repos/Other/X/contents/a", kHere, kWithoutToken, "other-repo-read", "other/x"},
    {"GET", "/repos/other/x/hooks", kHere, kWithoutToken, "other-repo-read", "other/x"},
    {"DELETE", "/repos/other/x/git/refs/heads/a", kHere, kRefuse, "other-repo-write", "other/x"},
    {"GET", "/repos/me/proj2", kHere, kWithoutToken, "other-repo-read", "me/proj2"},
    {"GET", "/repositories/123", kHere, kWithoutToken, "repo-by-id", ""},
    {"POST", "/repositories/123/issues", kHere, kRefuse, "repo-by-id", ""},
    // Malformed.
    {"GET", "/repos/me", kHere, kRefuse, "bad-path", ""},
    {"GET", "/repos", kHere, kRefuse, "bad-path", ""},
    {"GET", "/repos/me/pro j", kHere, kRefuse, "bad-path", ""},
    {"GET", "/repos/../proj", kHere, kRefuse, "bad-path", ""},
    {"GET", "/repos/me/a+b", kHere, kRefuse, "bad-path", ""},
    {"get", "/repos/me/proj", kHere, kRefuse, "bad-method", ""},
    {"OPTIONS", "/repos/me/proj", kHere, kRefuse, "bad-method", ""},
    {"", "/", kHere, kRefuse, "bad-method", ""},
    // Outside any repository.
    {"GET", "/", kHere, kWithToken, "account-read", ""},
    {"GET", "/user", kAway, kWithToken, "account-read", ""},
    {"HEAD", "/user", kAway, kWithToken, "account-read", ""},
    {"GET", "/rate_limit", kHere, kWithToken, "account-read", ""},
    {"GET", "/meta", kHere, kWithToken, "account-read", ""},
    {"GET", "/octocat", kHere, kWithToken, "account-read", ""},
    {"GET", "/zen", kHere, kWithToken, "account-read", ""},
    {"PATCH", "/user", kHere, kRefuse, "api-write-outside-project", ""},
    {"GET", "/user/emails", kHere, kWithoutToken, "api-read-outside-project", ""},
    {"GET", "/user/repos", kHere, kWithoutToken, "api-read-outside-project", ""},
    {"GET", "/search/issues", kHere, kWithoutToken, "api-read-outside-project", ""},
    {"POST", "/user/repos", kHere, kRefuse, "repo-create", ""},
    {"POST", "/orgs/acme/repos", kHere, kRefuse, "repo-create", ""},
    {"POST", "/gists", kHere, kRefuse, "gist-write", ""},
    {"PATCH", "/gists/abc", kHere, kRefuse, "gist-write", ""},
    {"GET", "/gists", kHere, kWithoutToken, "api-read-outside-project", ""},
    {"POST", "/user/keys", kHere, kRefuse, "account-keys", ""},
    {"DELETE", "/user/gpg_keys/1", kHere, kRefuse, "account-keys", ""},
    {"POST", "/user/ssh_signing_keys", kHere, kRefuse, "account-keys", ""},
    {"DELETE", "/applications/abc/token", kHere, kRefuse, "token-admin", ""},
    {"POST", "/user/emails", kHere, kRefuse, "account-emails", ""},
    {"PATCH", "/orgs/acme", kHere, kRefuse, "org-write", ""},
    {"PUT", "/teams/1/members/x", kHere, kRefuse, "org-write", ""},
    {"PUT", "/user/starred/other/x", kHere, kRefuse, "api-write-outside-project", ""},
    {"POST", "/user/codespaces", kHere, kRefuse, "api-write-outside-project", ""},
    {"POST", "/graphql", kHere, kNeedBody, "graphql", ""},
    {"POST", "/GraphQL", kHere, kNeedBody, "graphql", ""},
    {"GET", "/graphql", kHere, kRefuse, "graphql", ""},
    // github.com has no /api/v3: that is an ordinary unknown path there.
    {"GET", "/api/v3/repos/me/proj", kHere, kWithoutToken, "api-read-outside-project", ""},
};

std::string Describe(const PathCase& c) {
  return std::string(c.method) + " " + c.path + (c.unattended ? " (nobody watches)" : "");
}

TEST(GithubRestTest, PathTable) {
  for (const PathCase& c : kPathCases) {
    RestVerdict verdict = JudgeRest({c.method, Segments(c.path), false}, Context(c.unattended));
    EXPECT_EQ(ActionName(verdict.action), ActionName(c.action)) << Describe(c);
    EXPECT_EQ(verdict.rule, c.rule) << Describe(c);
    EXPECT_EQ(verdict.repo, c.repo) << Describe(c);
    EXPECT_FALSE(verdict.reason.empty()) << Describe(c);
  }
}

TEST(GithubRestTest, EnterpriseTable) {
  const PathCase cases[] = {
      {"GET", "/api/v3/repos/me/proj", kHere, kWithToken, "project-repo", "me/proj"},
      {"DELETE", "/api/v3/repos/me/proj", kHere, kRefuse, "repo-delete", "me/proj"},
      {"GET", "/API/V3/repos/me/proj/hooks", kHere, kRefuse, "hooks", "me/proj"},
      {"POST", "/api/v3/repos/other/x/pulls", kHere, kRefuse, "other-repo-write", "other/x"},
      {"GET", "/api/v3", kHere, kWithToken, "account-read", ""},
      {"GET", "/api/v3/user", kHere, kWithToken, "account-read", ""},
      {"POST", "/api/graphql", kHere, kNeedBody, "graphql", ""},
      {"POST", "/api/v3/graphql", kHere, kNeedBody, "graphql", ""},
      {"POST", "/api/uploads/repos/me/proj/releases/1/assets", kHere, kRefuse, "not-api", ""},
      {"GET", "/api/uploads/repos/me/proj/releases/1/assets", kHere, kWithoutToken, "not-api", ""},
      {"GET", "/me/proj.git/info/refs", kHere, kWithoutToken, "not-api", ""},
      {"GET", "/", kHere, kWithoutToken, "not-api", ""},
      {"PUT", "/api/v3/repos/me/proj/pulls/1/merge", kAway, kRefuse, "merge-unattended", "me/proj"},
  };
  for (const PathCase& c : cases) {
    RestVerdict verdict = JudgeRest({c.method, Segments(c.path), true}, Context(c.unattended));
    EXPECT_EQ(ActionName(verdict.action), ActionName(c.action)) << Describe(c);
    EXPECT_EQ(verdict.rule, c.rule) << Describe(c);
    EXPECT_EQ(verdict.repo, c.repo) << Describe(c);
  }
  // "/api/v3/" with its trailing slash is the root too.
  RestVerdict root = JudgeRest({"GET", {"api", "v3", ""}, true}, Context(false));
  EXPECT_EQ(root.rule, "account-read");
}

struct SegmentCase {
  const char* method;
  std::vector<std::string> segments;
  RestAction action;
  const char* rule;
};

// Paths as the resolver hands them over: empty segments, and '/' decoded
// from %2F inside a segment.
TEST(GithubRestTest, ResolvedSegments) {
  const SegmentCase cases[] = {
      {"DELETE", {"repos", "me", "proj", ""}, kRefuse, "repo-delete"},
      {"GET", {"repos", "me", "", "proj"}, kRefuse, "bad-path"},
      {"DELETE", {"repos", "me", "proj", "", ""}, kRefuse, "bad-path"},
      {"GET", {""}, kWithToken, "account-read"},
      {"GET", {"repos", "me", "proj/hooks"}, kRefuse, "hooks"},
      {"GET", {"repos", "me/proj"}, kWithToken, "project-repo"},
      {"PATCH", {"repos", "me", "proj", "git", "refs", "heads/main"}, kRefuse, "protected-branch"},
      {"PATCH",
       {"repos", "me", "proj", "git", "refs", "heads", "release/1.x"},
       kRefuse,
       "protected-branch"},
      {"GET", {"repos", "me", "proj", "environments", "prod/eu", "secrets"}, kRefuse, "secrets"},
      {"PUT",
       {"repos", "me", "proj", "branches", "a/b", "protection"},
       kRefuse,
       "branch-protection"},
      {"GET", {"repos", "me", std::string("pro\0j", 5)}, kRefuse, "bad-path"},
      {"GET", {"repos", "me", std::string(101, 'a')}, kRefuse, "bad-path"},
      {"GET", {"repos", "me", std::string(100, 'a')}, kWithoutToken, "other-repo-read"},
  };
  for (const SegmentCase& c : cases) {
    RestVerdict verdict = JudgeRest({c.method, c.segments, false}, Context(true));
    EXPECT_EQ(ActionName(verdict.action), ActionName(c.action)) << c.method << " " << c.rule;
    EXPECT_EQ(verdict.rule, c.rule) << c.method << " " << c.rule;
  }
}

struct BodyCase {
  const char* method;
  const char* path;
  bool unattended;
  const char* body;
  RestAction action;
  const char* rule;
};

const BodyCase kBodyCases[] = {
    // Ref updates: force, and the branch named in the path.
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kAway, R"({"sha":"ab","force":true})",
     kRefuse, "not-fast-forward"},
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kAway, R"({"sha":"ab","force":false})",
     kWithToken, "project-repo"},
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kAway, R"({"sha":"ab"})", kWithToken,
     "project-repo"},
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kHere, R"({"sha":"ab","force":true})",
     kWithToken, "project-repo"},
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kAway, R"({"force":"true"})", kRefuse,
     "bad-body"},
    {"PATCH", "/repos/me/proj/git/refs/heads/feature", kAway, R"({"force":false,"force":true})",
     kRefuse, "bad-body"},
    {"PATCH", "/repos/me/proj/git/refs/heads/main", kAway, R"({"sha":"ab","force":false})", kRefuse,
     "protected-branch"},
    {"PATCH", "/repos/me/proj/git/refs/tags/v1", kAway, R"({"sha":"ab","force":true})", kRefuse,
     "not-fast-forward"},
    {"PATCH", "/repos/me/proj/git/refs/tags/v1", kAway, R"({"sha":"ab"})", kWithToken,
     "project-repo"},
    // Ref creation.
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":"refs/heads/main","sha":"ab"})", kRefuse,
     "protected-branch"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":"refs/heads/MAIN","sha":"ab"})", kRefuse,
     "protected-branch"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":"refs/heads/release/1.x","sha":"ab"})",
     kRefuse, "protected-branch"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":"refs/heads/feature","sha":"ab"})",
     kWithToken, "project-repo"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":"refs/tags/main","sha":"ab"})", kWithToken,
     "project-repo"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":"heads/main","sha":"ab"})", kRefuse,
     "bad-body"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"sha":"ab"})", kRefuse, "bad-body"},
    {"POST", "/repos/me/proj/git/refs", kAway, R"({"ref":5})", kRefuse, "bad-body"},
    {"POST", "/repos/me/proj/git/refs", kHere, R"({"ref":"refs/heads/main"})", kWithToken,
     "project-repo"},
    // Contents: no branch is the default branch.
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"message":"m","content":"eA=="})", kRefuse,
     "protected-branch"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"message":"m","branch":"feature"})",
     kWithToken, "project-repo"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"message":"m","branch":"main"})", kRefuse,
     "protected-branch"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"branch":"refs/heads/release/1.x"})",
     kRefuse, "protected-branch"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"branch":""})", kRefuse,
     "protected-branch"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"branch":null})", kRefuse,
     "protected-branch"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"branch":7})", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway,
     R"({"branch":"feature","committer":{"name":"a","name":"b"}})", kWithToken, "project-repo"},
    {"PUT", "/repos/me/proj/contents/a.txt", kHere, R"({"message":"m"})", kWithToken,
     "project-repo"},
    {"DELETE", "/repos/me/proj/contents/a.txt", kAway, R"({"sha":"ab","branch":"feature"})",
     kWithToken, "project-repo"},
    {"DELETE", "/repos/me/proj/contents/a.txt", kAway, R"({"sha":"ab"})", kRefuse,
     "protected-branch"},
    // Merges.
    {"POST", "/repos/me/proj/merges", kAway, R"({"base":"main","head":"feature"})", kRefuse,
     "protected-branch"},
    {"POST", "/repos/me/proj/merges", kAway, R"({"base":"feature","head":"main"})", kWithToken,
     "project-repo"},
    {"POST", "/repos/me/proj/merges", kAway, R"({"head":"feature"})", kRefuse, "bad-body"},
    {"POST", "/repos/me/proj/merge-upstream", kAway, R"({"branch":"main"})", kRefuse,
     "protected-branch"},
    {"POST", "/repos/me/proj/merge-upstream", kAway, R"({"branch":"feature"})", kWithToken,
     "project-repo"},
    {"POST", "/repos/me/proj/merge-upstream", kAway, "{}", kRefuse, "bad-body"},
    // Bodies that are not a JSON object.
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, "{", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, "", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, "[]", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, "null", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"branch":"feature")", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, "{\"branch\":\"f\xff\"}", kRefuse, "bad-body"},
    {"PUT", "/repos/me/proj/contents/a.txt", kAway, R"({"branch":"feature"} {})", kRefuse,
     "bad-body"},
    // Requests that need no body are judged as without one.
    {"DELETE", "/repos/me/proj", kHere, "{", kRefuse, "repo-delete"},
    {"GET", "/repos/me/proj/pulls", kAway, "not json", kWithToken, "project-repo"},
    {"POST", "/graphql", kHere, R"({"query":"{viewer{login}}"})", kNeedBody, "graphql"},
};

TEST(GithubRestTest, BodyTable) {
  for (const BodyCase& c : kBodyCases) {
    RestVerdict verdict =
        JudgeRestBody({c.method, Segments(c.path), false}, Context(c.unattended), c.body);
    std::string what = std::string(c.method) + " " + c.path + " " + c.body;
    EXPECT_EQ(ActionName(verdict.action), ActionName(c.action)) << what;
    EXPECT_EQ(verdict.rule, c.rule) << what;
  }
}

TEST(GithubRestTest, UnknownDefaultBranchStillRefusesContentsWithoutBranch) {
  RestContext context = Context(true);
  context.protected_branches.clear();
  RestVerdict verdict = JudgeRestBody({"PUT", Segments("/repos/me/proj/contents/a"), false},
                                      context, R"({"message":"m"})");
  EXPECT_EQ(verdict.action, kRefuse);
  EXPECT_EQ(verdict.rule, "protected-branch");
}

// The body is bounded by the caller, but within the bound it may nest deeply.
TEST(GithubRestTest, DeeplyNestedBodyIsRefusedWithoutCrashing) {
  RestRequest request{"PUT", Segments("/repos/me/proj/contents/a"), false};
  std::string open(100000, '[');
  std::string closed = open + std::string(100000, ']');
  std::string in_field = R"({"branch":"feature","x":)" + closed + "}";
  EXPECT_EQ(JudgeRestBody(request, Context(true), open).rule, "bad-body");
  EXPECT_EQ(JudgeRestBody(request, Context(true), closed).rule, "bad-body");
  EXPECT_EQ(JudgeRestBody(request, Context(true), in_field).action, kWithToken);
}

TEST(GithubRestTest, ReasonsNameTheSetting) {
  RestVerdict other = JudgeRest({"POST", Segments("/repos/other/x/pulls"), false}, Context(false));
  EXPECT_NE(other.reason.find("forge.repositories"), std::string::npos) << other.reason;
  RestVerdict merge =
      JudgeRest({"PUT", Segments("/repos/me/proj/pulls/1/merge"), false}, Context(true));
  EXPECT_NE(merge.reason.find("somebody is watching"), std::string::npos) << merge.reason;
  EXPECT_NE(merge.reason.find("base branch"), std::string::npos) << merge.reason;
  RestVerdict branch =
      JudgeRest({"PATCH", Segments("/repos/me/proj/git/refs/heads/main"), false}, Context(true));
  EXPECT_NE(branch.reason.find("forge.protected_branches"), std::string::npos) << branch.reason;
}

TEST(GithubRestTest, DescribedTableIsComplete) {
  std::vector<RestRuleText> rows = DescribeRestRules();
  ASSERT_GT(rows.size(), 40u);
  EXPECT_EQ(rows.front().rule, "graphql");
  EXPECT_EQ(rows.back().rule, "api-write-outside-project");
  EXPECT_EQ(rows.back().path, "/**");
  EXPECT_EQ(rows.back().action, "refuse");
  std::set<std::string> rules;
  for (const RestRuleText& row : rows) {
    rules.insert(row.rule);
    EXPECT_FALSE(row.methods.empty()) << row.rule;
    EXPECT_TRUE(row.path.starts_with("/")) << row.rule;
    EXPECT_FALSE(row.reason.empty()) << row.rule;
    for (const char* place : {"{repos}", "{branches}", "{watching}"}) {
      EXPECT_EQ(row.reason.find(place), std::string::npos) << row.rule;
    }
  }
  for (const PathCase& c : kPathCases) {
    std::string rule = c.rule;
    if (rule != "bad-path" && rule != "bad-method") {
      EXPECT_TRUE(rules.contains(rule)) << rule;
    }
  }
  RestRuleText hooks;
  for (const RestRuleText& row : rows) {
    if (row.rule == "hooks") hooks = row;
  }
  EXPECT_EQ(hooks.methods, "any");
  EXPECT_EQ(hooks.path, "/repos/{owner}/{repo}/hooks/**");
  EXPECT_EQ(hooks.condition, "project repository");
}

// Hostile input: random paths, methods and bodies never crash, never carry
// the token beyond the project and the account reads, and a write outside
// the project is refused.
TEST(GithubRestTest, RandomRequestsKeepTheInvariants) {
  const std::vector<std::string> pieces = {
      "repos",        "me",       "proj",    "PROJ",    "other",  "x",  "git", "refs",
      "heads",        "main",     "hooks",   "",        "a/b",    "..", ".",   std::string("\0", 1),
      "%2F",          "api",      "v3",      "graphql", "user",   "**", "*",   "contents",
      "repositories", "\xff\xfe", "secrets", "actions", "me/proj"};
  const std::vector<std::string> methods = {"GET",    "HEAD", "POST",  "PUT", "PATCH",
                                            "DELETE", "get",  "TRACE", ""};
  const std::vector<std::string> bodies = {"",
                                           "{",
                                           "{}",
                                           R"({"force":true})",
                                           R"({"branch":"main"})",
                                           "[[[[[[[[[[",
                                           "\x00\x01",
                                           R"({"ref":"refs/heads/x"})",
                                           "1e999999"};
  std::mt19937 random(12345);
  for (int round = 0; round < 20000; ++round) {
    RestRequest request;
    request.method = methods[random() % methods.size()];
    request.enterprise = random() % 4 == 0;
    for (int n = random() % 9; n > 0; --n)
      request.segments.push_back(pieces[random() % pieces.size()]);
    RestContext context = Context(random() % 2 == 0);
    RestVerdict plain = JudgeRest(request, context);
    RestVerdict full = JudgeRestBody(request, context, bodies[random() % bodies.size()]);
    for (const RestVerdict& verdict : {plain, full}) {
      bool project = context.project_repos.contains(verdict.repo);
      if (verdict.action == kWithToken) {
        EXPECT_TRUE(project || (verdict.repo.empty() && verdict.rule == "account-read"))
            << verdict.rule;
      }
      bool read = request.method == "GET" || request.method == "HEAD";
      if (!read && !project) {
        EXPECT_TRUE(verdict.action == kRefuse ||
                    (verdict.action == kNeedBody && verdict.rule == "graphql"))
            << verdict.rule;
      }
      EXPECT_FALSE(verdict.reason.empty());
    }
    if (full.action == kNeedBody) {
      EXPECT_EQ(full.rule, "graphql");
    }
  }
}

}  // namespace
}  // namespace corral::netfilter::forge
