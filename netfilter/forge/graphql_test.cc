// ScanGraphql: what a request names and reaches. Expected repositories, ids
// and verdicts are worked out by hand from the query text.
#include "netfilter/forge/graphql.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace corral::netfilter::forge {
namespace {

using nlohmann::json;
using Strings = std::vector<std::string>;

std::string Body(std::string_view query, json variables = nullptr, json operation_name = nullptr) {
  json body = {{"query", std::string(query)}};
  if (!variables.is_null()) body["variables"] = variables;
  if (!operation_name.is_null()) body["operationName"] = operation_name;
  return body.dump();
}

GraphqlRequest Scan(std::string_view query, json variables = nullptr,
                    json operation_name = nullptr) {
  auto request = ScanGraphql(Body(query, variables, operation_name));
  EXPECT_TRUE(request.ok()) << query << "\n" << (request.ok() ? "" : request.error().message);
  return request.ok() ? *request : GraphqlRequest{};
}

bool ScanFails(std::string_view query, json variables = nullptr, json operation_name = nullptr) {
  return !ScanGraphql(Body(query, variables, operation_name)).ok();
}

TEST(ScanGraphql, RepositoryByOwnerAndName) {
  auto request = Scan(
      R"({ repository(owner: "Octo-Org", name: "WIDGETS") { issues(first: 5) { nodes { title body } } } })");
  EXPECT_EQ(request.kind, GraphqlRequest::Kind::kQuery);
  EXPECT_EQ(request.repos, Strings{"octo-org/widgets"});
  EXPECT_EQ(request.root_fields, Strings{"repository"});
  EXPECT_TRUE(request.node_ids.empty());
  EXPECT_FALSE(request.unbounded) << request.unbounded_why;
}

TEST(ScanGraphql, AliasesDoNotHideARepository) {
  auto request = Scan(
      R"({ a: repository(owner: "me", name: "p") { name } b: repository(owner: "x", name: "y") { name } })");
  EXPECT_EQ(request.repos, (Strings{"me/p", "x/y"}));
}

TEST(ScanGraphql, VariablesAndDefaults) {
  const char* query =
      R"(query($o: String!, $n: String = "widgets") { repository(owner: $o, name: $n) { name } })";
  EXPECT_EQ(Scan(query, {{"o", "octo-org"}}).repos, Strings{"octo-org/widgets"});
  EXPECT_EQ(Scan(query, {{"o", "octo-org"}, {"n", "secret"}}).repos, Strings{"octo-org/secret"});
  EXPECT_TRUE(ScanFails(query));                                       // $o missing, no default
  EXPECT_TRUE(ScanFails(query, {{"o", 42}}));                          // not a string
  EXPECT_TRUE(ScanFails(query, {{"o", nullptr}}));                     // null
  EXPECT_TRUE(ScanFails(query, {{"o", {"octo-org"}}}));                // a list
  EXPECT_TRUE(ScanFails(query, {{"o", "octo-org"}, {"n", nullptr}}));  // null beats the default
  EXPECT_TRUE(
      ScanFails(R"({ repository(owner: $o, name: "p") { name } })", {{"o", "me"}}));  // not defined
  EXPECT_TRUE(ScanFails(R"(query($n: Int = 3) { repository(owner: "me", name: $n) { name } })"));
}

TEST(ScanGraphql, RepositoryNeedsBothStrings) {
  EXPECT_TRUE(ScanFails(R"({ repository(owner: "me") { name } })"));
  EXPECT_TRUE(ScanFails(R"({ repository(name: "p") { name } })"));
  EXPECT_TRUE(ScanFails(R"({ repository(owner: ME, name: "p") { name } })"));
  EXPECT_TRUE(ScanFails(R"({ repository(owner: "", name: "p") { name } })"));
  EXPECT_TRUE(ScanFails(R"({ repository(owner: ["me"], name: "p") { name } })"));
}

TEST(ScanGraphql, StringsAsTheSpecReadsThem) {
  EXPECT_EQ(Scan(R"({ repository(owner: "me", name: "\u0070roj") { name } })").repos,
            Strings{"me/proj"});
  EXPECT_EQ(Scan("{ repository(owner: \"\"\"octo-org\"\"\", name: \"\"\"\n     widgets\n  \"\"\") "
                 "{ name } }")
                .repos,
            Strings{"octo-org/widgets"});
  // What a comment holds is not read; what a string holds is not a comment.
  auto request = Scan(
      "{ repository(owner: \"me\", name: \"p#x\") { name } # repository(owner: \"x\", name: "
      "\"y\")\n }");
  EXPECT_EQ(request.repos, Strings{"me/p#x"});
}

TEST(ScanGraphql, FragmentsAndInlineFragments) {
  auto request = Scan(R"(
    query { ...Root  ... on Query { b: repository(owner: "b", name: "two") { ...Fields } } }
    fragment Root on Query { repository(owner: "a", name: "one") { ...Fields } }
    fragment Fields on Repository { name ... on Repository { c: repository { name } } })");
  EXPECT_EQ(request.repos, (Strings{"a/one", "b/two"}));
  EXPECT_EQ(request.root_fields, Strings{"repository"});
  EXPECT_TRUE(ScanFails("{ ...Missing }"));
  auto cycle =
      ScanGraphql(Body("{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }"));
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.error().message.find("spreads itself"), std::string::npos)
      << cycle.error().message;
  EXPECT_TRUE(ScanFails("{ ...A } fragment A on Query { viewer { ...A } }"));
  EXPECT_TRUE(ScanFails("{ ...A } fragment A on Query { a } fragment A on Query { b }"));
}

