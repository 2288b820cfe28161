#pragma once

// Walks the operation that would run, following fragments, and records what
// it names and reaches (see GraphqlRequest).

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "netfilter/forge/graphql.h"
#include "netfilter/forge/graphql_document.h"

namespace corral::netfilter::forge::graphql {

inline constexpr int kMaxSelectionDepth = 64;  // fields, fragments and inline fragments nested
inline constexpr int kMaxSelections = 10000;   // visited, fragments counted each time spread
inline constexpr int kMaxValues = 200000;      // argument and variable values visited

// Fills every member of `out` but `kind` from `operation`. `variables` is the
// request's "variables" object (an empty object when it had none).
Result<void> WalkOperation(const Document& doc, const Operation& operation,
                           const nlohmann::json& variables, GraphqlRequest& out);

}  // namespace corral::netfilter::forge::graphql
