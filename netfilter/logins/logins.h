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
  std::pair<std::size_t, std::size_t> Next(std::string_view data, std::size_t from) const;
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::size_t key_size_ = 0;      // the bytes each pattern's start is known by (up to 4)
  std::vector<uint64_t> starts_;  // a bit for each pattern's start, hashed
  std::string held_;
  bool matched_ = false;
};

// Real values back to stand-ins: what the box may receive. Each value's
// base64 forms (standard and URL-safe, at any of the 3 byte alignments in a
// longer base64 text: an echoed Basic header, a token inside base64'd JSON)
// are replaced by its stand-in's too.
StreamReplacer HideValues(const LoginTable& table);
// Stand-ins of `mine` that go in bodies (Login::in_body) to real values: a
// refresh token in the token request.
StreamReplacer BodyValues(const std::vector<const Login*>& mine);
// Stand-ins of logins other than `mine` found (and left as they are): what a
// request body to a host of `mine` may not carry.
StreamReplacer FindStandIns(const LoginTable& table, const std::vector<const Login*>& mine = {});

// ---------------------------------------------------------------- compressed responses

// A response body's codings in the order they were applied: Content-Encoding,
// then Transfer-Encoding's other than chunked; lower case, "identity" left
// out. Empty: the body is as it is.
std::vector<std::string> BodyCodings(const ResponseHead& res);

// `res`'s head for the box once its body is decoded: without Content-Encoding
// and Content-Length, its other transfer codings gone, chunked (which
// ClientResponseHead drops again for an HTTP/1.0 client, delimiting the body
// by the close).
ResponseHead DecodedHead(ResponseHead res);

// What the proxy asks a host whose responses it reads for in Accept-Encoding:
// the box's own list less the codings ContentDecoder cannot undo (zstd,
// compress, "*"), or "identity" when none is left.
std::string ReadableAcceptEncoding(std::string_view value);

// Undoes a response body's codings as it streams (gzip or x-gzip, deflate
// with or without its zlib wrapper, br; stacked in any order), so the real
// values in it can be hidden. Output goes out in pieces of at most
// `piece` bytes whatever the input, so a decompression bomb takes no memory;
// past `max_total` bytes (at any stage) the body is refused.
struct DecodeLimits {
  uint64_t max_total = uint64_t{1} << 30;  // 1 GiB
  std::size_t piece = 64 * 1024;
};
class ContentDecoder {
 public:
  // Takes a decoded piece; false stops the decoding (the box left).
  using Sink = std::function<bool(std::string_view)>;
  class Stage;

  // Fails, naming the coding, for one it cannot undo: such a body must not
  // reach the box.
  static Result<std::unique_ptr<ContentDecoder>> Make(const std::vector<std::string>& codings,
                                                      DecodeLimits limits = {});
  ~ContentDecoder();
  // Fails on a malformed stream, past the limit, or when `out` stopped it;
  // the decoder stays failed.
  Result<void> Feed(std::string_view in, const Sink& out);
  // The body ended: fails when its compressed stream had not.
  Result<void> Finish(const Sink& out);

 private:
  explicit ContentDecoder(DecodeLimits limits);
  Result<void> Run(std::size_t stage, std::string_view in, bool finish, const Sink& out);
  Error Fail(Error error);
  DecodeLimits limits_;
  std::vector<std::unique_ptr<Stage>> stages_;  // the last coding applied first
  std::vector<uint64_t> made_;                  // bytes each stage has put out
  std::optional<Error> failed_;
};

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
