#pragma once

// GitHub's GraphQL API (`POST /graphql`): what a request names and reaches,
// and whether the proxy adds the user's token to it. The token goes only to
// operations confined to the project's repositories.

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge {

inline constexpr std::size_t kMaxGraphqlBody = 256 * 1024;

// What the proxy needs to decide, read from the operation that would run.
struct GraphqlRequest {
  enum class Kind { kQuery, kMutation, kSubscription };
  Kind kind = Kind::kQuery;
  std::vector<std::string> repos;  // every repository named, "owner/name" lower case
  std::vector<std::string>
      node_ids;  // every node id given (the proxy resolves each to its repository)
  std::vector<std::string>
      actor_ids;  // people and teams named as assignees or reviewers
                  // (assigneeIds, userIds, teamIds): they belong to no repository
  std::vector<std::string>
      root_fields;  // the operation's top-level fields ("repository", "viewer", ...)
  std::vector<std::string> mutations;  // for a mutation, the same as root_fields
  bool unbounded = false;              // reads (or could read) beyond the repositories named
  std::string unbounded_why;           // the first field that made it so, and why
};

// Reads a JSON body {"query", "variables", "operationName"}. Errors on
// anything it cannot read exactly: bad JSON or GraphQL, an unknown or
// ambiguous operation, a missing or mistyped variable where a repository or
// id is read, fragment cycles, and bodies past 256 KiB, depth 64 or 10,000
// selections.
Result<GraphqlRequest> ScanGraphql(std::string_view json_body);

struct GraphqlVerdict {
  enum class Action { kWithToken, kWithoutToken, kRefuse };
  Action action = Action::kRefuse;
  std::string rule;    // short name of the rule that decided
  std::string reason;  // a sentence for the log and the 403 body
};

// `project_repos`: "owner/name" in lower case. `repo_of_node`: the repository
// a node id belongs to ("" when none or unknown); the caller resolves and
// caches. `unattended`: nobody watches, so history and merges are held back.
// Queries go with the token, or without it (GitHub then answers as to an
// anonymous client); mutations go with the token or are refused.
GraphqlVerdict JudgeGraphql(const GraphqlRequest& request,
                            const std::set<std::string>& project_repos,
                            const std::function<std::string(const std::string&)>& repo_of_node,
                            bool unattended);

// ScanGraphql then JudgeGraphql; a body that cannot be read is refused.
GraphqlVerdict JudgeGraphqlBody(std::string_view json_body,
                                const std::set<std::string>& project_repos,
                                const std::function<std::string(const std::string&)>& repo_of_node,
                                bool unattended);

}  // namespace corral::netfilter::forge
