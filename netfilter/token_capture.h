// Token endpoints (docs/logins.md, "Subscription logins"): the answer to a
// refresh, or to a login made in the box, carries new real tokens. The
// proxy keeps them, gives the box stand-ins in their place, and tells the
// host, whose own agent then stays logged in.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "netfilter/host.h"
#include "netfilter/logins.h"

namespace corral::netfilter {

class TokenEndpoints {
 public:
  // Every host must be NAME:PORT, every path begin with '/', every field
  // name a login whose hosts are NAME:PORT too.
  static Result<std::shared_ptr<const TokenEndpoints>> Make(std::vector<TokenEndpoint> endpoints);

  bool empty() const { return endpoints_.empty(); }
  // The endpoint a POST to `host`:`port` with `target` (query not compared)
  // goes to, else null.
  const TokenEndpoint* For(const CanonicalHost& host, uint16_t port, std::string_view method,
                           std::string_view target) const;
  // An endpoint's host, or one its tokens go to: the proxy ends TLS for it
  // even before it holds any token there (a login made in the box).
  bool Covers(const CanonicalHost& host, uint16_t port) const;

 private:
  std::vector<TokenEndpoint> endpoints_;
  std::vector<std::vector<HostPort>> hosts_;  // per endpoint
  std::vector<HostPort> covered_;
};

struct CapturedTokens {
  std::vector<Login> logins;  // new: real value and stand-in
  TokenUpdate update;         // every token the answer held, real
};

// Puts a stand-in in place of each of `endpoint`'s tokens in `body`, the
// answer's JSON. A token the proxy already holds keeps its stand-in; a new
// one gets a new stand-in, and a login for `logins`. An answer without
// tokens (an error) is left as it is. Fails, and the answer must not reach
// the box, when a token cannot be replaced in place (escaped in the JSON, or
// too short to stand in for).
Result<CapturedTokens> CaptureTokens(const TokenEndpoint& endpoint, const LoginTable& held, std::string& body);

}  // namespace corral::netfilter
