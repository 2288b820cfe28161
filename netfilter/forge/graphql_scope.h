#pragma once

// What GitHub's schema lets a field reach, by name. The walker knows no
// types, so a name that leaves the repository on any type is taken to leave
// it everywhere; the tables were drawn from GitHub's public schema
// (octokit/graphql-schema) and err towards "leaves".

#include <string_view>

namespace corral::netfilter::forge::graphql {

// Root query fields that read no repository at all (rate limit, schema).
bool IsHarmlessRootField(std::string_view name);

// Scalars of `viewer` that say who the token is and nothing it can reach.
bool IsViewerScalar(std::string_view name);

// Scalars naming an account or team (looking one up by login or slug).
bool IsIdentityScalar(std::string_view name);

// A list of repositories, pinned items or gists: reading it reads beyond the
// project whatever is selected (its names alone say what private work exists).
bool IsRepositoryList(std::string_view name);

// An object-valued field whose value may belong to another repository or to
// an account (owner, author, parent, headRepository, project, ...): only
// shallow selections are read through it.
bool LeadsOutside(std::string_view name);

// A type condition (`... on User`) on an account, another repository or a
// cross-reference event, whose fields may reach outside the project.
bool IsOutsideType(std::string_view type_name);

// Connection plumbing (nodes, edges, node, pageInfo): no data of its own.
bool IsConnectionWrapper(std::string_view name);

// Small descriptive objects a shallow selection may still read
// (defaultBranchRef { name }, primaryLanguage { name }, ...).
bool IsShallowDetail(std::string_view name);

// Scalars holding written content (body, text, commit message, readme):
// refused through a field that leads outside.
bool IsContentScalar(std::string_view name);

// What an argument or input field of this name holds: node ids (id, ids,
// ...Id, ...Ids), ids of people or teams named as assignees or reviewers,
// or nothing the judge follows (clientMutationId, appId, ...).
enum class IdRole { kNone, kNode, kActor };
IdRole IdRoleOf(std::string_view key);

}  // namespace corral::netfilter::forge::graphql