TEST(ScanGraphql, OwnerForms) {
  EXPECT_TRUE(ScanFails(R"({ user(login: $u) { id } })"));  // $u is not defined
  auto request = Scan(R"(query($u: String!) {
    repositoryOwner(login: "Octo-Org") { login repository(name: "widgets") { issues { totalCount } } }
    user(login: $u) { ... on User { repository(name: "dots") { name } } } })",
                      {{"u", "Mona"}});
  EXPECT_EQ(request.repos, (Strings{"octo-org/widgets", "mona/dots"}));
  EXPECT_FALSE(request.unbounded) << request.unbounded_why;
  EXPECT_TRUE(ScanFails(R"({ organization(login: "o") { repository(owner: "o") { name } } })"));
  EXPECT_TRUE(ScanFails(R"({ organization { login } })"));
  EXPECT_TRUE(ScanFails(R"({ organization(login: "") { repository(name: "p") { name } } })"));

  request =
      Scan(R"({ organization(login: "octo-org") { repositories(first: 10) { nodes { name } } } })");
  EXPECT_TRUE(request.unbounded);
  request = Scan(
      R"({ organization(login: "octo-org") { membersWithRole(first: 10) { nodes { login } } } })");
  EXPECT_TRUE(request.unbounded);
  // Looking a person or a team up by name reads nothing of theirs.
  request = Scan(
      R"({ u000: user(login: "monalisa") { id, login } organization(login: "o") { t: team(slug: "core") { id slug } } })");
  EXPECT_FALSE(request.unbounded) << request.unbounded_why;
  EXPECT_TRUE(
      Scan(R"({ organization(login: "o") { team(slug: "core") { repositories { totalCount } } } })")
          .unbounded);
}

