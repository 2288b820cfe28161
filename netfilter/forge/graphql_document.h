#pragma once

// An executable GraphQL document as the proxy needs it: operations,
// fragments, fields with their arguments. Directives and types are read
// (so the syntax is checked whole) and dropped: they cannot change which
// objects a field reaches.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace corral::netfilter::forge::graphql {

// Nesting of selection sets, values and types the parser accepts.
inline constexpr int kMaxParseDepth = 64;

struct Value {
  enum class Kind { kVariable, kInt, kFloat, kString, kBoolean, kNull, kEnum, kList, kObject };
  Kind kind = Kind::kNull;
  std::string text;               // variable name, number as written, string, enum, "true"/"false"
  std::vector<Value> items;       // list items, or object field values
  std::vector<std::string> keys;  // object field names, one per item
};

struct Argument {
  std::string name;
  Value value;
};

struct Selection {
  enum class Kind { kField, kFragmentSpread, kInlineFragment };
  Kind kind = Kind::kField;
  std::string name;            // the field's name (not its alias), or the spread fragment's
  std::string type_condition;  // an inline fragment's `on Type`, "" when it has none
  std::vector<Argument> arguments;
  bool has_selection_set = false;  // false for a leaf field and a spread
  std::vector<Selection> selections;
};

struct VariableDefinition {
  std::string name;
  std::optional<Value> default_value;
};

struct Operation {
  enum class Kind { kQuery, kMutation, kSubscription };
  Kind kind = Kind::kQuery;
  std::string name;  // "" for an anonymous operation
  std::vector<VariableDefinition> variables;
  std::vector<Selection> selections;
};

struct Fragment {
  std::string name;
  std::string type_condition;
  std::vector<Selection> selections;
};

struct Document {
  std::vector<Operation> operations;
  std::vector<Fragment> fragments;
};

// The document, or an error for anything outside the spec's executable
// grammar, a type system definition, or nesting past kMaxParseDepth.
Result<Document> ParseDocument(std::string_view source);

}  // namespace corral::netfilter::forge::graphql
