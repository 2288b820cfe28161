// Bodies as gh (cli/cli at 44ee177, October 2024) sends them: each query
// text is gh's own, taken from its Go source (api/queries_*.go,
// api/query_builder.go, pkg/cmd/*/http.go) with the fields its commands ask
// for by default, and variables as those commands fill them. Each must go
// with the token when it is about the project's repository.
#include <map>

#include <gtest/gtest.h>

#include "netfilter/forge/graphql.h"

namespace corral::netfilter::forge {
namespace {

// gh auth status: api.CurrentLoginName (githubv4, so no variables key).
constexpr char kAuthStatus[] = R"json({"query": "query UserCurrent{viewer{login}}"})json";

// gh repo view: api.FetchRepository with the default fields name, owner, description.
constexpr char kRepoView[] =
    R"json({"query": "query RepositoryInfo($owner: String!, $name: String!) {\n\t\trepository(owner: $owner, name: $name) {name,owner{id,login},description}\n\t}", "variables": {"owner": "octo-org", "name": "widgets"}})json";

// gh pr create (and others): api.GitHubRepo, the project and its parent.
constexpr char kGithubRepo[] =
    R"json({"query": "\n\tfragment repo on Repository {\n\t\tid\n\t\tname\n\t\towner { login }\n\t\thasIssuesEnabled\n\t\tdescription\n\t\thasWikiEnabled\n\t\tviewerPermission\n\t\tdefaultBranchRef {\n\t\t\tname\n\t\t}\n\t}\n\n\tquery RepositoryInfo($owner: String!, $name: String!) {\n\t\trepository(owner: $owner, name: $name) {\n\t\t\t...repo\n\t\t\tparent {\n\t\t\t\t...repo\n\t\t\t}\n\t\t\tmergeCommitAllowed\n\t\t\trebaseMergeAllowed\n\t\t\tsquashMergeAllowed\n\t\t}\n\t}", "variables": {"owner": "octo-org", "name": "widgets"}})json";

// gh pr create: api.RepoNetwork, the remotes and their parents, with viewer.
constexpr char kRepoNetwork[] =
    R"json({"query": "\n\tfragment repo on Repository {\n\t\tid\n\t\tname\n\t\towner { login }\n\t\tviewerPermission\n\t\tdefaultBranchRef {\n\t\t\tname\n\t\t}\n\t\tisPrivate\n\t}\n\tquery RepositoryNetwork {\n\t\tviewer { login }\n\t\t\n\t\trepo_000: repository(owner: \"octo-org\", name: \"widgets\") {\n\t\t\t...repo\n\t\t\tparent {\n\t\t\t\t...repo\n\t\t\t}\n\t\t}\n\t\t\n\t}\n\t"})json";

// gh pr view 7: finder findByNumber with view.go's default fields.
constexpr char kPrView[] =
    R"json({"query": "\n\tquery PullRequestByNumber($owner: String!, $repo: String!, $pr_number: Int!) {\n\t\trepository(owner: $owner, name: $repo) {\n\t\t\tpullRequest(number: $pr_number) {url,number,title,state,body,author{login,...on User{id,name}},autoMergeRequest {authorEmail,commitBody,commitHeadline,mergeMethod,enabledAt,enabledBy{login,...on User{id,name}}},isDraft,maintainerCanModify,mergeable,additions,deletions,commits{totalCount},baseRefName,headRefName,headRepositoryOwner{id,login,...on User{name}},headRepository{id,name},isCrossRepository,reviewRequests(first: 100) {nodes {requestedReviewer {__typename,...on User{login},...on Team{organization{login}name,slug}}}},reviews(first: 100) {nodes {id,author{login},authorAssociation,submittedAt,body,state,commit{oid},reactionGroups{content,users{totalCount}}}pageInfo{hasNextPage,endCursor}totalCount},assignees(first:100){nodes{id,login,name},totalCount},labels(first:100){nodes{id,name,description,color},totalCount},projectCards(first:100){nodes{project{name}column{name}},totalCount},milestone{number,title,description,dueOn},comments(first: 100) {nodes {id,author{login,...on User{id,name}},authorAssociation,body,createdAt,includesCreatedEdit,isMinimized,minimizedReason,reactionGroups{content,users{totalCount}},url,viewerDidAuthor},pageInfo{hasNextPage,endCursor},totalCount},reactionGroups{content,users{totalCount}},createdAt,statusCheckRollup: commits(last: 1) {nodes {commit {statusCheckRollup {contexts(first:100) {nodes {__typename...on StatusContext {context,state,targetUrl,createdAt,description},...on CheckRun {name,checkSuite{workflowRun{workflow{name}}},status,conclusion,startedAt,completedAt,detailsUrl}},pageInfo{hasNextPage,endCursor}}}}}},id}\n\t\t}\n\t}", "variables": {"owner": "octo-org", "repo": "widgets", "pr_number": 7}})json";

// gh pr view: preloadPrReviews, the next page of reviews by node id (githubv4).
constexpr char kReviewsPreload[] =
    R"json({"query": "query ReviewsForPullRequest($endCursor:String$id:ID!){node(id: $id){...on PullRequest{reviews(first: 100, after: $endCursor){nodes{id,author{login},authorAssociation,submittedAt,body,state,commit{oid},reactionGroups{content,users{totalCount}}},pageInfo{hasNextPage,endCursor},totalCount}}}}", "variables": {"id": "PR_kwDOWidgets7", "endCursor": null}})json";

// gh pr list: listPullRequests with list.go's default fields.
constexpr char kPrList[] =
    R"json({"query": "fragment pr on PullRequest{number,title,state,url,headRefName,headRepositoryOwner{id,login,...on User{name}},isCrossRepository,isDraft,createdAt}\n\t\tquery PullRequestList(\n\t\t\t$owner: String!,\n\t\t\t$repo: String!,\n\t\t\t$limit: Int!,\n\t\t\t$endCursor: String,\n\t\t\t$baseBranch: String,\n\t\t\t$headBranch: String,\n\t\t\t$state: [PullRequestState!] = OPEN\n\t\t) {\n\t\t\trepository(owner: $owner, name: $repo) {\n\t\t\t\tpullRequests(\n\t\t\t\t\tstates: $state,\n\t\t\t\t\tbaseRefName: $baseBranch,\n\t\t\t\t\theadRefName: $headBranch,\n\t\t\t\t\tfirst: $limit,\n\t\t\t\t\tafter: $endCursor,\n\t\t\t\t\torderBy: {field: CREATED_AT, direction: DESC}\n\t\t\t\t) {\n\t\t\t\t\ttotalCount\n\t\t\t\t\tnodes {\n\t\t\t\t\t\t...pr\n\t\t\t\t\t}\n\t\t\t\t\tpageInfo {\n\t\t\t\t\t\thasNextPage\n\t\t\t\t\t\tendCursor\n\t\t\t\t\t}\n\t\t\t\t}\n\t\t\t}\n\t\t}", "variables": {"owner": "octo-org", "repo": "widgets", "state": ["OPEN"], "limit": 30}})json";

// gh pr create: api.CreatePullRequest.
constexpr char kPrCreate[] =
    R"json({"query": "\n\t\tmutation PullRequestCreate($input: CreatePullRequestInput!) {\n\t\t\tcreatePullRequest(input: $input) {\n\t\t\t\tpullRequest {\n\t\t\t\t\tid\n\t\t\t\t\turl\n\t\t\t\t}\n\t\t\t}\n\t}", "variables": {"input": {"repositoryId": "R_kgDOWidgets", "title": "Fix the frobnicator", "body": "Closes #12", "draft": false, "baseRefName": "main", "headRefName": "fix-frob"}}})json";

// gh pr comment: api.CommentCreate (githubv4).
constexpr char kPrComment[] =
    R"json({"query": "mutation CommentCreate($input:AddCommentInput!){addComment(input: $input){commentEdge{node{url}}}}", "variables": {"input": {"subjectId": "PR_kwDOWidgets7", "body": "LGTM"}}})json";

// gh issue list: listIssues with list.go's default fields.
constexpr char kIssueList[] =
    R"json({"query": "fragment issue on Issue {number,title,url,state,updatedAt,labels(first:100){nodes{id,name,description,color},totalCount}}\n\tquery IssueList($owner: String!, $repo: String!, $limit: Int, $endCursor: String, $states: [IssueState!] = OPEN, $assignee: String, $author: String, $mention: String) {\n\t\trepository(owner: $owner, name: $repo) {\n\t\t\thasIssuesEnabled\n\t\t\tissues(first: $limit, after: $endCursor, orderBy: {field: CREATED_AT, direction: DESC}, states: $states, filterBy: {assignee: $assignee, createdBy: $author, mentioned: $mention}) {\n\t\t\t\ttotalCount\n\t\t\t\tnodes {\n\t\t\t\t\t...issue\n\t\t\t\t}\n\t\t\t\tpageInfo {\n\t\t\t\t\thasNextPage\n\t\t\t\t\tendCursor\n\t\t\t\t}\n\t\t\t}\n\t\t}\n\t}\n\t", "variables": {"owner": "octo-org", "repo": "widgets", "states": ["OPEN"], "limit": 30}})json";

// gh issue create --assignee monalisa --label bug: api.IssueCreate.
constexpr char kIssueCreate[] =
    R"json({"query": "\n\tmutation IssueCreate($input: CreateIssueInput!) {\n\t\tcreateIssue(input: $input) {\n\t\t\tissue {\n\t\t\t\tid\n\t\t\t\turl\n\t\t\t}\n\t\t}\n\t}", "variables": {"input": {"repositoryId": "R_kgDOWidgets", "title": "Crash on start", "body": "Steps...", "assigneeIds": ["U_kgDOMonalisa"], "labelIds": ["LA_kwDOBug"]}}})json";

// gh issue create --assignee monalisa --label bug: api.RepoResolveMetadataIDs.
constexpr char kResolveMetadata[] =
    R"json({"query": "query RepositoryResolveMetadataIDs {\nu000: user(login:\"monalisa\"){id,login}\nrepository(owner:\"octo-org\",name:\"widgets\"){\nl000: label(name:\"bug\"){id,name}\n}\n}\n"})json";

// gh issue view: api.ProjectsV2ItemsForIssue (githubv4; variables sorted by name as it writes
// them).
constexpr char kIssueProjectItems[] =
    R"json({"query":"query IssueProjectItems($endCursor:String$name:String!$number:Int!$owner:String!){repository(owner: $owner, name: $name){issue(number: $number){projectItems(first: 100, after: $endCursor){nodes{id,project{id,title},status:fieldValueByName(name: \"Status\"){... on ProjectV2ItemFieldSingleSelectValue{optionId,name}}},pageInfo{hasNextPage,endCursor}}}}}","variables":{"endCursor":null,"name":"widgets","number":12,"owner":"octo-org"}})json";

const std::set<std::string> kProject = {"octo-org/widgets"};

// The ids gh would have read from earlier answers, resolved as the proxy would.
std::string RepoOfNode(const std::string& id) {
  static const std::map<std::string, std::string> kRepos = {{"R_kgDOWidgets", "octo-org/widgets"},
                                                            {"PR_kwDOWidgets7", "octo-org/widgets"},
                                                            {"LA_kwDOBug", "octo-org/widgets"}};
  auto found = kRepos.find(id);
  return found == kRepos.end() ? "" : found->second;
}

TEST(GhBodies, EachGoesWithTheToken) {
  for (const char* body :
       {kAuthStatus, kRepoView, kGithubRepo, kRepoNetwork, kPrView, kReviewsPreload, kPrList,
        kPrCreate, kPrComment, kIssueList, kIssueCreate, kResolveMetadata, kIssueProjectItems}) {
    for (bool unattended : {false, true}) {
      auto verdict = JudgeGraphqlBody(body, kProject, RepoOfNode, unattended);
      EXPECT_EQ(verdict.action, GraphqlVerdict::Action::kWithToken)
          << verdict.rule << ": " << verdict.reason << "\n"
          << body;
    }
  }
}

TEST(GhBodies, WhatTheyName) {
  auto view = ScanGraphql(kPrView);
  ASSERT_TRUE(view.ok()) << view.error().message;
  EXPECT_EQ(view->repos, std::vector<std::string>{"octo-org/widgets"});
  EXPECT_TRUE(view->node_ids.empty());
  EXPECT_FALSE(view->unbounded) << view->unbounded_why;

  auto network = ScanGraphql(kRepoNetwork);
  ASSERT_TRUE(network.ok()) << network.error().message;
  EXPECT_EQ(network->root_fields, (std::vector<std::string>{"viewer", "repository"}));

  auto comment = ScanGraphql(kPrComment);
  ASSERT_TRUE(comment.ok()) << comment.error().message;
  EXPECT_EQ(comment->kind, GraphqlRequest::Kind::kMutation);
  EXPECT_EQ(comment->mutations, std::vector<std::string>{"addComment"});
  EXPECT_EQ(comment->node_ids, std::vector<std::string>{"PR_kwDOWidgets7"});

  auto create = ScanGraphql(kIssueCreate);
  ASSERT_TRUE(create.ok()) << create.error().message;
  EXPECT_EQ(create->node_ids, (std::vector<std::string>{"LA_kwDOBug", "R_kgDOWidgets"}));
  EXPECT_EQ(create->actor_ids, std::vector<std::string>{"U_kgDOMonalisa"});
}

TEST(GhBodies, TheSameForAnotherRepositoryGoWithoutIt) {
  std::string view = kPrView;
  view.replace(view.find("\"octo-org\""), 10, "\"someone\"");
  auto verdict = JudgeGraphqlBody(view, kProject, RepoOfNode, false);
  EXPECT_EQ(verdict.action, GraphqlVerdict::Action::kWithoutToken) << verdict.reason;
  EXPECT_EQ(verdict.rule, "other-repo-read");
}

}  // namespace
}  // namespace corral::netfilter::forge
