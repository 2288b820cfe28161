// The few fields of a REST request's JSON body that the history rules read
// (github_rest.cc). Private to netfilter/forge.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace corral::netfilter::forge::rest {

enum class BodyOutcome { kPass, kRefuse, kUnreadable };

// The body as a JSON object; nullopt when it is not JSON, not an object, or
// repeats a top-level key (GitHub would take one of them; which is a guess).
std::optional<nlohmann::json> ParseBodyObject(std::string_view text);

// Whether `branch`, named "main", "heads/main" or "refs/heads/main", is
// protected; case is ignored, so a near-twin is refused rather than guessed.
bool IsProtectedBranch(std::string_view branch, const std::set<std::string>& protected_branches);

// A ref update (PATCH git/refs/...): refused when "force" is true.
BodyOutcome CheckForce(const nlohmann::json& body);

// A ref creation (POST git/refs): refused when "ref" is refs/heads/<protected>.
BodyOutcome CheckNewRef(const nlohmann::json& body,
                        const std::set<std::string>& protected_branches);

// A contents write: refused when "branch" is absent, null or empty (the
// default branch) or protected.
BodyOutcome CheckContentsBranch(const nlohmann::json& body,
                                const std::set<std::string>& protected_branches);

// Merges and merge-upstream: refused when `field` names a protected branch.
BodyOutcome CheckBranchField(const nlohmann::json& body, const char* field,
                             const std::set<std::string>& protected_branches);

}  // namespace corral::netfilter::forge::rest
