// netfilter/logins/: the logins the proxy adds on the way out
// (docs/logins.md). The box holds stand-ins of the same shape; the proxy puts
// the real values in requests to each login's hosts alone, takes them out of
// what comes back, and holds the tokens a token endpoint answers with. The
// room's one public header.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netfilter/http/http.h"
#include "netfilter/rules/rules.h"

namespace corral::netfilter {

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

// ---------------------------------------------------------------- login tables and streams

// Logins, checked once at Start: which login a host:port belongs to, where a
// stand-in may appear in a request, and the stream filter that puts real
// values in (and takes them out of what comes back) across reads and chunks.
class LoginTable {
 public:
  // Every host must be "name:port" or "[v6]:port"; every value and stand-in
  // at least 8 bytes, of equal length (replacing one by the other keeps
  // Content-Length true), and no two alike.
  static Result<std::shared_ptr<const LoginTable>> Make(std::vector<Login> logins);

  bool empty() const { return logins_.empty(); }
  const std::vector<Login>& logins() const { return logins_; }

  // The logins whose hosts include `host`:`port`: decided from the parse that
  // routes the request, by canonical name (or IP) and port.
  std::vector<const Login*> For(const CanonicalHost& host, uint16_t port) const;

  // The first login whose stand-in occurs in `text`; with `mine`, the first
  // that is not one of those.
  const Login* StandInIn(std::string_view text, const std::vector<const Login*>& mine = {}) const;

 private:
  std::vector<Login> logins_;
  std::vector<std::vector<HostPort>> hosts_;  // per login
};

// The session's logins as they stand: a token endpoint's answer adds new
// ones (a refreshed subscription login) while connections are served. Each
// exchange takes the table as it is when its request arrives.
class LoginStore {
 public:
  explicit LoginStore(std::shared_ptr<const LoginTable> table) : table_(std::move(table)) {}
  std::shared_ptr<const LoginTable> Current() const;
  // The table with `more` after the logins it has (checked as at Start).
  Result<void> Add(std::vector<Login> more);

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const LoginTable> table_;
};

// The verdict on a request's head for a host (`mine`: the logins of that
// host, maybe none). The stand-in of one of `mine` is replaced by its real
// value in that login's header, written exactly as prefix + stand-in; found
// anywhere else in the head it goes as it is (a stand-in is no secret, and
// the host it belongs to may see it). The stand-in of any other login
// refuses the request: it would go to a host it does not belong to.
struct HeadVerdict {
  std::vector<std::string> added;  // names of the logins added
  std::optional<std::string> refused;  // why, naming the login, never a value
  const Login* refused_login = nullptr;
};
HeadVerdict ApplyLogins(const LoginTable& table, const std::vector<const Login*>& mine, RequestHead& head);

// Replaces each `from` with its `to` in a byte stream cut anywhere: a tail
// that could begin a match is held until the next bytes (or Finish) decide.
// Only a true prefix of a `from` is held, so an SSE event that cannot begin a
// secret is passed on whole, at once.
class StreamReplacer {
 public:
  StreamReplacer() = default;
  explicit StreamReplacer(std::vector<std::pair<std::string, std::string>> pairs);
  void Feed(std::string_view in, std::string& out);
  void Finish(std::string& out);  // the message ended: release the held tail
  bool matched() const { return matched_; }
  std::size_t held() const { return held_.size(); }

 private:
  void Run(std::string_view in, std::string& out, bool last);
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::string held_;
  bool matched_ = false;
};

// Real values back to stand-ins: what the box may receive.
StreamReplacer HideValues(const LoginTable& table);
// Stand-ins of `mine` that go in bodies (Login::in_body) to real values: a
// refresh token in the token request.
StreamReplacer BodyValues(const std::vector<const Login*>& mine);
// Stand-ins of logins other than `mine` found (and left as they are): what a
// request body to a host of `mine` may not carry.
StreamReplacer FindStandIns(const LoginTable& table, const std::vector<const Login*>& mine = {});

// ---------------------------------------------------------------- token endpoints

// Token endpoints (docs/logins.md, "Subscription logins"): the answer to a
// refresh, or to a login made in the box, carries new real tokens. The
// proxy keeps them, gives the box stand-ins in their place, and tells the
// host, whose own agent then stays logged in.
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
