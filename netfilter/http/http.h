// netfilter/http/: strict HTTP/1.x message heads and bodies' framing, and
// the proxy's own Proxy-Authorization. Anything ambiguous is an error with a
// status and a reason: a proxy that reads a message differently from the
// origin is how requests get smuggled past it. The room's one public header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corral::netfilter {

enum class BodyKind { kNone, kLength, kChunked, kUntilClose };

struct Header {
  std::string name;   // as sent
  std::string value;  // without surrounding whitespace
};

struct HttpError {
  int status = 400;
  std::string reason;
};

struct RequestHead {
  std::string method;
  std::string target;  // as sent
  int minor = 1;       // HTTP/1.minor
  std::vector<Header> headers;
  std::size_t size = 0;  // bytes of the head, final CRLF CRLF included

  bool connect = false;
  std::string authority;  // CONNECT's host:port, or the absolute URL's host[:port]
  std::string path;       // origin-form to forward ("/" at least); empty for CONNECT
  BodyKind body = BodyKind::kNone;
  uint64_t content_length = 0;
  bool keep_alive = true;
  std::optional<std::string> host;                 // the Host header
  std::optional<std::string> proxy_authorization;  // the Proxy-Authorization header
  std::vector<std::string> connection_tokens;      // lower case, from Connection
};

struct ResponseHead {
  int minor = 1;
  int status = 0;
  std::string reason;
  std::vector<Header> headers;
  std::size_t size = 0;
  BodyKind body = BodyKind::kNone;
  uint64_t content_length = 0;
  bool keep_alive = true;
  std::vector<std::string> connection_tokens;
  // Transfer codings other than the final "chunked" (e.g. "gzip"), in order:
  // passed on to the client, since Transfer-Encoding itself is hop-by-hop.
  std::vector<std::string> transfer_codings;
};

enum class ParseState { kIncomplete, kDone, kError };

template <class Head>
struct Parsed {
  ParseState state = ParseState::kIncomplete;
  Head head;
  HttpError error;
};

// kProxy: what a proxy is sent (CONNECT, or an absolute http:// URL).
// kOrigin: what an origin is sent (origin-form "/path"; authority is the
// Host header): requests inside a TLS connection the proxy ends.
enum class RequestForm { kProxy, kOrigin };

// Parses the request head at the start of `buffer`. kIncomplete while the
// head may still be valid and under `max_head` bytes; 431 past that.
Parsed<RequestHead> ParseRequest(std::string_view buffer, std::size_t max_head,
                                 RequestForm form = RequestForm::kProxy);

// A request head to send to an origin: origin-form `path`, `host` as Host,
// without hop-by-hop fields; chunked framing named again when the body has it.
std::string OriginRequestHead(const RequestHead& req, std::string_view path, std::string_view host);

// A response head for the client, without hop-by-hop fields. `close` adds
// Connection: close; `dechunk`: the body goes out without chunked framing,
// delimited by the close; `interim`: a 1xx, sent as it is.
std::string ClientResponseHead(const ResponseHead& res, bool close, int client_minor, bool interim, bool dechunk);

// `request_method` decides whether the response has a body (HEAD, CONNECT).
Parsed<ResponseHead> ParseResponse(std::string_view buffer, std::size_t max_head,
                                   std::string_view request_method);

// Case-insensitive ASCII comparison for header names and tokens.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Headers a proxy must not forward (RFC 9110 7.6.1), plus any named in
// Connection.
bool IsHopByHop(std::string_view name, const std::vector<std::string>& connection_tokens);

// Judges the part of a request's body that arrived with its head (`body`;
// `client_done`: the client sent its FIN after it), so a request already
// known to be malformed or cut short is refused before anything is dialed.
// Later bytes are judged as they stream past.
std::optional<HttpError> CheckBodyPrefix(const RequestHead& head, std::string_view body, bool client_done);

// Validates and measures a chunked body as it streams past, so the proxy
// knows where the message ends without changing its bytes.
class ChunkedDecoder {
 public:
  // Consumes bytes from `data`; returns how many belong to this body (all of
  // them unless the body ended inside `data`). Sets error on bad framing.
  // With `payload`, appends the chunks' data to it, without the framing (for
  // a client that cannot read chunked: HTTP/1.0).
  std::size_t Consume(std::string_view data, std::string* payload = nullptr);
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kError; }

 private:
  enum class State { kSize, kSizeExt, kSizeLf, kData, kDataCr, kDataLf, kTrailer,
                     kTrailerName, kTrailerValue, kTrailerLineLf, kFinalLf, kDone, kError };
  State state_ = State::kSize;
  uint64_t remaining_ = 0;
  int size_digits_ = 0;
  std::size_t line_bytes_ = 0;
  std::size_t trailer_bytes_ = 0;
  std::string trailer_name_;
};

// ---------------------------------------------------------------- Proxy-Authorization

// The proxy token: Proxy-Authorization Basic with any user and the token as
// the password.
std::optional<std::string> DecodeBase64(std::string_view text);
std::string EncodeBase64(std::string_view bytes);  // with '=' padding
bool TokenAccepted(const std::optional<std::string>& proxy_authorization, std::string_view token);

}  // namespace corral::netfilter
