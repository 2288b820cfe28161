// netfilter/: the egress proxy, the only way out of a box. An HTTP/1.x forward
// proxy (CONNECT tunnels and absolute-form http:// requests) that lets through
// only the configured hosts and refuses private, local and metadata addresses.
// Its rooms (docs/architecture.md): http/ (the parser), rules/ (hosts and
// addresses), tls/ (the session CA, streams, the ClientHello peek), logins/
// (what the proxy adds where it ends TLS), forge/ (the git host's scope).
// This folder is the server itself; this is its one public header.
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
#include "netfilter/forge/forge.h"
#include "netfilter/logins/logins.h"
#include "netfilter/requests/requests.h"
#include "netfilter/rules/rules.h"
#include "netfilter/tls/tls.h"
#include "policy/network/network.h"

namespace corral::netfilter {

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
  // The project's forge (docs/forge.md): its git host and API host get TLS
  // ended and each request judged; empty: none.
  forge::ForgeConfig forge;
  // Allowed hosts judged by what a request does (network.rules, registries
  // read-only unless published to): hosts it covers get TLS ended. Unset
  // (the default): none is judged.
  std::optional<requests::RequestRulesConfig> requests;
  // Whether somebody watches now (the history rules hold while nobody does);
  // null: nobody ever does. Called from connection threads: thread-safe.
  std::function<bool()> watching;
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
