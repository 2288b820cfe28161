// The connections to login hosts, which the proxy ends (docs/logins.md). The
// event loop resolves, checks and dials as for any request, then hands both
// sockets here; each such connection gets a thread of its own with blocking
// I/O. Login hosts carry few connections (an agent's API and git host), and
// TLS plus rewriting read as straight-line code this way; the loop's
// non-blocking machinery stays the plain tunnel's alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "netfilter/http/http.h"
#include "netfilter/login_exchange.h"
#include "netfilter/logins/logins.h"
#include "netfilter/netfilter.h"
#include "netfilter/tls/tls.h"

namespace corral::netfilter {

struct Shared;

// What a terminated connection needs, made once at Start.
struct LoginContext {
  std::unique_ptr<LoginStore> store;
  std::shared_ptr<const TokenEndpoints> endpoints;
  std::function<void(const TokenUpdate&)> on_tokens;
  std::unique_ptr<SessionCa> ca;
  std::shared_ptr<const forge::Scope> forge;  // null when the project names no forge
  std::shared_ptr<const requests::RequestRules> requests;  // null when no host is judged by its requests
  std::function<bool()> watching;
  std::unique_ptr<SessionMemo> memo = std::make_unique<SessionMemo>();
  SslCtxPtr box_ctx, upstream_ctx;

  // Null when `config` has no logins, no token endpoints, no forge and no
  // request rules: then no TLS is ever ended.
  static Result<std::shared_ptr<LoginContext>> Make(const ProxyConfig& config);
};

// One connection the loop hands over, its checks passed and its origin dialed.
struct Handoff {
  UniqueFd client, upstream;
  std::string client_in;  // bytes already read from the box
  bool tls = true;        // a CONNECT; otherwise one absolute-form http:// request
  RequestHead request;    // plain http: that request
  CanonicalHost host;
  uint16_t port = 0;
  std::string peer, address;
};

class Terminators {
 public:
  // Serves `handoff` on its own thread; false (and the sockets closed) once
  // stopping. The thread gives back the tunnel it counts in `shared`.
  bool Start(Handoff handoff, std::shared_ptr<Shared> shared);
  // Shuts every terminated connection's sockets and joins every thread.
  void StopAll();

 private:
  void Serve(Handoff& handoff, Shared& shared);
  // Joins the threads that have said they are done. Every thread is joined,
  // never detached: a thread still ending when the program does would race
  // OpenSSL's exit-time cleanup of the per-thread state it frees as it ends.
  void JoinFinished();

  std::mutex mutex_;
  std::set<int> fds_;
  std::map<uint64_t, std::thread> threads_;
  std::vector<uint64_t> finished_;
  uint64_t next_id_ = 0;
  bool stopping_ = false;
};

}  // namespace corral::netfilter
