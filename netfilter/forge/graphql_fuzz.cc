// libFuzzer target for the GraphQL judge. Every input is tried as a request
// body, and again as the query text of a well-formed body so the lexer and
// parser are reached past JSON. Crashes, sanitizer reports and broken
// invariants (abort) are findings. Seeds: fuzz/corpus/forge_graphql/.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "netfilter/forge/graphql.h"

namespace {

using namespace corral::netfilter::forge;

void Check(bool ok) {
  if (!ok) std::abort();
}

const std::set<std::string> kProject = {"octo-org/widgets"};

// Node ids that name the project resolve to it; anything else to nothing.
std::string RepoOfNode(const std::string& id) {
  return id.find("Widgets") != std::string::npos ? "octo-org/widgets" : "";
}

void CheckRequest(std::string_view body) {
  auto request = ScanGraphql(body);
  auto again = ScanGraphql(body);
  Check(request.ok() == again.ok());
  if (!request.ok()) {
    Check(JudgeGraphqlBody(body, kProject, RepoOfNode, true).action ==
          GraphqlVerdict::Action::kRefuse);
    return;
  }
  Check(request->repos == again->repos && request->node_ids == again->node_ids);
  Check(request->unbounded == !request->unbounded_why.empty());
  for (const std::string& repo : request->repos) {
    Check(repo.find('/') != std::string::npos);
    for (char c : repo) Check(c < 'A' || c > 'Z');
  }
  bool mutation = request->kind == GraphqlRequest::Kind::kMutation;
  Check(mutation ? request->mutations == request->root_fields : request->mutations.empty());

  for (bool unattended : {false, true}) {
    auto verdict = JudgeGraphql(*request, kProject, RepoOfNode, unattended);
    Check(!verdict.rule.empty() && !verdict.reason.empty());
    if (request->unbounded) Check(verdict.action != GraphqlVerdict::Action::kWithToken);
    if (mutation) Check(verdict.action != GraphqlVerdict::Action::kWithoutToken);
    if (request->kind == GraphqlRequest::Kind::kQuery)
      Check(verdict.action != GraphqlVerdict::Action::kRefuse);
    if (request->kind == GraphqlRequest::Kind::kSubscription)
      Check(verdict.action == GraphqlVerdict::Action::kRefuse);
    if (verdict.action == GraphqlVerdict::Action::kWithToken) {
      for (const std::string& repo : request->repos) Check(kProject.count(repo) == 1);
      for (const std::string& id : request->node_ids) Check(RepoOfNode(id) == "octo-org/widgets");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  CheckRequest(data);
  nlohmann::json wrapped = {{"query", std::string(data)},
                            {"variables", {{"o", "octo-org"}, {"n", "widgets"}}}};
  CheckRequest(wrapped.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return 0;
}
