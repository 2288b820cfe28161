// JudgeGraphql: with the token, without it, or refused, and the rule that
// says why. Expected verdicts follow DESIGN.md's "The git host" section.
#include <map>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "netfilter/forge/graphql.h"

namespace corral::netfilter::forge {
namespace {

using Action = GraphqlVerdict::Action;

const std::set<std::string> kProject = {"octo-org/widgets", "octo-org/docs"};

// Node ids as the proxy would resolve them through the API.
struct FakeResolver {
  std::map<std::string, std::string> repos = {
      {"R_widgets", "Octo-Org/Widgets"}, {"PR_widgets_7", "octo-org/widgets"},
      {"REF_main", "octo-org/widgets"},  {"R_secret", "someone/secret"},
      {"I_secret_1", "someone/secret"},  {"U_mona", ""}};
  std::vector<std::string> asked;
  std::function<std::string(const std::string&)> Function() {
    return [this](const std::string& id) {
      asked.push_back(id);
      auto found = repos.find(id);
      return found == repos.end() ? std::string() : found->second;
    };
  }
};

GraphqlVerdict Judge(std::string_view query, nlohmann::json variables = nullptr,
                     bool unattended = false) {
  nlohmann::json body = {{"query", std::string(query)}};
  if (!variables.is_null()) body["variables"] = variables;
  FakeResolver resolver;
  return JudgeGraphqlBody(body.dump(), kProject, resolver.Function(), unattended);
}

void ExpectVerdict(const GraphqlVerdict& verdict, Action action, std::string_view rule) {
  EXPECT_EQ(verdict.action, action) << verdict.rule << ": " << verdict.reason;
  EXPECT_EQ(verdict.rule, rule) << verdict.reason;
  EXPECT_FALSE(verdict.reason.empty());
}

TEST(JudgeGraphql, QueriesOnTheProjectGoWithTheToken) {
  ExpectVerdict(
      Judge(R"({ repository(owner: "octo-org", name: "widgets") { issues { totalCount } } })"),
      Action::kWithToken, "project-repo");
  ExpectVerdict(Judge(R"({ node(id: "PR_widgets_7") { ... on PullRequest { title } } })"),
                Action::kWithToken, "project-repo");
  ExpectVerdict(Judge("{ viewer { login } rateLimit { remaining } }"), Action::kWithToken,
                "project-repo");
}

TEST(JudgeGraphql, QueriesBeyondTheProjectGoWithoutTheToken) {
  ExpectVerdict(
      Judge(R"({ repository(owner: "someone", name: "secret") { issues { totalCount } } })"),
      Action::kWithoutToken, "other-repo-read");
  ExpectVerdict(Judge(R"({ a: repository(owner: "octo-org", name: "widgets") { name }
                           b: repository(owner: "someone", name: "secret") { name } })"),
                Action::kWithoutToken, "other-repo-read");
  ExpectVerdict(Judge(R"({ node(id: "I_secret_1") { id } })"), Action::kWithoutToken,
                "other-repo-read");
  ExpectVerdict(Judge(R"({ node(id: "U_mona") { id } })"), Action::kWithoutToken, "unknown-node");
  ExpectVerdict(Judge(R"({ node(id: "never-seen") { id } })"), Action::kWithoutToken,
                "unknown-node");
  auto verdict = Judge("{ viewer { repositories(first: 100) { nodes { name } } } }");
  ExpectVerdict(verdict, Action::kWithoutToken, "unbounded-read");
  EXPECT_NE(verdict.reason.find("viewer.repositories"), std::string::npos) << verdict.reason;
  ExpectVerdict(Judge(R"({ search(query: "repo:octo-org/widgets", type: ISSUE) { issueCount } })"),
                Action::kWithoutToken, "unbounded-read");
}

TEST(JudgeGraphql, MutationsNeedAProjectTarget) {
  const char* create =
      R"(mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { url } } })";
  ExpectVerdict(Judge(create, {{"input", {{"repositoryId", "R_widgets"}, {"title", "t"}}}}),
                Action::kWithToken, "project-repo");
  ExpectVerdict(Judge(create, {{"input", {{"repositoryId", "R_secret"}, {"title", "t"}}}}),
                Action::kRefuse, "other-repo-write");
  ExpectVerdict(Judge(create, {{"input", {{"repositoryId", "R_unknown"}, {"title", "t"}}}}),
                Action::kRefuse, "unknown-node");
  // A project target beside another repository's id is still refused.
  ExpectVerdict(
      Judge(
          R"(mutation { createPullRequest(input: {repositoryId: "R_widgets", headRepositoryId: "R_secret",
                          baseRefName: "main", headRefName: "x", title: "t"}) { pullRequest { url } } })"),
      Action::kRefuse, "other-repo-write");
  ExpectVerdict(
      Judge(
          R"(mutation { createCommitOnBranch(input: {branch: {repositoryNameWithOwner: "someone/secret",
                          branchName: "main"}, expectedHeadOid: "0", message: {headline: "x"}}) { commit { oid } } })"),
      Action::kRefuse, "other-repo-write");
  ExpectVerdict(
      Judge(R"(mutation { changeUserStatus(input: {message: "on leave"}) { clientMutationId } })"),
      Action::kRefuse, "mutation-without-target");
  ExpectVerdict(
      Judge(R"(mutation { requestReviews(input: {userIds: ["U_mona"]}) { clientMutationId } })"),
      Action::kRefuse, "mutation-without-target");
  // What the mutation's answer selects is judged as a query's would be.
  ExpectVerdict(Judge(R"(mutation { addComment(input: {subjectId: "PR_widgets_7", body: "x"}) {
                          commentEdge { node { author { ... on User { repositories { totalCount } } } } } } })"),
                Action::kRefuse, "other-repo-read");
}

