// HTTP/1.1 exchanges on a terminated connection, one after another (keep-
// alive): each request's stand-in is replaced by its login's real value, a
// stand-in of another host's login is refused, and every real value in what comes back is
// replaced by its stand-in. Bodies and responses stream as they come.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <optional>
#include <vector>

#include "netfilter/decision_log.h"
#include "base/base.h"
#include "netfilter/forge/forge.h"
#include "netfilter/requests/requests.h"
#include "netfilter/logins/logins.h"
#include "netfilter/tls/tls.h"

namespace corral::netfilter {

// What the forge's judge learned from the forge this session (a repository's
// default branch, the repository of a GraphQL node id), shared by the
// session's connections so each is asked once.
class SessionMemo {
 public:
  std::optional<std::string> Get(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto it = known_.find(key);
    return it == known_.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  void Set(const std::string& key, std::string ref) {
    std::lock_guard lock(mutex_);
    known_[key] = std::move(ref);
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::string> known_;
};

struct ExchangeSetup {
  LoginStore* store = nullptr;  // each request takes the logins as they are then
  const TokenEndpoints* endpoints = nullptr;
  std::function<void(const TokenUpdate&)> on_tokens;
  CanonicalHost host;
  uint16_t port = 0;
  bool tls = true;  // requests in origin-form inside TLS; else one proxied http:// request
  std::size_t max_head = 64 * 1024;
  Decision base;  // client, host, port, address: the rest is filled per exchange
  // The forge's scope (null: this host is no forge's), whether somebody
  // watches (null: nobody), and what was learned from the forge this session.
  const forge::Scope* forge = nullptr;
  const requests::RequestRules* requests = nullptr;
  std::function<bool()> watching;
  SessionMemo* memo = nullptr;
  // A second connection to the same origin (address, port, TLS as the
  // first), for what the proxy asks while the box's request is under way.
  struct OriginLink {
    UniqueFd fd;
    std::unique_ptr<Stream> stream;
  };
  std::function<Result<OriginLink>()> dial_origin;
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
