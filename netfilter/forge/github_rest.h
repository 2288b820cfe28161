// The judge for GitHub's REST API (api.github.com, and GitHub Enterprise
// Server under /api/v3/): whether a request carries the user's token, goes
// without it, or is refused. Pure: no I/O, no state.
//
// Before its one table of rules (github_rest.cc) the judge refuses a method
// other than GET HEAD POST PUT PATCH DELETE ("bad-method"), a path with an
// empty segment or an invalid /repos/{owner}/{repo} ("bad-path"); on the GHE
// host it strips "api","v3", takes "api","graphql" as /graphql, and sends any
// other path (e.g. /api/uploads/...) on without the token for reads and
// refuses its writes ("not-api"). A segment holding a decoded '/' is split
// there, so "git/refs/heads%2Fmain" is judged as git/refs/heads/main.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace corral::netfilter::forge {

struct RestRequest {
  std::string method;                 // "GET", ... (case-sensitive, as HTTP has it)
  std::vector<std::string> segments;  // the resolved path; GHE: starting "api","v3"
  bool enterprise = false;            // the GHE host, whose API lives under /api/v3/
};

struct RestContext {
  std::set<std::string> project_repos;       // lower-case "owner/name"
  std::set<std::string> protected_branches;  // branch names, the default branch included
  bool unattended = false;                   // nobody watches: the history rules apply
};

enum class RestAction { kWithToken, kWithoutToken, kRefuse, kNeedBody };

struct RestVerdict {
  RestAction action = RestAction::kRefuse;
  std::string repo;    // "owner/name" in lower case when the path names one
  std::string rule;    // short id for the log: "repo-delete", "other-repo-write", ...
  std::string reason;  // for the 403 body: what was refused, why, and what would allow it
};

// Judges a request from its method and path. kNeedBody means: read the body
// (small, JSON) and ask JudgeRestBody; rule "graphql" means: route to the
// GraphQL judge instead.
RestVerdict JudgeRest(const RestRequest& request, const RestContext& context);

// The same request judged with its body; a body that is not a JSON object
// with the expected fields, or repeats a top-level key, is refused
// ("bad-body"). Never returns kNeedBody except for GraphQL.
RestVerdict JudgeRestBody(const RestRequest& request, const RestContext& context,
                          std::string_view json_body);

// One row of the rule table in words, for docs/forge.md and `--print`.
struct RestRuleText {
  std::string methods;    // "GET HEAD", "POST PUT PATCH DELETE", "any", ...
  std::string path;       // "/repos/{owner}/{repo}/hooks/**" (* one segment, ** any)
  std::string condition;  // "project repository, while nobody watches, ...", or ""
  std::string action;     // "with token", "without token", "refuse", "read the body"
  std::string rule;
  std::string reason;
};

// The table, first match wins, in order.
std::vector<RestRuleText> DescribeRestRules();

}  // namespace corral::netfilter::forge
