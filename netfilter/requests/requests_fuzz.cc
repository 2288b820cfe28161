// libFuzzer target for the request judge and the rule parser, fed the proxy's
// HTTP corpus (fuzz/corpus/proxy/): the request line and headers are read
// crudely from the bytes, so that malformed ones reach the judge too.
// Crashes, sanitizer reports and broken invariants (abort) are findings.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "netfilter/requests/requests.h"

namespace {

using namespace corral::netfilter::requests;

void Check(bool ok) {
  if (!ok) std::abort();
}

const RequestRules& Judge() {
  static const std::shared_ptr<const RequestRules> rules = [] {
    RequestRulesConfig config;
    config.rules = {"api.internal.example GET,HEAD /v1/**",
                    "deny api.internal.example * /v1/admin/**", "allow *.example.com POST /graphql",
                    "example.com * /**", "deny example.com DELETE /a/*/b/**"};
    config.registries = {{"npm.corp.example", RegistryKind::kNpm}};
    config.publish = {"crates"};
    auto made = RequestRules::Make(config);
    Check(made.ok());
    return *made;
  }();
  return *rules;
}

std::vector<std::string_view> Lines(std::string_view data) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < data.size() && lines.size() < 64;) {
    std::size_t end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

void JudgeOne(std::string_view host, std::string_view method, std::string_view target,
              const std::vector<HeaderField>& headers) {
  const RequestRules& rules = Judge();
  for (uint16_t port : {uint16_t{443}, uint16_t{80}}) {
    Verdict verdict = rules.Judge(host, port, method, target, headers);
    if (!verdict.allowed) Check(!verdict.reason.empty() && !verdict.rule.empty());
    if (rules.Covers(host, port) && verdict.allowed) Check(!verdict.rule.empty());
    if (!rules.Covers(host, port)) Check(verdict.allowed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, std::size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  std::vector<std::string_view> lines = Lines(data);
  if (lines.empty()) return 0;

  // The request line: METHOD SP TARGET SP VERSION.
  std::string_view first = lines[0];
  std::size_t space = first.find(' ');
  std::string_view method = first.substr(0, space);
  std::string_view rest = space == std::string_view::npos ? "" : first.substr(space + 1);
  std::string_view target = rest.substr(0, rest.find(' '));
  std::string host = "example.com";
  std::vector<HeaderField> headers;
  for (std::size_t i = 1; i < lines.size() && !lines[i].empty(); ++i) {
    std::size_t colon = lines[i].find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = lines[i].substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    headers.push_back({lines[i].substr(0, colon), value});
    if (lines[i].substr(0, colon) == "Host") host = std::string(value.substr(0, value.find(':')));
  }
  // An absolute-form target as the proxy forwards it: its path.
  std::string path(target);
  if (std::size_t scheme = path.find("://"); scheme != std::string::npos) {
    std::size_t slash = path.find('/', scheme + 3);
    path = slash == std::string::npos ? "/" : path.substr(slash);
  }
  for (std::string_view judged :
       {std::string_view(host), std::string_view("registry.npmjs.org"),
        std::string_view("api.internal.example"), std::string_view("a.example.com"),
        std::string_view("crates.io")}) {
    JudgeOne(judged, method, path, headers);
    JudgeOne(judged, method, target, headers);
  }

  // Every line as a rule's text: an accepted rule is accepted again as written.
  for (std::string_view line : lines) {
    auto rule = ParseRequestRule(line);
    if (rule) {
      auto again = ParseRequestRule(rule->text);
      Check(again.ok() && again->path == rule->path && again->methods == rule->methods);
    } else {
      Check(!rule.error().message.empty());
    }
  }
  return 0;
}
