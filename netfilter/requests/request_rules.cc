// The judge: a request's smuggling shapes, then deny rules, allow rules and
// the registries' table, in that order.
#include <algorithm>
#include <array>

#include "base/strings.h"
#include "netfilter/requests/registry_table.h"
#include "netfilter/requests/request_text.h"
#include "netfilter/requests/requests.h"

namespace corral::netfilter::requests {
namespace {

using K = RegistryKind;

const std::vector<RegistryHost>& BuiltIns() {
  static const std::vector<RegistryHost> kBuiltIn = {
      RegistryHost{"registry.npmjs.org", K::kNpm},
      RegistryHost{"registry.yarnpkg.com", K::kNpm},
      RegistryHost{"registry.npmjs.com", K::kNpm},
      RegistryHost{"pypi.org", K::kPypi},
      RegistryHost{"files.pythonhosted.org", K::kPypi},
      RegistryHost{"crates.io", K::kCrates},
      RegistryHost{"index.crates.io", K::kCrates},
      RegistryHost{"static.crates.io", K::kCrates},
      RegistryHost{"proxy.golang.org", K::kGo},
      RegistryHost{"sum.golang.org", K::kGo},
      RegistryHost{"rubygems.org", K::kRubygems},
      RegistryHost{"index.rubygems.org", K::kRubygems},
  };
  return kBuiltIn;
}

// Headers that make a server run another method than the request line's.
// Compared with '_' read as '-' (CGI-style servers read both as one name).
constexpr std::array<std::string_view, 4> kOverrideHeaders = {
    "x-http-method-override", "x-http-method", "x-method-override", "x-original-method"};

std::string HeaderKey(std::string_view name) {
  std::string key = AsciiLower(name);
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

bool HasToken(std::string_view list, std::string_view token) {
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    if (EqualsIgnoringCase(Trim(list.substr(start, comma - start)), token)) return true;
    start = comma + 1;
  }
  return false;
}

std::string Request(std::string_view method, std::string_view target, std::string_view host) {
  return Quoted(std::string(method) + " " + std::string(target.substr(0, target.find('?')))) +
         " to " + std::string(host);
}

Verdict Refused(std::string rule, std::string reason) {
  return {false, std::move(rule), std::move(reason)};
}

// The shapes that would let a request do something else than its request
// line says: refused on every judged host, whatever the rules allow.
std::optional<Verdict> SmugglingShape(std::string_view host, std::string_view method,
                                      std::string_view target,
                                      std::span<const HeaderField> headers) {
  std::string what = Request(method, target, host);
  if (!IsHttpToken(method)) return Refused("method", what + ": the method is not an HTTP token");
  if (target.empty() || target[0] != '/') {
    return Refused("request-target", what +
                                         ": the target is not a path; a judged host is sent "
                                         "origin-form requests only ('/path')");
  }
  for (const HeaderField& header : headers) {
    std::string key = HeaderKey(header.name);
    if (std::find(kOverrideHeaders.begin(), kOverrideHeaders.end(), key) !=
        kOverrideHeaders.end()) {
      return Refused("method-override",
                     what + " carries " + Quoted(header.name) +
                         ", which makes a server run another "
                         "method than the request line's; send the method itself");
    }
    if (key == "upgrade" || key == "http2-settings" ||
        (key == "connection" && HasToken(header.value, "upgrade"))) {
      return Refused(
          "upgrade",
          what + " asks to switch protocols (" + Quoted(header.name) +
              "); a WebSocket or h2c connection could not be judged request by request, so "
              "judged hosts are spoken to in HTTP/1.1 only");
    }
  }
  if (HasQueryParameter(QueryOf(target), "_method")) {
    return Refused("method-override",
                   what +
                       " has a '_method' query parameter, which makes a "
                       "server run another method than the request line's; send the method itself");
  }
  return std::nullopt;
}

bool CoversHost(const Rule& rule, std::string_view host, uint16_t port) {
  if (rule.port && *rule.port != port) return false;
  if (!rule.wildcard) return host == rule.host;
  return host.size() > rule.host.size() + 1 && host.ends_with(rule.host) &&
         host[host.size() - rule.host.size() - 1] == '.';
}

// A deny rule refuses methods without regard to case, and a denied GET takes
// HEAD with it; an allow rule allows exactly what it names.
bool CoversMethod(const Rule& rule, std::string_view method) {
  if (rule.methods.empty()) return true;
  for (const std::string& named : rule.methods) {
    if (!rule.deny && named == method) return true;
    if (rule.deny && (EqualsIgnoringCase(named, method) ||
                      (named == "GET" && EqualsIgnoringCase(method, "HEAD")))) {
      return true;
    }
  }
  return false;
}

bool AnyPath(const Rule& rule) { return rule.path.size() == 1 && rule.path[0] == "**"; }

std::string CanonicalName(std::string_view host) {
  std::string name = AsciiLower(host);
  if (!name.empty() && name.back() == '.') name.pop_back();
  return name;
}

bool HasBody(std::span<const HeaderField> headers) {
  for (const HeaderField& header : headers) {
    std::string key = HeaderKey(header.name);
    if (key == "transfer-encoding") return true;
    if (key == "content-length" &&
        Trim(header.value).find_first_not_of('0') != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> out;
  for (std::size_t start = 1; start < path.size();) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace

const std::vector<RegistryHost>& BuiltInRegistries() { return BuiltIns(); }

Result<std::shared_ptr<const RequestRules>> RequestRules::Make(RequestRulesConfig config) {
  std::shared_ptr<RequestRules> made(new RequestRules());
  for (const std::string& text : config.rules) {
    auto rule = ParseRequestRule(text);
    if (!rule) return rule.error().Context("network.rules " + Quoted(text));
    made->rules_.push_back(std::move(*rule));
  }
  std::vector<RegistryHost> hosts = BuiltIns();
  hosts.insert(hosts.end(), config.registries.begin(), config.registries.end());
  for (const RegistryHost& registry : hosts) {
    std::string name = CanonicalName(registry.host);
    if (name.empty() || made->RegistryOf(name)) continue;
    made->registries_.push_back({name, registry.kind, false});
  }
  for (const std::string& entry : config.publish) {
    if (auto checked = CheckPublishEntry(entry); !checked) {
      return checked.error().Context("registries.publish");
    }
    bool used = false;
    for (Registry& registry : made->registries_) {
      if (registry.host == entry || RegistryKindName(registry.kind) == entry) {
        registry.publish = used = true;
      }
    }
    if (!used) made->unused_publish_.push_back(entry);
  }
  for (const std::string& entry : config.allowed_domains) {
    if (entry.ends_with(":80")) {
      made->plain_http_allowed_.push_back(CanonicalName(entry.substr(0, entry.size() - 3)));
    }
  }
  return std::shared_ptr<const RequestRules>(std::move(made));
}

const RequestRules::Registry* RequestRules::RegistryOf(std::string_view host) const {
  for (const Registry& registry : registries_) {
    if (registry.host == host) return &registry;
  }
  return nullptr;
}

bool RequestRules::Covers(std::string_view host, uint16_t port) const {
  std::string name = CanonicalName(host);
  if (RegistryOf(name)) return true;
  return std::any_of(rules_.begin(), rules_.end(),
                     [&](const Rule& rule) { return CoversHost(rule, name, port); });
}

bool RequestRules::RefusesPlainHttp(std::string_view host, uint16_t port) const {
  std::string name = CanonicalName(host);
  if (port != 80 || !RegistryOf(name)) return false;
  for (const std::string& entry : plain_http_allowed_) {
    if (entry == name) return false;
    if (entry.starts_with("*.") && name.ends_with(entry.substr(1))) return false;
  }
  return true;
}

Verdict RequestRules::Judge(std::string_view host, uint16_t port, std::string_view method,
                            std::string_view target, std::span<const HeaderField> headers) const {
  std::string name = CanonicalName(host);
  const Registry* registry = RegistryOf(name);
  std::vector<const Rule*> rules;
  for (const Rule& rule : rules_) {
    if (CoversHost(rule, name, port)) rules.push_back(&rule);
  }
  if (!registry && rules.empty()) return {true, "", "no rules for " + name};
  if (auto refused = SmugglingShape(name, method, target, headers)) return *refused;

  std::string what = Request(method, target, name);
  auto path = ResolvePath(target);
  auto unjudgeable = [&](const std::string& rule) {
    return Refused(rule,
                   what + " cannot be judged: " + path.error().message +
                       ". Send the path plainly (no escaped '/', '%', ';' or '..' above the root)");
  };
  for (const Rule* rule : rules) {
    if (!rule->deny || !CoversMethod(*rule, method)) continue;
    if (!AnyPath(*rule) && !path) return unjudgeable(rule->text);
    if (AnyPath(*rule) || PathMatches(rule->path, *path, /*ignore_case=*/true)) {
      return Refused(rule->text, what + " is refused by the rule " + Quoted(rule->text) +
                                     " in network.rules; remove or narrow that rule to allow it");
    }
  }
  for (const Rule* rule : rules) {
    if (rule->deny || !CoversMethod(*rule, method)) continue;
    if (AnyPath(*rule) || (path && PathMatches(rule->path, *path, /*ignore_case=*/false))) {
      return {true, rule->text, what + " is allowed by the rule " + Quoted(rule->text)};
    }
  }
  if (registry) return JudgeRegistry(*registry, name, method, target, headers);
  if (!path) return unjudgeable("network.rules");
  // The path as resolved (what a rule is matched against, and what a rule may say).
  std::string resolved;
  for (const std::string& segment : *path) resolved += "/" + segment;
  std::string example = name + " " + std::string(method) + " " + (resolved.empty() ? "/" : resolved);
  return Refused("network.rules",
                 what + " is refused: " + name +
                     " has rules in network.rules "
                     "and none of them allows it. To allow it, add a rule such as " +
                     Quoted(example));
}

Verdict RequestRules::JudgeRegistry(const Registry& registry, std::string_view host,
                                    std::string_view method, std::string_view target,
                                    std::span<const HeaderField> headers) const {
  std::string kind(RegistryKindName(registry.kind));
  std::string what = Request(method, target, host);
  if (registry.publish) {
    return {true, "registries.publish",
            what +
                " is allowed: registries.publish lets the agent "
                "publish to " +
                std::string(host)};
  }
  std::string setting = "set registries.publish: [" + kind + "] (or [" + std::string(host) + "])";
  std::string rule = "registry " + kind + " read-only";
  auto path = ResolvePath(target);
  for (const RegistryRequest& entry : RegistryTable()) {
    if (entry.kind != registry.kind || entry.method != method) continue;
    if (entry.path == "/**") {
      if (HasBody(headers)) {
        return Refused(rule, what +
                                 " carries a body; a read from a registry sends none. "
                                 "To let the agent write to " +
                                 kind + " registries, " + setting);
      }
      return {true, "registry " + kind + " read", what + ": reading from a registry"};
    }
    if (path && *path == SplitPath(entry.path)) {
      return {true,
              "registry " + kind + " " + std::string(entry.method) + " " + std::string(entry.path),
              what + ": " + std::string(entry.reason)};
    }
  }
  return Refused(
      rule, what +
                " is refused: package registries are read-only in a box (an "
                "agent installs packages; it does not publish them), and corral lets through "
                "only " +
                (registry.kind == K::kNpm ? "GET, HEAD and npm's audit POSTs" : "GET and HEAD") +
                ". To let this project's agent publish to " + kind + ", " + setting);
}

std::vector<std::string> RequestRules::Describe() const {
  std::vector<std::string> lines;
  for (const Registry& registry : registries_) {
    std::string kind(RegistryKindName(registry.kind));
    std::string line = registry.host + " (" + kind + "): ";
    if (registry.publish) {
      line += "publishing allowed (registries.publish), every method";
    } else {
      line += "read-only:";
      for (const RegistryRequest& entry : RegistryTable()) {
        if (entry.kind != registry.kind) continue;
        line += " " + std::string(entry.method) +
                (entry.path == "/**" ? "" : " " + std::string(entry.path)) + ",";
      }
      line.back() = ';';
      line += " registries.publish: [" + kind + "] allows publishing";
    }
    line += RefusesPlainHttp(registry.host, 80) ? "; port 80 closed"
                                                : "; port 80 open (allowed_domains)";
    lines.push_back(std::move(line));
  }
  for (const Rule& rule : rules_) lines.push_back("rule: " + rule.text);
  for (const std::string& entry : unused_publish_) {
    lines.push_back("registries.publish: " + Quoted(entry) +
                    " names no registry host; it has no effect");
  }
  return lines;
}

}  // namespace corral::netfilter::requests
