#include <gtest/gtest.h>

#include "netfilter/requests/requests.h"

namespace corral::netfilter::requests {
namespace {

struct Case {
  std::string_view name;
  std::string_view host;
  std::string_view method;
  std::string_view target;
  std::vector<HeaderField> headers;
  bool allowed;
  std::string_view rule_has = "";  // part of the verdict's rule
};

std::shared_ptr<const RequestRules> Make(RequestRulesConfig config) {
  auto made = RequestRules::Make(std::move(config));
  EXPECT_TRUE(made.ok()) << made.error().message;
  return made.ok() ? *made : nullptr;
}

void Check(const RequestRules& rules, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    Verdict verdict = rules.Judge(c.host, 443, c.method, c.target, c.headers);
    EXPECT_EQ(verdict.allowed, c.allowed)
        << c.name << ": " << verdict.rule << ": " << verdict.reason;
    EXPECT_NE(verdict.rule.find(c.rule_has), std::string::npos) << c.name << ": " << verdict.rule;
    if (!verdict.allowed) {
      EXPECT_FALSE(verdict.reason.empty()) << c.name;
    }
  }
}

RequestRulesConfig ConfigOf(std::vector<std::string> rules,
                            std::vector<RegistryHost> registries = {},
                            std::vector<std::string> publish = {},
                            std::vector<std::string> allowed_domains = {}) {
  RequestRulesConfig config;
  config.rules = std::move(rules);
  config.registries = std::move(registries);
  config.publish = std::move(publish);
  config.allowed_domains = std::move(allowed_domains);
  return config;
}

constexpr std::string_view kNpm = "registry.npmjs.org";

// Each refusal sits beside its twin, the nearest request that must pass.
TEST(RegistriesTest, ReadOnlyByDefault) {
  auto rules = Make(RequestRulesConfig());
  Check(
      *rules,
      {
          {"npm install: packument", kNpm, "GET", "/left-pad", {}, true, "registry npm read"},
          {"npm install: scoped packument (escaped '/')", kNpm, "GET", "/@types%2fnode", {}, true},
          {"npm install: tarball", kNpm, "GET", "/left-pad/-/left-pad-1.3.0.tgz", {}, true},
          {"npm publish", kNpm, "PUT", "/left-pad", {}, false, "registry npm read-only"},
          {"npm unpublish", kNpm, "DELETE", "/left-pad/-rev/1", {}, false},
          {"npm dist-tag", kNpm, "PUT", "/-/package/left-pad/dist-tags/latest", {}, false},
          {"npm deprecate / owner",
           kNpm,
           "PUT",
           "/left-pad",
           {{"Content-Type", "application/json"}},
           false},
          {"npm audit: bulk",
           kNpm,
           "POST",
           "/-/npm/v1/security/advisories/bulk",
           {},
           true,
           "advisories/bulk"},
          {"npm audit: quick", kNpm, "POST", "/-/npm/v1/security/audits/quick", {}, true},
          {"npm audit: full", kNpm, "POST", "/-/npm/v1/security/audits", {}, true},
          {"yarn's host takes the audit too",
           "registry.yarnpkg.com",
           "POST",
           "/-/npm/v1/security/audits",
           {},
           true},
          {"a POST under the audit path is not the audit",
           kNpm,
           "POST",
           "/-/npm/v1/security/audits/x",
           {},
           false},
          {"a POST under the bulk path",
           kNpm,
           "POST",
           "/-/npm/v1/security/advisories/bulk/x",
           {},
           false},
          {"a POST above the audit path", kNpm, "POST", "/-/npm/v1/security", {}, false},
          {"a PUT to the audit path", kNpm, "PUT", "/-/npm/v1/security/audits", {}, false},
          {"the audit path, escaped ('..' into it)",
           kNpm,
           "POST",
           "/-/npm/v1/security/x/%2e%2e/audits",
           {},
           true},
          {"the audit path through an escaped '/'",
           kNpm,
           "POST",
           "/-/npm/v1/security%2faudits",
           {},
           false},
          {"npm login (a write)", kNpm, "PUT", "/-/user/org.couchdb.user:me", {}, false},
          {"npm web login", kNpm, "POST", "/-/v1/login", {}, false},
          {"lower-case get is not GET", kNpm, "get", "/left-pad", {}, false},
          {"a read with a body", kNpm, "GET", "/left-pad", {{"Content-Length", "5"}}, false},
          {"a read with an empty body", kNpm, "GET", "/left-pad", {{"Content-Length", "0"}}, true},
          {"a chunked read", kNpm, "GET", "/x", {{"Transfer-Encoding", "chunked"}}, false},
          {"OPTIONS", kNpm, "OPTIONS", "/left-pad", {}, false},
          {"cargo fetch: sparse index", "index.crates.io", "GET", "/se/rd/serde", {}, true},
          {"cargo download",
           "static.crates.io",
           "GET",
           "/crates/serde/serde-1.0.0.crate",
           {},
           true},
          {"cargo publish", "crates.io", "PUT", "/api/v1/crates/new", {}, false, "registry crates"},
          {"cargo search", "crates.io", "GET", "/api/v1/crates?q=serde", {}, true},
          {"cargo yank", "crates.io", "DELETE", "/api/v1/crates/x/1.0.0/yank", {}, false},
          {"cargo unyank", "crates.io", "PUT", "/api/v1/crates/x/1.0.0/unyank", {}, false},
          {"cargo owner", "crates.io", "PUT", "/api/v1/crates/x/owners", {}, false},
          {"gem install", "index.rubygems.org", "GET", "/info/rails", {}, true},
          {"gem push", "rubygems.org", "POST", "/api/v1/gems", {}, false, "registry rubygems"},
          {"gem yank", "rubygems.org", "DELETE", "/api/v1/gems/yank", {}, false},
          {"pip install", "pypi.org", "GET", "/simple/requests/", {}, true},
          {"pip download", "files.pythonhosted.org", "GET", "/packages/ab/cd/x.whl", {}, true},
          {"twine upload to pypi.org/legacy/", "pypi.org", "POST", "/legacy/", {}, false},
          {"go get", "proxy.golang.org", "GET", "/golang.org/x/mod/@v/list", {}, true},
          {"go: a POST to the proxy", "proxy.golang.org", "POST", "/x", {}, false},
          {"sum.golang.org lookup", "sum.golang.org", "HEAD", "/lookup/x@v1", {}, true},
          {"a host's name with a trailing dot", "registry.npmjs.org.", "PUT", "/x", {}, false},
          {"a host's name in capitals", "REGISTRY.NPMJS.ORG", "PUT", "/x", {}, false},
          {"a host without rules", "example.com", "PUT", "/x", {}, true},
      });
}

TEST(RegistriesTest, SmugglingShapesRefusedEvenOnGet) {
  auto rules = Make(RequestRulesConfig());
  Check(*rules,
        {
            {"X-HTTP-Method-Override",
             kNpm,
             "GET",
             "/x",
             {{"X-HTTP-Method-Override", "PUT"}},
             false,
             "method-override"},
            {"X-HTTP-Method", kNpm, "GET", "/x", {{"x-http-method", "DELETE"}}, false},
            {"X-Method-Override",
             kNpm,
             "POST",
             "/-/npm/v1/security/audits",
             {{"X-Method-Override", "PUT"}},
             false},
            {"an override spelled with '_'",
             kNpm,
             "GET",
             "/x",
             {{"X_HTTP_Method_Override", "PUT"}},
             false},
            {"a header that only looks alike",
             kNpm,
             "GET",
             "/x",
             {{"X-HTTP-Method-Overrides", "PUT"}},
             true},
            {"_method in the query", kNpm, "GET", "/x?_method=PUT", {}, false, "method-override"},
            {"_method escaped in the query", kNpm, "GET", "/x?a=1&%5Fmethod=PUT", {}, false},
            {"_METHOD[] in the query", kNpm, "GET", "/x?_METHOD[]=PUT", {}, false},
            {"_method as a value is fine", kNpm, "GET", "/-/v1/search?text=_method", {}, true},
            {"Upgrade: websocket",
             kNpm,
             "GET",
             "/x",
             {{"Upgrade", "websocket"}, {"Connection", "Upgrade"}},
             false,
             "upgrade"},
            {"Connection: upgrade alone",
             kNpm,
             "GET",
             "/x",
             {{"Connection", "keep-alive, Upgrade"}},
             false},
            {"Connection: keep-alive", kNpm, "GET", "/x", {{"Connection", "keep-alive"}}, true},
            {"h2c",
             kNpm,
             "GET",
             "/x",
             {{"Upgrade", "h2c"}, {"HTTP2-Settings", "AAMAAABkAAQAAP__"}},
             false},
            {"HTTP2-Settings alone", kNpm, "GET", "/x", {{"HTTP2-Settings", "AAMAAABk"}}, false},
            {"published npm still refuses an override",
             kNpm,
             "GET",
             "/x",
             {{"X-HTTP-Method-Override", "PUT"}},
             false},
            {"absolute-form target",
             kNpm,
             "GET",
             "https://registry.npmjs.org/x",
             {},
             false,
             "request-target"},
            {"asterisk-form target", kNpm, "OPTIONS", "*", {}, false},
            {"a method that is no token", kNpm, "G(T", "/x", {}, false, "method"},
        });
}

TEST(RegistriesTest, PublishAllowsOneKind) {
  auto rules = Make(ConfigOf({}, {}, {"npm"}));
  Check(*rules,
        {
            {"npm publish", kNpm, "PUT", "/left-pad", {}, true, "registries.publish"},
            {"npm unpublish", kNpm, "DELETE", "/left-pad/-rev/1", {}, true},
            {"npm dist-tag on yarn's host",
             "registry.yarnpkg.com",
             "PUT",
             "/-/package/p/dist-tags/latest",
             {},
             true},
            {"cargo publish stays refused", "crates.io", "PUT", "/api/v1/crates/new", {}, false},
            {"gem push stays refused", "rubygems.org", "POST", "/api/v1/gems", {}, false},
            {"an upgrade stays refused", kNpm, "GET", "/x", {{"Upgrade", "websocket"}}, false},
        });
  auto by_host = Make(ConfigOf({}, {}, {"crates.io"}));
  Check(*by_host,
        {
            {"cargo publish to the named host", "crates.io", "PUT", "/api/v1/crates/new", {}, true},
            {"its index is another host", "index.crates.io", "PUT", "/x", {}, false},
            {"npm stays read-only", kNpm, "PUT", "/x", {}, false},
        });
}

TEST(RegistriesTest, HostsFromToolConfig) {
  auto rules = Make(ConfigOf(
      {}, {{"npm.corp.example", RegistryKind::kNpm}, {"pypi.corp.example", RegistryKind::kPypi}}));
  EXPECT_TRUE(rules->Covers("npm.corp.example", 443));
  Check(*rules, {
                    {"the .npmrc registry: install", "npm.corp.example", "GET", "/p", {}, true},
                    {"the .npmrc registry: audit",
                     "npm.corp.example",
                     "POST",
                     "/-/npm/v1/security/audits/quick",
                     {},
                     true},
                    {"the .npmrc registry: publish", "npm.corp.example", "PUT", "/p", {}, false},
                    {"pip.conf's index: no npm audit there",
                     "pypi.corp.example",
                     "POST",
                     "/-/npm/v1/security/audits",
                     {},
                     false},
                });
  auto published =
      Make(ConfigOf({}, {{"npm.corp.example", RegistryKind::kNpm}}, {"npm.corp.example"}));
  Check(*published, {
                        {"published by host", "npm.corp.example", "PUT", "/p", {}, true},
                        {"not the public one", kNpm, "PUT", "/p", {}, false},
                    });
}

TEST(RulesTest, HostRules) {
  auto rules = Make(
      ConfigOf({"api.internal.example GET,HEAD /v1/**",
                "deny api.internal.example GET /v1/admin/**", "allow *.corp.example POST /graphql",
                "files.example:8443 * /**", "deny files.example:8443 DELETE /**"}));
  constexpr std::string_view kApi = "api.internal.example";
  Check(
      *rules,
      {
          {"inside /v1", kApi, "GET", "/v1/a/b", {}, true, "GET,HEAD /v1/**"},
          {"/v1 itself", kApi, "GET", "/v1", {}, true},
          {"/v2", kApi, "GET", "/v2/x", {}, false, "network.rules"},
          {"an escaped '/' out of /v1", kApi, "GET", "/v1%2f..%2fv2", {}, false},
          {"'..' out of /v1", kApi, "GET", "/v1/../v2/x", {}, false},
          {"'..' that stays in /v1", kApi, "GET", "/v1/a/../b", {}, true},
          {"escaped dots out of /v1", kApi, "GET", "/v1/%2e%2e/v2/x", {}, false},
          {"'..' above the root", kApi, "GET", "/v1/../../v1/x", {}, false},
          {"doubled slashes", kApi, "GET", "//v1//x", {}, true},
          {"a path parameter", kApi, "GET", "/v1/..;/v2/x", {}, false},
          {"%25", kApi, "GET", "/v1/%252e", {}, false},
          {"non-ASCII", kApi, "GET", "/v1/\xc3\xa9", {}, false},
          {"a method not listed", kApi, "POST", "/v1/x", {}, false},
          {"HEAD, listed", kApi, "HEAD", "/v1/x", {}, true},
          {"a deny rule wins", kApi, "GET", "/v1/admin/users", {}, false, "deny"},
          {"a deny rule ignores case", kApi, "GET", "/v1/ADMIN/users", {}, false, "deny"},
          {"a denied GET takes HEAD", kApi, "HEAD", "/v1/admin/users", {}, false, "deny"},
          {"beside the denied path", kApi, "GET", "/v1/administrators", {}, true},
          {"the query is not judged", kApi, "GET", "/v1/x?next=/v2", {}, true},
          {"an override on an allowed GET",
           kApi,
           "GET",
           "/v1/x",
           {{"X-HTTP-Method-Override", "GET"}},
           false},
          {"a subdomain", "a.b.corp.example", "POST", "/graphql", {}, true, "*.corp.example"},
          {"not the apex", "corp.example", "POST", "/graphql", {}, true, ""},  // no rules: a tunnel
          {"a path rule is exact", "x.corp.example", "POST", "/graphql/x", {}, false},
          {"port 443 of a host whose rules name 8443", "files.example", "PUT", "/a", {}, true, ""},
      });
  // Ports: a rule with a port judges that port only.
  EXPECT_TRUE(rules->Covers("files.example", 8443));
  EXPECT_FALSE(rules->Covers("files.example", 443));
  // '*' methods and '/**': an escaped '/' needs no resolving there.
  EXPECT_TRUE(
      rules->Judge("files.example", 8443, "PUT", "/a%2fb", std::span<const HeaderField>()).allowed);
  EXPECT_FALSE(
      rules->Judge("files.example", 8443, "DELETE", "/a", std::span<const HeaderField>()).allowed);
  EXPECT_TRUE(rules->Covers(kApi, 443));
  EXPECT_FALSE(rules->Covers("corp.example", 443));
  EXPECT_FALSE(rules->Covers("other.example", 443));
}

TEST(RulesTest, RulesOnARegistryComeFirst) {
  auto rules = Make(
      ConfigOf({"registry.npmjs.org PUT /my-package", "deny registry.npmjs.org GET /evil/**"}));
  Check(*rules,
        {
            {"a user's allow rule", kNpm, "PUT", "/my-package", {}, true, "PUT /my-package"},
            {"another package", kNpm, "PUT", "/other", {}, false, "registry npm read-only"},
            {"a user's deny rule", kNpm, "GET", "/evil/x", {}, false, "deny"},
            {"the table still reads", kNpm, "GET", "/good", {}, true},
        });
}

TEST(RulesTest, UnresolvablePathAgainstAPathDenyRule) {
  auto rules = Make(ConfigOf({"h.example * /**", "deny h.example DELETE /admin/**"}));
  Check(
      *rules,
      {
          {"an escaped '/' where a deny rule must judge the path",
           "h.example",
           "DELETE",
           "/admin%2fx",
           {},
           false,
           "deny"},
          {"the same for a method no deny rule names", "h.example", "GET", "/admin%2fx", {}, true},
      });
}

TEST(PlainHttpTest, RegistriesClosedOnPort80UnlessNamed) {
  auto rules = Make(ConfigOf({}, {}, {}, {"registry.npmjs.org", "pypi.org:80", "*.golang.org:80"}));
  EXPECT_TRUE(rules->RefusesPlainHttp("registry.npmjs.org", 80));
  EXPECT_FALSE(rules->RefusesPlainHttp("registry.npmjs.org", 443));
  EXPECT_FALSE(rules->RefusesPlainHttp("pypi.org", 80));
  EXPECT_FALSE(rules->RefusesPlainHttp("proxy.golang.org", 80));
  EXPECT_TRUE(rules->RefusesPlainHttp("crates.io", 80));
  EXPECT_FALSE(rules->RefusesPlainHttp("example.com", 80));
}

TEST(MakeTest, BadItemsNamed) {
  auto bad_rule = RequestRules::Make(ConfigOf({"api.example GETT /"}));
  ASSERT_FALSE(bad_rule.ok());
  EXPECT_NE(bad_rule.error().message.find("network.rules 'api.example GETT /'"), std::string::npos);
  auto bad_publish = RequestRules::Make(ConfigOf({}, {}, {"nmp"}));
  ASSERT_FALSE(bad_publish.ok());
  EXPECT_NE(bad_publish.error().message.find("did you mean npm?"), std::string::npos)
      << bad_publish.error().message;
  EXPECT_TRUE(CheckPublishEntry("npm.corp.example").ok());
  EXPECT_FALSE(CheckPublishEntry("*.corp.example").ok());
  EXPECT_FALSE(CheckPublishEntry("npm.corp.example:443").ok());
}

TEST(DescribeTest, SaysWhatIsInForce) {
  auto rules = Make(ConfigOf({"api.example GET /v1/**"}, {}, {"npm", "x.example"}));
  auto lines = rules->Describe();
  auto has = [&](std::string_view text) {
    for (const auto& line : lines) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("registry.npmjs.org (npm): publishing allowed"));
  EXPECT_TRUE(has("crates.io (crates): read-only: GET, HEAD;"));
  EXPECT_TRUE(has("POST /-/npm/v1/security/audits/quick") == false);  // npm is published here
  EXPECT_TRUE(has("rule: api.example GET /v1/**"));
  EXPECT_TRUE(has("'x.example' names no registry host"));
  EXPECT_TRUE(has("port 80 closed"));
}

TEST(VerdictTest, RefusalNamesTheSetting) {
  auto rules = Make(RequestRulesConfig());
  auto verdict = rules->Judge(kNpm, 443, "PUT", "/left-pad", std::span<const HeaderField>());
  EXPECT_NE(verdict.reason.find("registries.publish: [npm]"), std::string::npos) << verdict.reason;
  auto cargo =
      rules->Judge("crates.io", 443, "PUT", "/api/v1/crates/new", std::span<const HeaderField>());
  EXPECT_NE(cargo.reason.find("registries.publish: [crates]"), std::string::npos) << cargo.reason;
  auto with_rules = Make(ConfigOf({"api.example GET /v1/**"}));
  auto other =
      with_rules->Judge("api.example", 443, "POST", "/v2/x?y", std::span<const HeaderField>());
  EXPECT_NE(other.reason.find("'api.example POST /v2/x'"), std::string::npos) << other.reason;
}

// The proxy's own header type passes as it is.
struct ProxyHeader {
  std::string name;
  std::string value;
};
TEST(VerdictTest, AnyHeaderRange) {
  auto rules = Make(RequestRulesConfig());
  std::vector<ProxyHeader> headers = {{"Upgrade", "websocket"}};
  EXPECT_FALSE(rules->Judge(kNpm, 443, "GET", "/x", headers).allowed);
}

}  // namespace
}  // namespace corral::netfilter::requests
