// HTTP/1.1 exchanges on a terminated connection, one after another (keep-
// alive): each request's stand-in is replaced by its login's real value, a
// stand-in of another host's login is refused, and every real value in what comes back is
// replaced by its stand-in. Bodies and responses stream as they come.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "netfilter/decision_log.h"
#include "netfilter/logins.h"
#include "netfilter/tls_stream.h"
#include "netfilter/token_capture.h"

namespace corral::netfilter {

struct ExchangeSetup {
  LoginStore* store = nullptr;  // each request takes the logins as they are then
  const TokenEndpoints* endpoints = nullptr;
  std::function<void(const TokenUpdate&)> on_tokens;
  CanonicalHost host;
  uint16_t port = 0;
  bool tls = true;  // requests in origin-form inside TLS; else one proxied http:// request
  std::size_t max_head = 64 * 1024;
  Decision base;  // client, host, port, address: the rest is filled per exchange
  std::function<void(std::string_view)> log;
};

// Serves until either side closes, an error, or a refusal. `first`: a
// request the event loop already read (plain http); its body bytes, if any,
// start `box_in`.
void RunExchanges(Stream& box, Stream& origin, const ExchangeSetup& setup, std::optional<RequestHead> first,
                  std::string box_in);

// A complete error response (Connection: close) with a plain-text body.
std::string ErrorResponse(int status, std::string_view code, std::string_view body);

}  // namespace corral::netfilter
