#include "netfilter/forge/graphql.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "netfilter/forge/graphql_document.h"
#include "netfilter/forge/graphql_walk.h"

namespace corral::netfilter::forge {
namespace {

using nlohmann::json;

constexpr int kMaxJsonDepth = 64;

// Nesting of arrays and objects, counted before parsing so the parser never
// meets a hostile depth.
int JsonDepth(std::string_view body) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// The body as JSON, refusing a key given twice in one object: GitHub would
// read one of them and the proxy must not read the other.
Result<json> ParseJson(std::string_view body) {
  std::vector<std::set<std::string>> keys;
  bool duplicate = false;
  json::parser_callback_t check = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && parsed.is_string() &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      duplicate = true;
    }
    return true;
  };
  try {
    json parsed = json::parse(body.begin(), body.end(), check);
    if (duplicate) return Error("GraphQL body: a JSON key is given twice");
    return parsed;
  } catch (const json::exception& e) {
    return Error(std::string("GraphQL body is not JSON: ") + e.what());
  }
}

// The operation that runs: the one `operationName` names, else the only one.
Result<const graphql::Operation*> SelectOperation(const graphql::Document& doc, const json& name) {
  std::set<std::string> names;
  for (const auto& op : doc.operations) {
    if (!op.name.empty() && !names.insert(op.name).second) {
      return Error("GraphQL document: operation " + op.name + " is defined twice");
    }
    if (op.name.empty() && doc.operations.size() > 1) {
      return Error("GraphQL document: an anonymous operation beside others");
    }
  }
  if (name.is_null()) {
    if (doc.operations.size() != 1)
      return Error("GraphQL body: several operations and no operationName");
    return &doc.operations.front();
  }
  if (!name.is_string()) return Error("GraphQL body: operationName is not a string");
  for (const auto& op : doc.operations) {
    if (op.name == name.get<std::string>()) return &op;
  }
  return Error("GraphQL body: no operation named by operationName");
}

GraphqlRequest::Kind KindOf(graphql::Operation::Kind kind) {
  switch (kind) {
    case graphql::Operation::Kind::kQuery: return GraphqlRequest::Kind::kQuery;
    case graphql::Operation::Kind::kMutation: return GraphqlRequest::Kind::kMutation;
    case graphql::Operation::Kind::kSubscription: return GraphqlRequest::Kind::kSubscription;
  }
  return GraphqlRequest::Kind::kSubscription;
}

}  // namespace

Result<GraphqlRequest> ScanGraphql(std::string_view json_body) {
  if (json_body.size() > kMaxGraphqlBody) return Error("GraphQL body is larger than 256 KiB");
  if (JsonDepth(json_body) > kMaxJsonDepth) return Error("GraphQL body nests JSON deeper than 64");
  auto body = ParseJson(json_body);
  if (!body.ok()) return body.error();
  if (!body->is_object()) return Error("GraphQL body is not a JSON object");
  json query, variables = json::object(), operation_name;
  for (auto it = body->begin(); it != body->end(); ++it) {
    if (it.key() == "query")
      query = it.value();
    else if (it.key() == "variables")
      variables = it.value().is_null() ? json::object() : it.value();
    else if (it.key() == "operationName")
      operation_name = it.value();
    else
      return Error("GraphQL body: unknown key \"" + it.key().substr(0, 40) + "\"");
  }
  if (!query.is_string()) return Error("GraphQL body: query is missing or not a string");
  if (!variables.is_object()) return Error("GraphQL body: variables is not an object");

  auto doc = graphql::ParseDocument(query.get<std::string>());
  if (!doc.ok()) return doc.error();
  auto operation = SelectOperation(*doc, operation_name);
  if (!operation.ok()) return operation.error();

  GraphqlRequest request;
  request.kind = KindOf((*operation)->kind);
  auto walked = graphql::WalkOperation(*doc, **operation, variables, request);
  if (!walked.ok()) return walked.error();
  return request;
}

}  // namespace corral::netfilter::forge
