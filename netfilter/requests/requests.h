// netfilter/requests/: allowed hosts judged by what a request does (issue 44).
// The package registries are read-only unless published to, and any host may
// carry rules ("[allow|deny] HOST METHODS PATH", the config's network.rules).
// Pure judgements over a request's head: no sockets here. The proxy ends TLS
// for every host this room covers and asks it about each request on the
// connection. The room's one public header.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "policy/network/network.h"

namespace corral::netfilter::requests {

// ---------------------------------------------------------------- rules

// network.rules' items and registries.publish's, read by policy/'s rules
// (network_request_rule.cc), which the config is checked with.
using policy::CheckPublishEntry;
using policy::ParseRequestRule;
using policy::RegistryKind;
using policy::RegistryKindName;
using policy::RegistryKindNamed;
using Rule = policy::RequestRule;

// A registry host read from the user's tool config (~/.npmrc, pip.conf,
// ~/.cargo/config.toml, GOPROXY), with the kind of tool that named it.
struct RegistryHost {
  std::string host;  // lower case, no port
  RegistryKind kind;
};

// The registry hosts corral allows by default (network.allowed_domains'
// default), each with its kind.
const std::vector<RegistryHost>& BuiltInRegistries();

// ---------------------------------------------------------------- the judge

// A request header as the proxy parsed it (netfilter/http's Header converts).
struct HeaderField {
  std::string_view name;
  std::string_view value;
};

struct Verdict {
  bool allowed = false;
  std::string rule;    // for the log: the rule's text that decided, or a built-in's name
  std::string reason;  // for the 403 body and the log; a refusal names the setting that allows it
};

struct RequestRulesConfig {
  std::vector<std::string> rules;        // network.rules, each checked by ParseRule
  std::vector<RegistryHost> registries;  // read from the tools' config, beside the built-in ones
  std::vector<std::string> publish;      // registries.publish: kinds or hosts
  std::vector<std::string> allowed_domains;  // network.allowed_domains, for "host:80"
};

class RequestRules {
 public:
  // Checks every rule and publish entry; an error names the bad item.
  static Result<std::shared_ptr<const RequestRules>> Make(RequestRulesConfig config);

  // Whether requests to `host` (canonical: lower case, no trailing dot) on
  // `port` are judged here: a registry host, or a host some rule names. The
  // proxy ends their TLS; other hosts stay plain tunnels.
  bool Covers(std::string_view host, uint16_t port) const;

  // Whether `host:port` must be refused outright because it is plain HTTP to
  // a registry: port 80 of a registry host, unless network.allowed_domains
  // names that host with ":80". (Registries are reached over TLS only.)
  bool RefusesPlainHttp(std::string_view host, uint16_t port) const;

  // Judges one request on a covered host. `target` is origin-form, as
  // forwarded ("/v1/x?y": RequestHead::path). A host that is not covered is
  // allowed (rule "").
  Verdict Judge(std::string_view host, uint16_t port, std::string_view method,
                std::string_view target, std::span<const HeaderField> headers) const;

  // The same, with any range of headers that have `name` and `value`
  // (netfilter/http's std::vector<Header>).
  template <class Headers>
  requires requires(const Headers& h) {
    h.begin()->name;
    h.begin()->value;
  }
  Verdict Judge(std::string_view host, uint16_t port, std::string_view method,
                std::string_view target, const Headers& headers) const {
    std::vector<HeaderField> fields;
    for (const auto& header : headers) fields.push_back({header.name, header.value});
    return Judge(host, port, method, target, std::span<const HeaderField>(fields));
  }

  // One line per rule in force, for `corral config check`, --print and the
  // start line ("registry.npmjs.org (npm): read-only: GET, HEAD, ...").
  std::vector<std::string> Describe() const;

 private:
  struct Registry {
    std::string host;
    RegistryKind kind;
    bool publish = false;
  };
  RequestRules() = default;
  const Registry* RegistryOf(std::string_view host) const;
  Verdict JudgeRegistry(const Registry& registry, std::string_view host, std::string_view method,
                        std::string_view target, std::span<const HeaderField> headers) const;

  std::vector<Rule> rules_;
  std::vector<Registry> registries_;
  std::vector<std::string> plain_http_allowed_;  // hosts allowed_domains names with ":80"
  std::vector<std::string> unused_publish_;      // publish hosts that are no registry's
};

}  // namespace corral::netfilter::requests