TEST(ScanGraphql, OperationName) {
  const char* doc = R"(query A { repository(owner: "me", name: "p") { name } }
                       query B { repository(owner: "x", name: "y") { name } })";
  EXPECT_EQ(Scan(doc, nullptr, "A").repos, Strings{"me/p"});
  EXPECT_EQ(Scan(doc, nullptr, "B").repos, Strings{"x/y"});
  EXPECT_TRUE(ScanFails(doc));  // two operations, none named
  EXPECT_TRUE(ScanFails(doc, nullptr, "C"));
  EXPECT_TRUE(ScanFails(doc, nullptr, 7));
  EXPECT_TRUE(ScanFails("query A { a } query A { b }", nullptr, "A"));
  EXPECT_TRUE(ScanFails("{ a } query B { b }", nullptr, "B"));
  EXPECT_EQ(Scan("query Only { viewer { login } }").root_fields, Strings{"viewer"});
}

TEST(ScanGraphql, NodeIdsAnywhereInArguments) {
  auto request =
      Scan(R"(mutation($input: UpdateIssueInput!, $more: [ID!]) {
      updateIssue(input: $input) { issue { id } }
      b: addLabelsToLabelable(input: {labelableId: "I_2", labelIds: ["LA_1", "LA_2"], clientMutationId: "tok"}) { clientMutationId }
      c: requestReviews(input: {pullRequestId: "PR_3", userIds: ["U_1"], teamIds: ["T_1"]}) { clientMutationId }
      d: closeIssue(input: {issueId: 5, nested: {deeper: [{subjectId: "X_9"}]}}) { clientMutationId }
      e: removeLabelsFromLabelable(input: {labelableId: "I_2", labelIds: $more}) { clientMutationId }
    })",
           json::parse(R"({"input": {"id": "I_1", "assigneeIds": ["U_2"], "body": "R_not_an_id",
                                                "extra": {"deep": [{"projectIds": ["PVT_1"]}]}},
                                      "more": ["LA_3"]})"));
  // Variables' objects are read in key order: assigneeIds, body, extra, id.
  EXPECT_EQ(request.kind, GraphqlRequest::Kind::kMutation);
  EXPECT_EQ(request.node_ids,
            (Strings{"PVT_1", "I_1", "I_2", "LA_1", "LA_2", "PR_3", "5", "X_9", "LA_3"}));
  EXPECT_EQ(request.actor_ids, (Strings{"U_2", "U_1", "T_1"}));
  EXPECT_EQ(request.mutations, (Strings{"updateIssue", "addLabelsToLabelable", "requestReviews",
                                        "closeIssue", "removeLabelsFromLabelable"}));
  EXPECT_EQ(request.root_fields, request.mutations);
  EXPECT_EQ(Scan(R"({ node(id: "PR_1") { id } nodes(ids: ["I_1", "I_2"]) { id } })").node_ids,
            (Strings{"PR_1", "I_1", "I_2"}));
  // An id that is neither a string nor a number cannot be followed.
  EXPECT_TRUE(ScanFails(R"({ node(id: true) { id } })"));
  EXPECT_TRUE(ScanFails(R"(query($i: ID!) { node(id: $i) { id } })", {{"i", 1.5}}));
  EXPECT_TRUE(ScanFails(R"(mutation { a(input: {repositoryId: ENUM}) { b } })"));
}