TEST(JudgeGraphql, PeopleNamedInAMutationAreNotResolved) {
  nlohmann::json body = {
      {"query",
       "mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { url } } }"},
      {"variables", {{"input", {{"repositoryId", "R_widgets"}, {"assigneeIds", {"U_mona"}}}}}}};
  auto request = ScanGraphql(body.dump());
  ASSERT_TRUE(request.ok()) << request.error().message;
  FakeResolver resolver;
  ExpectVerdict(JudgeGraphql(*request, kProject, resolver.Function(), true), Action::kWithToken,
                "project-repo");
  EXPECT_EQ(resolver.asked, std::vector<std::string>{"R_widgets"});
}

TEST(JudgeGraphql, RefusedMutationsEvenOnTheProject) {
  for (bool unattended : {false, true}) {
    ExpectVerdict(
        Judge(
            R"(mutation { updateRepository(input: {repositoryId: "R_widgets", hasWikiEnabled: false}) {
                            clientMutationId } })",
            nullptr, unattended),
        Action::kRefuse, "repo-settings");
    ExpectVerdict(
        Judge(
            R"(mutation { archiveRepository(input: {repositoryId: "R_widgets"}) { clientMutationId } })",
            nullptr, unattended),
        Action::kRefuse, "repo-lifecycle");
    ExpectVerdict(
        Judge(
            R"(mutation { createBranchProtectionRule(input: {repositoryId: "R_widgets", pattern: "main"}) {
                            clientMutationId } })",
            nullptr, unattended),
        Action::kRefuse, "branch-protection");
    ExpectVerdict(
        Judge(
            R"(mutation { createRepository(input: {name: "x", visibility: PUBLIC}) { clientMutationId } })",
            nullptr, unattended),
        Action::kRefuse, "repo-lifecycle");
  }
}

TEST(JudgeGraphql, MutationsInFragmentsAreFound) {
  auto verdict = Judge(R"(mutation { ... on Mutation { ...M } }
                          fragment M on Mutation { archiveRepository(input: {repositoryId: "R_widgets"}) { clientMutationId } })");
  ExpectVerdict(verdict, Action::kRefuse, "repo-lifecycle");
  ExpectVerdict(
      Judge(
          R"(query { ...Q } fragment Q on Query { search(query: "x", type: REPOSITORY) { repositoryCount } })"),
      Action::kWithoutToken, "unbounded-read");
}

TEST(JudgeGraphql, HistoryAndMergesWaitForAPerson) {
  struct Case {
    const char* mutation;
    const char* rule;
  };
  for (
      const Case& c : std::initializer_list<Case>{
          {R"(mutation { deleteRef(input: {refId: "REF_main"}) { clientMutationId } })", "history"},
          {R"(mutation { updateRef(input: {refId: "REF_main", oid: "abc", force: true}) { clientMutationId } })",
           "history"},
          {R"(mutation { createCommitOnBranch(input: {branch: {repositoryNameWithOwner: "octo-org/widgets",
               branchName: "main"}, expectedHeadOid: "0", message: {headline: "x"}}) { commit { oid } } })",
           "history"},
          {R"(mutation { mergePullRequest(input: {pullRequestId: "PR_widgets_7"}) { clientMutationId } })",
           "merge"},
          {R"(mutation { enablePullRequestAutoMerge(input: {pullRequestId: "PR_widgets_7"}) { clientMutationId } })",
           "merge"},
      }) {
    ExpectVerdict(Judge(c.mutation, nullptr, false), Action::kWithToken, "project-repo");
    ExpectVerdict(Judge(c.mutation, nullptr, true), Action::kRefuse, c.rule);
  }
}

TEST(JudgeGraphql, SubscriptionsAndUnreadableBodiesAreRefused) {
  ExpectVerdict(
      Judge(R"(subscription { repository(owner: "octo-org", name: "widgets") { name } })"),
      Action::kRefuse, "graphql-subscription");
  FakeResolver resolver;
  auto verdict = JudgeGraphqlBody("{\"query\": \"{ repository(owner: \\\"octo-org\\\" ", kProject,
                                  resolver.Function(), false);
  ExpectVerdict(verdict, Action::kRefuse, "graphql-unreadable");
  EXPECT_EQ(verdict.reason.rfind("the proxy could not read this GraphQL request exactly", 0), 0u)
      << verdict.reason;
  ExpectVerdict(Judge("{ ...A } fragment A on Query { ...A }"), Action::kRefuse,
                "graphql-unreadable");
}

}  // namespace
}  // namespace corral::netfilter::forge
