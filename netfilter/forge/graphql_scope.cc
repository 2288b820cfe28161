#include "netfilter/forge/graphql_scope.h"

#include <algorithm>
#include <initializer_list>

namespace corral::netfilter::forge::graphql {
namespace {

bool In(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

IdRole IdRoleOf(std::string_view key) {
  // These end in "Id" yet hold a client's token or an app's, option's or
  // record's number, never a node.
  if (In(key, {"appId", "clientMutationId", "databaseId", "externalId", "integrationId",
               "iterationId", "repositoryRoleDatabaseId", "singleSelectOptionId"})) {
    return IdRole::kNone;
  }
  if (In(key, {"assigneeIds", "teamIds", "userIds"})) return IdRole::kActor;
  auto ends_with = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
  };
  if (key == "id" || key == "ids" || ends_with("Id") || ends_with("Ids")) return IdRole::kNode;
  return IdRole::kNone;
}

bool IsHarmlessRootField(std::string_view name) {
  return In(name, {"__schema", "__type", "__typename", "codeOfConduct", "codesOfConduct", "license",
                   "licenses", "meta", "rateLimit"});
}

bool IsViewerScalar(std::string_view name) {
  return In(name, {"__typename", "avatarUrl", "bio", "company", "createdAt", "databaseId", "email",
                   "id", "isSiteAdmin", "location", "login", "name", "resourcePath", "url"});
}

bool IsIdentityScalar(std::string_view name) {
  return In(name, {"__typename", "avatarUrl", "databaseId", "id", "login", "name", "resourcePath",
                   "slug", "url"});
}

bool IsRepositoryList(std::string_view name) {
  return In(name,
            {"forks", "gists", "itemShowcase", "pinnableItems", "pinnedItems", "repositories",
             "repositoriesContributedTo", "starredRepositories", "topRepositories", "watching"});
}

bool LeadsOutside(std::string_view name) {
  return In(
      name,
      {// Accounts, teams and enterprises: whose data is not the project's.
       "actor", "admin", "admins", "answerChosenBy", "app", "assignableUsers", "assignee",
       "assignees", "author", "blockedUser", "childTeams", "claimant", "collaborators", "creator",
       "deletedBy", "deletedCommentAuthor", "dismisser", "editor", "enabledBy", "enabler",
       "enqueuer", "enterprise", "enterpriseOwners", "enterprises", "followers", "following",
       "headRepositoryOwner", "invitee", "inviter", "inviterActor", "maintainer", "members",
       "membersWithRole", "mentionableUsers", "mentions", "mergedBy", "onBehalfOf", "organization",
       "organizations", "outsideCollaborators", "owner", "parentTeam", "participants",
       "pendingMembers", "pinnedBy", "pusher", "reactors", "relevantTeams", "removedUser",
       "repositoryOwner", "requestedReviewer", "resolvedBy", "reviewer", "reviewers", "signer",
       "sponsor", "sponsorEntity", "sponsorable", "sponsoring", "sponsors", "stargazers", "team",
       "teams", "uploadedBy", "user", "users", "viewer", "watchers",
       // Other repositories: forks, parents, templates, a pull request's head.
       "baseRepository", "commitRepository", "compare", "fromRepository", "headRepository",
       "parent", "source", "templateRepository",
       // Issues and pull requests that may live in another repository.
       "associatedPullRequests", "closedByPullRequestsReferences", "closingIssuesReferences",
       "subIssues", "trackedInIssues", "trackedIssues",
       // Projects, gists and lists: they gather items from any repository.
       "column", "columns", "gist", "items", "project", "projectColumn", "projectV2", "projects",
       "projectsV2", "recentProjects", "starrable", "subscribable"});
}

bool IsOutsideType(std::string_view type_name) {
  // Cross-reference events point at issues and commits of other repositories
  // (ReferencedEvent.commit, CrossReferencedEvent.source); no field returns
  // one of them directly, so a type condition always names them.
  if (type_name.size() > 5 && type_name.substr(type_name.size() - 5) == "Event") return true;
  return In(type_name, {"Actor",
                        "App",
                        "Assignee",
                        "Bot",
                        "Claimable",
                        "Enterprise",
                        "EnterpriseMember",
                        "EnterpriseUserAccount",
                        "Gist",
                        "Mannequin",
                        "Organization",
                        "PackageOwner",
                        "ProfileOwner",
                        "Project",
                        "ProjectColumn",
                        "ProjectOwner",
                        "ProjectV2",
                        "ProjectV2Owner",
                        "RepositoryOwner",
                        "RequestedReviewer",
                        "Sponsor",
                        "Sponsorable",
                        "Team",
                        "User"});
}

bool IsConnectionWrapper(std::string_view name) {
  return In(name, {"edges", "node", "nodes", "pageInfo"});
}

bool IsShallowDetail(std::string_view name) {
  return In(name, {"codeOfConduct", "defaultBranchRef", "licenseInfo", "primaryLanguage"});
}

bool IsContentScalar(std::string_view name) {
  return In(name, {"body", "bodyHTML", "bodyText", "message", "messageBody", "messageBodyHTML",
                   "messageHeadline", "messageHeadlineHTML", "readme", "text"});
}

}  // namespace corral::netfilter::forge::graphql