TEST(ScanGraphql, RepositoriesNamedInMutationInputs) {
  auto request = Scan(R"(mutation { createCommitOnBranch(input: {
      branch: {repositoryNameWithOwner: "Octo-Org/Widgets", branchName: "main"},
      message: {headline: "x"}, expectedHeadOid: "abc", fileChanges: {}}) { commit { oid } } })");
  EXPECT_EQ(request.repos, Strings{"octo-org/widgets"});
  EXPECT_TRUE(request.node_ids.empty());
  request = Scan(
      R"(mutation { addSubIssue(input: {issueId: "I_1", subIssueUrl: "https://github.com/Other/Private/issues/3"}) { clientMutationId } })");
  EXPECT_EQ(request.repos, Strings{"other/private"});
  EXPECT_TRUE(ScanFails(R"(mutation { a(input: {repositoryNameWithOwner: "nowhere"}) { b } })"));
  EXPECT_TRUE(ScanFails(R"(mutation { a(input: {repositoryNameWithOwner: "a/b/c"}) { b } })"));
  EXPECT_TRUE(ScanFails(
      R"(mutation { a(input: {subIssueUrl: "https://example.com/o/n/issues/1"}) { b } })"));
}

TEST(ScanGraphql, UnboundedReads) {
  struct Case {
    const char* query;
    bool unbounded;
  };
  for (
      const Case& c : std::initializer_list<Case>{
          {"{ viewer { login } }", false},
          {"{ viewer { login name email ... on User { id } } }", false},
          {"{ viewer { repositories(first: 100) { nodes { nameWithOwner } } } }", true},
          {"{ viewer { organizations(first: 100) { nodes { login } } } }", true},
          {"{ viewer { bioHTML } }", true},
          {R"({ search(query: "repo:octo-org/widgets", type: ISSUE, first: 5) { issueCount } })",
           true},
          {R"({ resource(url: "https://github.com/x/y") { url } })", true},
          {R"({ relay { repository(owner: "me", name: "p") { name } } })", true},
          {"{ rateLimit { remaining } __typename __schema { types { name fields { name } } } }",
           false},
          {R"({ r: repository(owner: "me", name: "p") { parent { name nameWithOwner owner { login } defaultBranchRef { name } } } })",
           false},
          {R"({ r: repository(owner: "me", name: "p") { parent { object(expression: "HEAD:secret.txt") { id } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { parent { description body } } })", true},
          {R"({ r: repository(owner: "me", name: "p") { forks(first: 5) { totalCount } } })", true},
          {R"({ r: repository(owner: "me", name: "p") { templateRepository { issues { totalCount } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { owner { repositories { totalCount } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { owner { repository(name: "secret") { id } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { owner { login ... on User { name } } } })",
           false},
          {R"({ r: repository(owner: "me", name: "p") { pullRequest(number: 1) { headRepository { name url isPrivate } } } })",
           false},
          {R"({ r: repository(owner: "me", name: "p") { pullRequest(number: 1) { headRepository { issues { totalCount } } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { pullRequest(number: 1) { author { ... on User { issues { nodes { title } } } } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { issue(number: 1) { timelineItems { nodes { ... on CrossReferencedEvent { source { ... on Issue { body } } } } } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { issue(number: 1) { timelineItems { nodes { ... on ReferencedEvent { commit { message } } } } } } })",
           true},
          {R"({ r: repository(owner: "me", name: "p") { issue(number: 1) { timelineItems { nodes { __typename ... on ClosedEvent { createdAt } } } } } })",
           false},
          {R"({ r: repository(owner: "me", name: "p") { pullRequest(number: 1) { closingIssuesReferences { nodes { number url } } } } })",
           false},
          {R"({ r: repository(owner: "me", name: "p") { pullRequest(number: 1) { closingIssuesReferences { nodes { body } } } } })",
           true},
          {R"({ node(id: "U_1") { ... on User { repositories { totalCount } } } })", true},
          {R"({ node(id: "R_1") { ... on Repository { issues { nodes { body } } } } })", false},
      }) {
    auto request = Scan(c.query);
    EXPECT_EQ(request.unbounded, c.unbounded) << c.query << "\n" << request.unbounded_why;
    EXPECT_EQ(request.unbounded_why.empty(), !c.unbounded) << c.query;
  }
  EXPECT_NE(
      Scan("{ viewer { repositories { totalCount } } }").unbounded_why.find("viewer.repositories"),
      std::string::npos);
}

TEST(ScanGraphql, DirectivesDoNotHideFields) {
  auto request = Scan(
      R"(query($skip: Boolean = true) { repository(owner: "x", name: "y") @skip(if: $skip) { name } })");
  EXPECT_EQ(request.repos, Strings{"x/y"});
}

TEST(ScanGraphql, BodyShape) {
  EXPECT_EQ(ScanGraphql(R"({"query":"{viewer{login}}","variables":null,"operationName":null})")
                ->root_fields,
            Strings{"viewer"});
  for (std::string_view bad :
       {R"({"query":"{viewer{login}}","query":"{search(query:\"x\"){issueCount}}"})",
        R"({"query":"{a}","extensions":{}})", R"({"query":1})", R"({"variables":{}})",
        R"({"query":"{a}","variables":[]})", R"([{"query":"{a}"}])", R"({"query":"{a}")", "",
        "\"{a}\"", R"({"query":"{a}","variables":{"x":1,"x":2}})", "{\"query\":\"{a}\xff\"}"}) {
    EXPECT_FALSE(ScanGraphql(bad).ok()) << bad;
  }
}

TEST(ScanGraphql, BombsAreErrors) {
  // A body past 256 KiB.
  std::string big = Body("{ viewer { login } }" + std::string(kMaxGraphqlBody, ' '));
  EXPECT_FALSE(ScanGraphql(big).ok());
  // JSON nested past 64.
  std::string deep =
      R"({"query":"{a}","variables":{"v":)" + std::string(100, '[') + std::string(100, ']') + "}}";
  EXPECT_FALSE(ScanGraphql(deep).ok());
  // Selections nested past 64, through fields or fragments.
  std::string fields = "{ repository(owner: \"me\", name: \"p\") ";
  for (int i = 0; i < 70; ++i) fields += "{ a ";
  fields += "{ b }" + std::string(70, '}') + " }";
  EXPECT_TRUE(ScanFails(fields));
  std::string chain = "{ ...F0 }";
  for (int i = 0; i < 70; ++i)
    chain += " fragment F" + std::to_string(i) + " on Query { ...F" + std::to_string(i + 1) + " }";
  chain += " fragment F70 on Query { a }";
  EXPECT_TRUE(ScanFails(chain));
  // Each fragment spreads the next twice: 2^40 selections unless bounded.
  std::string doubling = "{ ...F0 }";
  for (int i = 0; i < 40; ++i) {
    std::string next = "F" + std::to_string(i + 1);
    doubling += " fragment F" + std::to_string(i) + " on Query { ..." + next + " ..." + next + " }";
  }
  doubling += " fragment F40 on Query { a }";
  EXPECT_TRUE(ScanFails(doubling));
  // The same with a large variable read at every spread.
  json many = json::array();
  for (int i = 0; i < 5000; ++i) many.push_back("N_" + std::to_string(i));
  std::string wide = "query($ids: [ID!]!) { ...G0 }";
  for (int i = 0; i < 12; ++i) {
    std::string next = "G" + std::to_string(i + 1);
    wide += " fragment G" + std::to_string(i) + " on Query { ..." + next + " ..." + next + " }";
  }
  wide += " fragment G12 on Query { nodes(ids: $ids) { id } }";
  EXPECT_TRUE(ScanFails(wide, {{"ids", many}}));
}

TEST(ScanGraphql, HostileBytesNeverCrash) {
  // Every prefix of a realistic body, and every single-byte change of it,
  // either scans or fails: the sanitizers catch anything worse.
  std::string body =
      Body(R"(query Q($o: String!, $i: ID! = "x") { repository(owner: $o, name: """p""") {
      ...F ... on Repository { parent { name } } } node(id: $i) { id } } fragment F on Repository { name })",
           {{"o", "me"}}, "Q");
  for (std::size_t cut = 0; cut <= body.size(); ++cut) (void)ScanGraphql(body.substr(0, cut));
  for (std::size_t i = 0; i < body.size(); ++i) {
    for (char c : {'\0', '"', '\\', '{', '}', '$', '#', '.', 'x', '\xff'}) {
      std::string changed = body;
      changed[i] = c;
      (void)ScanGraphql(changed);
    }
  }
}

}  // namespace
}  // namespace corral::netfilter::forge
