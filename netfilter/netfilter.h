// netfilter/: the egress proxy, the only way out of a box. An HTTP/1.x forward
// proxy (CONNECT tunnels and absolute-form http:// requests) that lets through
// only the configured hosts and refuses private, local and metadata addresses.
// The one public header of netfilter/.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/base.h"
#include "policy/config/config.h"
#include "policy/network/network.h"

namespace corral::netfilter {

// ---------------------------------------------------------------- rules

// The three lists, as the user wrote them (config file or flags).
struct RuleLists {
  std::vector<std::string> allowed_domains;  // "example.com", "*.example.com", ":port" optional
  std::vector<std::string> denied_domains;   // same forms; denied wins
  std::vector<std::string> allow_addresses;  // "10.0.0.5", "127.0.0.0/8", "fd00::/8"
};

// One allow or deny entry, and one address or range: parsed by policy/'s
// rules (ParseDomainEntry, ParseCidr), which the config is checked by too.
using policy::Cidr;
using policy::DomainEntry;

// Validated, immutable rules; share them read-only.
struct Rules {
  std::vector<DomainEntry> allowed;
  std::vector<DomainEntry> denied;
  std::vector<Cidr> allow_addresses;
};

// Validates every entry; an error names the list and the entry, and says
// how to fix it ("*" and "*.com" are refused, as are URLs and malformed
// addresses). A loaded policy's lists always pass.
Result<Rules> ParseRules(const RuleLists& lists);

// ---------------------------------------------------------------- proxy

struct Limits {
  std::size_t max_head_bytes = 64 * 1024;              // 431 past this
  std::chrono::milliseconds head_timeout{10'000};      // 408 past this
  std::chrono::milliseconds connect_timeout{10'000};   // resolve + dial; 504 past this
  std::chrono::milliseconds idle_timeout{600'000};     // a silent tunnel is closed
  int max_tunnels = 4096;                              // 429 past this
  std::size_t max_client_hello_bytes = 16 * 1024 + 5;  // one TLS record
  // Tunnel relay buffers grow to 4 MiB per direction while bulk data flows;
  // past this total a buffer grows no more, so many busy tunnels to slow
  // receivers cannot take the host's memory.
  std::size_t relay_budget_bytes = 256 * 1024 * 1024;
};

// A login the proxy adds on the way out (docs/logins.md). The box holds only
// `stand_in`; the proxy puts `value` in `header` of requests to `hosts`
// alone, ending TLS for those hosts with the session CA.
struct Login {
  std::string name;                // for the log: "anthropic-api-key"
  std::vector<std::string> hosts;  // "api.anthropic.com:443", "[::1]:8080": name (or IP) and port
  std::string header;              // "x-api-key", "Authorization"
  std::string prefix;              // before the value in the header: "Bearer ", or empty
  std::string value;               // the real secret; never logged, never sent to the box
  std::string stand_in;            // the box's stand-in: as long as `value`, unique to the session
  // Also put `value` in request bodies to `hosts` (a refresh token in the
  // token request); `header` may then be empty.
  bool in_body = false;
  // The value is the password of Basic credentials in `header` (prefix
  // "Basic "), with any user name: git over HTTPS.
  bool basic = false;
};

// A session CA as PEM text, made ahead of the proxy: where the proxy runs
// elsewhere (the network mode's sidecar, a Kubernetes proxy Pod), the box's
// bundle must hold the certificate before the proxy starts. The key goes only
// to that proxy, as the logins' values do (docs/logins.md).
struct SessionCaPem {
  std::string cert;  // for the box's trusted bundle
  std::string key;   // PKCS#8; the proxy's alone
  bool empty() const { return cert.empty() && key.empty(); }
};
// A new session CA (as the proxy makes at Start), as PEM.
Result<SessionCaPem> MakeSessionCaPem();

// An OAuth token endpoint (a subscription login's refresh, or a login made
// in the box): the JSON answer to a POST to `path` on one of `hosts` has its
// tokens replaced by new stand-ins; the proxy holds the real ones from then
// on, as the logins `fields` describe, and hands them to `on_tokens`.
struct TokenEndpoint {
  std::string name;                // for the log and on_tokens: "claude-subscription"
  std::vector<std::string> hosts;  // "platform.claude.com:443"
  std::string path;                // "/v1/oauth/token" (the query is not compared)
  struct Field {
    std::string field;  // in the answer: "access_token"
    Login login;        // its name, hosts, header, prefix, in_body; no value yet
  };
  std::vector<Field> fields;
};

// New real tokens from a token endpoint's answer, for the host to keep.
struct TokenUpdate {
  std::string endpoint;                      // TokenEndpoint::name
  std::map<std::string, std::string> tokens;  // field -> real value
  std::optional<int64_t> expires_in;          // seconds, when the answer says
};

// A stand-in for `value`: as long as it, its known prefix ("sk-ant-api03-")
// kept, each letter, digit, '-' or '_' after it a random one of its kind, a
// JWT's header and claims kept (only its signature is secret); "" when fewer
// than 8 positions would be random (it could be guessed from its shape).
std::string MakeStandIn(std::string_view value);
// The prefix MakeStandIn keeps: "sk-ant-api03-", "ghp_", ...; "" for none.
std::string LoginValuePrefix(std::string_view value);

struct ProxyConfig {
  // "HOST:PORT" ("127.0.0.1:0" picks a free port; "[::1]:3128") or "unix:PATH"
  // (created mode 0600; a stale socket at PATH is replaced).
  std::string listen = "127.0.0.1:3128";
  // A unix socket's mode. The network mode's sidecar opens it to every uid
  // (0666): the folder it is in decides who reaches it.
  unsigned socket_mode = 0600;
  RuleLists rules;
  std::string hosts_file;  // hosts(5) format, consulted before the system resolver
  std::string token;       // when set, Proxy-Authorization Basic with this password
  Limits limits;
  int threads = 0;  // event loops; 0 = one per core
  // Logins added on the way out; hosts they name are the only ones whose TLS
  // the proxy ends. Checked at Start (valid hosts, stand-ins unlike values).
  std::vector<Login> logins;
  std::vector<TokenEndpoint> token_endpoints;
  // Called (from a connection's thread) with the real tokens a token
  // endpoint gave, after the box's answer holds stand-ins for them.
  std::function<void(const TokenUpdate&)> on_tokens;
  // PEM bundle the upstream TLS of those hosts is verified against; empty:
  // OpenSSL's default (the host's /etc/ssl/certs).
  std::string upstream_ca_file;
  // The session CA to end TLS with; empty: made at Start. Checked at Start
  // (a CA certificate, and the key it certifies).
  SessionCaPem ca;
  // One JSON line per decision (no trailing newline). Called from any loop
  // thread, possibly at once from several: the sink must be thread-safe.
  std::function<void(std::string_view line)> log;
};

// The proxy settings a policy asks for (lists, timeouts, tunnel cap).
ProxyConfig FromPolicy(const policy::NetworkPolicy& network);

class Proxy {
 public:
  // Binds, then serves on its own threads until Stop() or destruction.
  static Result<std::unique_ptr<Proxy>> Start(const ProxyConfig& config);

  // "127.0.0.1:41234", "[::1]:3128" or "unix:/path": where clients connect.
  std::string address() const;
  uint16_t port() const;  // 0 for a unix socket
  // The session CA's certificate (PEM), which the box must trust for login
  // hosts; empty when there are no logins. Its key never leaves the process.
  const std::string& ca_pem() const;
  // Bytes the tunnels' relay buffers hold now.
  std::size_t relay_bytes() const;

  // Swaps the lists for new requests; open tunnels stay open.
  Result<void> Reload(const RuleLists& lists);

  // Stops accepting, closes every connection, joins the threads. Idempotent.
  void Stop();

  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  struct Impl;

 private:
  explicit Proxy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend struct ProxyStarter;
};

}  // namespace corral::netfilter
