#include "netfilter/http/http.h"

#include <algorithm>

#include "base/base.h"

namespace corral::netfilter {
namespace {

constexpr std::size_t kMaxHeaders = 200;
constexpr std::string_view kBlank = " \t";  // HTTP's optional whitespace

bool IsTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return IsTokenChar(c); });
}

// Field values: visible ASCII, obs-text, SP and HTAB; never other controls.
bool IsFieldValue(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) {
    auto c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

// Fields that decide where a message ends or goes: never in a trailer.
bool IsFramingOrRouting(std::string_view name) {
  for (std::string_view f : {"content-length", "transfer-encoding", "host"}) {
    if (EqualsIgnoreCase(name, f)) return true;
  }
  return false;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// CGI and WSGI servers read '_' in a field name as '-': there
// "Transfer_Encoding" would frame the message, here it frames nothing.
std::optional<std::string> UnderscoreSpelling(std::string_view name) {
  if (name.find('_') == std::string_view::npos) return std::nullopt;
  std::string dashed = Lower(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  if (IsFramingOrRouting(dashed) || IsHopByHop(dashed, {})) return dashed;
  return std::nullopt;
}

std::vector<std::string> SplitTokens(std::string_view value) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t comma = value.find(',', start);
    std::string_view item =
        Trim(value.substr(start, comma == value.npos ? value.npos : comma - start), kBlank);
    if (!item.empty()) out.push_back(Lower(item));
    if (comma == value.npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<uint64_t> ParseLength(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// Where the head ends (after CRLF CRLF), skipping the empty lines a client
// may send between requests; npos while incomplete.
struct HeadSpan {
  std::size_t skip = 0;  // leading CRLFs
  std::size_t end = std::string_view::npos;
};

HeadSpan FindHead(std::string_view buffer) {
  HeadSpan span;
  while (span.skip + 1 < buffer.size() && buffer[span.skip] == '\r' && buffer[span.skip + 1] == '\n') {
    span.skip += 2;
  }
  std::size_t end = buffer.find("\r\n\r\n", span.skip);
  if (end != std::string_view::npos) span.end = end + 4;
  return span;
}

// Splits a complete head into lines, refusing bare CR or LF and obs-fold.
std::optional<HttpError> SplitLines(std::string_view head, std::vector<std::string_view>& lines) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '\n') return HttpError{400, "bare LF in the message head"};
    if (head[i] != '\r') continue;
    if (i + 1 >= head.size() || head[i + 1] != '\n') return HttpError{400, "bare CR in the message head"};
    lines.push_back(head.substr(start, i - start));
    start = i + 2;
    ++i;
  }
  return std::nullopt;
}

struct Fields {
  std::vector<Header> headers;
  std::vector<std::string_view> content_length;
  std::vector<std::string_view> transfer_encoding;
  std::vector<std::string_view> host;
  std::vector<std::string_view> proxy_authorization;
  std::vector<std::string> connection_tokens;
  bool proxy_connection_close = false;
  bool proxy_connection_keep_alive = false;
};

std::optional<HttpError> ParseFields(const std::vector<std::string_view>& lines, Fields& fields) {
  if (lines.size() > kMaxHeaders + 1) return HttpError{431, "too many header fields"};
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      return HttpError{400, "obsolete line folding in a header field"};
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return HttpError{400, "header line without ':'"};
    std::string_view name = line.substr(0, colon);
    if (!IsToken(name)) {
      return HttpError{400, "malformed header name (whitespace before ':' or a bad character)"};
    }
    if (auto dashed = UnderscoreSpelling(name)) {
      return HttpError{400, "header '" + std::string(name) + "' would be read as " + *dashed +
                                " by some servers; spell it with '-'"};
    }
    std::string_view value = Trim(line.substr(colon + 1), kBlank);
    if (!IsFieldValue(value)) return HttpError{400, "control character in a header value"};
    fields.headers.push_back({std::string(name), std::string(value)});
    if (EqualsIgnoreCase(name, "content-length")) fields.content_length.push_back(value);
    else if (EqualsIgnoreCase(name, "transfer-encoding")) fields.transfer_encoding.push_back(value);
    else if (EqualsIgnoreCase(name, "host")) fields.host.push_back(value);
    else if (EqualsIgnoreCase(name, "proxy-authorization")) fields.proxy_authorization.push_back(value);
    else if (EqualsIgnoreCase(name, "connection")) {
      for (auto& token : SplitTokens(value)) fields.connection_tokens.push_back(std::move(token));
    } else if (EqualsIgnoreCase(name, "proxy-connection")) {
      for (auto& token : SplitTokens(value)) {
        fields.proxy_connection_close |= token == "close";
        fields.proxy_connection_keep_alive |= token == "keep-alive";
      }
    }
  }
  return std::nullopt;
}

bool HasToken(const std::vector<std::string>& tokens, std::string_view token) {
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

std::optional<int> ParseVersion(std::string_view v) {
  if (v == "HTTP/1.1") return 1;
  if (v == "HTTP/1.0") return 0;
  return std::nullopt;
}

// Framing shared by requests and responses: one Transfer-Encoding "chunked"
// or one Content-Length, never both.
std::optional<HttpError> RequestFraming(const Fields& f, int minor, RequestHead& head) {
  if (!f.transfer_encoding.empty() && !f.content_length.empty()) {
    return HttpError{400, "both Content-Length and Transfer-Encoding"};
  }
  if (!f.transfer_encoding.empty()) {
    if (minor == 0) return HttpError{400, "Transfer-Encoding in an HTTP/1.0 request"};
    if (f.transfer_encoding.size() != 1 || !EqualsIgnoreCase(f.transfer_encoding[0], "chunked")) {
      return HttpError{400, "Transfer-Encoding other than a single 'chunked'"};
    }
    head.body = BodyKind::kChunked;
  } else if (!f.content_length.empty()) {
    if (f.content_length.size() != 1) return HttpError{400, "more than one Content-Length"};
    auto length = ParseLength(f.content_length[0]);
    if (!length) return HttpError{400, "malformed Content-Length"};
    head.content_length = *length;
    head.body = *length ? BodyKind::kLength : BodyKind::kNone;
  }
  return std::nullopt;
}

std::optional<HttpError> ParseTarget(RequestHead& head, RequestForm form) {
  const std::string& t = head.target;
  for (char ch : t) {
    auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f) return HttpError{400, "request target contains a control or non-ASCII byte"};
  }
  if (form == RequestForm::kOrigin) {
    if (head.connect || t[0] != '/') return HttpError{400, "request target must be a path (origin-form, /...)"};
    if (t.find('#') != std::string::npos) return HttpError{400, "fragment in the request target"};
    head.path = t;
    return std::nullopt;
  }
  if (head.connect) {
    if (t.find_first_of("/?#@\\") != std::string::npos) {
      return HttpError{400, "CONNECT target must be host:port"};
    }
    head.authority = t;
    return std::nullopt;
  }
  if (t == "*") return HttpError{400, "asterisk-form requests are not forwarded"};
  if (t[0] == '/') {
    return HttpError{400, "origin-form request: this is a proxy; send an absolute URL (http://host/path) or CONNECT"};
  }
  std::size_t scheme_end = t.find("://");
  if (scheme_end == std::string::npos) {
    return HttpError{400, "request target must be an absolute http:// URL (or use CONNECT)"};
  }
  std::string scheme = Lower(std::string_view(t).substr(0, scheme_end));
  if (scheme != "http") {
    return HttpError{400, "scheme '" + scheme + "' is not forwarded; use CONNECT for https"};
  }
  if (t.find('#') != std::string::npos) return HttpError{400, "fragment in the request target"};
  if (t.find('\\') != std::string::npos) return HttpError{400, "backslash in the request target"};
  std::size_t start = scheme_end + 3;
  std::size_t end = t.find_first_of("/?", start);
  head.authority = t.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (head.authority.find('@') != std::string::npos) {
    return HttpError{400, "userinfo (user@) in the URL is not accepted"};
  }
  if (head.authority.empty()) return HttpError{400, "URL without a host"};
  if (end == std::string::npos) head.path = "/";
  else if (t[end] == '?') head.path = "/" + t.substr(end);
  else head.path = t.substr(end);
  return std::nullopt;
}

constexpr std::size_t kMaxMethod = 64;

// Early refusal for what can never become a valid request line, so garbage
// (a TLS ClientHello, HTTP/2's preface) gets its 400 without a wait.
std::optional<HttpError> CheckRequestLinePrefix(std::string_view buffer) {
  std::size_t skip = 0;
  while (skip < buffer.size() && (buffer[skip] == '\r' || buffer[skip] == '\n')) ++skip;
  std::string_view rest = buffer.substr(skip);
  std::size_t i = 0;
  while (i < rest.size() && IsTokenChar(static_cast<unsigned char>(rest[i]))) ++i;
  if (i < rest.size() && rest[i] != ' ') return HttpError{400, "malformed request line"};
  if (i > kMaxMethod) return HttpError{400, "method name too long"};
  return std::nullopt;
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool IsHopByHop(std::string_view name, const std::vector<std::string>& connection_tokens) {
  static constexpr std::string_view kHopByHop[] = {
      "connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate",
      "te", "trailer", "transfer-encoding", "upgrade"};
  for (std::string_view h : kHopByHop) {
    if (EqualsIgnoreCase(name, h)) return true;
  }
  // Connection may name more hop-by-hop fields, never the framing: a body
  // forwarded without its Content-Length is read as the next message.
  if (EqualsIgnoreCase(name, "content-length")) return false;
  for (const std::string& token : connection_tokens) {
    if (EqualsIgnoreCase(name, token)) return true;
  }
  return false;
}

Parsed<RequestHead> ParseRequest(std::string_view buffer, std::size_t max_head, RequestForm form) {
  Parsed<RequestHead> out;
  auto fail = [&](HttpError e) {
    out.state = ParseState::kError;
    out.error = std::move(e);
    return out;
  };
  HeadSpan span = FindHead(buffer);
  if (span.end == std::string_view::npos || span.end > max_head) {
    if (auto e = CheckRequestLinePrefix(buffer)) return fail(*e);
    if (buffer.size() >= max_head) return fail({431, "request head larger than " + std::to_string(max_head) + " bytes"});
    return out;
  }
  std::vector<std::string_view> lines;
  if (auto e = SplitLines(buffer.substr(span.skip, span.end - span.skip - 2), lines)) return fail(*e);
  RequestHead& head = out.head;
  head.size = span.end;

  std::string_view line = lines[0];
  std::size_t sp1 = line.find(' ');
  std::size_t sp2 = sp1 == line.npos ? line.npos : line.find(' ', sp1 + 1);
  if (sp2 == line.npos || line.find(' ', sp2 + 1) != line.npos) {
    return fail({400, "malformed request line (expected METHOD TARGET HTTP/1.1)"});
  }
  head.method = std::string(line.substr(0, sp1));
  head.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  std::string_view version = line.substr(sp2 + 1);
  if (head.method == "PRI" && version == "HTTP/2.0") {
    return fail({400, "HTTP/2 prior knowledge is not supported; speak HTTP/1.1 to the proxy"});
  }
  if (!IsToken(head.method)) return fail({400, "malformed method"});
  // Methods are case-sensitive; an origin that reads "head" as HEAD sends no
  // body where the proxy waits for one, and the next response becomes it.
  if (std::any_of(head.method.begin(), head.method.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
    return fail({400, "method '" + head.method + "' is not upper case (methods are case-sensitive: GET, not get)"});
  }
  // The same limit as the early check, so a head is judged the same however it is cut.
  if (head.method.size() > kMaxMethod) return fail({400, "method name too long"});
  if (head.target.empty()) return fail({400, "empty request target"});
  auto minor = ParseVersion(version);
  if (!minor) return fail({400, "unsupported HTTP version (expected HTTP/1.1 or HTTP/1.0)"});
  head.minor = *minor;
  head.connect = head.method == "CONNECT";

  Fields fields;
  if (auto e = ParseFields(lines, fields)) return fail(*e);
  if (fields.host.size() > 1) return fail({400, "more than one Host header"});
  if (fields.host.empty() && head.minor == 1) return fail({400, "HTTP/1.1 request without a Host header"});
  if (fields.proxy_authorization.size() > 1) return fail({400, "more than one Proxy-Authorization header"});
  if (auto e = RequestFraming(fields, head.minor, head)) return fail(*e);
  if (HasToken(fields.connection_tokens, "content-length")) {
    return fail({400, "Connection names Content-Length, which cannot be hop-by-hop"});
  }
  if (head.connect && head.body != BodyKind::kNone) return fail({400, "CONNECT with a body"});
  if (auto e = ParseTarget(head, form)) return fail(*e);

  if (!fields.host.empty()) head.host = std::string(fields.host[0]);
  if (form == RequestForm::kOrigin) {
    if (!head.host) return fail({400, "request without a Host header"});
    head.authority = *head.host;
  }
  if (!fields.proxy_authorization.empty()) head.proxy_authorization = std::string(fields.proxy_authorization[0]);
  head.connection_tokens = std::move(fields.connection_tokens);
  head.headers = std::move(fields.headers);
  bool close = HasToken(head.connection_tokens, "close") || fields.proxy_connection_close;
  bool keep = HasToken(head.connection_tokens, "keep-alive") || fields.proxy_connection_keep_alive;
  head.keep_alive = head.minor == 1 ? !close : (keep && !close);
  out.state = ParseState::kDone;
  return out;
}

Parsed<ResponseHead> ParseResponse(std::string_view buffer, std::size_t max_head,
                                   std::string_view request_method) {
  Parsed<ResponseHead> out;
  auto fail = [&](std::string reason) {
    out.state = ParseState::kError;
    out.error = {502, "bad response from the origin: " + reason};
    return out;
  };
  HeadSpan span = FindHead(buffer);
  if (span.skip) return fail("empty lines before the status line");
  if (span.end == std::string_view::npos || span.end > max_head) {
    if (buffer.size() >= 5 && buffer.substr(0, 5) != "HTTP/") return fail("not HTTP");
    if (buffer.size() >= max_head) return fail("response head too large");
    return out;
  }
  std::vector<std::string_view> lines;
  if (auto e = SplitLines(buffer.substr(0, span.end - 2), lines)) return fail(e->reason);
  ResponseHead& head = out.head;
  head.size = span.end;
  std::string_view line = lines[0];
  if (line.size() < 12 || line[8] != ' ' || (line.size() > 12 && line[12] != ' ')) {
    return fail("malformed status line");
  }
  auto minor = ParseVersion(line.substr(0, 8));
  if (!minor) return fail("unsupported HTTP version");
  head.minor = *minor;
  for (char c : line.substr(9, 3)) {
    if (c < '0' || c > '9') return fail("malformed status code");
  }
  head.status = std::stoi(std::string(line.substr(9, 3)));
  if (head.status < 100) return fail("malformed status code");
  if (line.size() > 13) head.reason = std::string(line.substr(13));
  if (!IsFieldValue(head.reason)) return fail("control character in the reason phrase");

  Fields fields;
  if (auto e = ParseFields(lines, fields)) return fail(e->reason);
  head.connection_tokens = std::move(fields.connection_tokens);
  head.headers = std::move(fields.headers);
  bool close = HasToken(head.connection_tokens, "close");
  head.keep_alive = head.minor == 1 ? !close : (HasToken(head.connection_tokens, "keep-alive") && !close);

  bool no_body = request_method == "HEAD" || head.status < 200 || head.status == 204 || head.status == 304;
  if (!fields.transfer_encoding.empty() && !fields.content_length.empty()) {
    return fail("both Content-Length and Transfer-Encoding");
  }
  if (no_body) {
    head.body = BodyKind::kNone;
  } else if (!fields.transfer_encoding.empty()) {
    std::vector<std::string> codings;
    for (auto te : fields.transfer_encoding) {
      for (auto& c : SplitTokens(te)) codings.push_back(std::move(c));
    }
    if (codings.empty() || codings.back() != "chunked") {
      head.body = BodyKind::kUntilClose;
      head.keep_alive = false;
    } else {
      if (std::count(codings.begin(), codings.end(), "chunked") != 1) return fail("chunked applied twice");
      head.body = BodyKind::kChunked;
      codings.pop_back();
    }
    head.transfer_codings = std::move(codings);
  } else if (!fields.content_length.empty()) {
    auto length = ParseLength(fields.content_length[0]);
    for (auto cl : fields.content_length) {
      if (cl != fields.content_length[0]) return fail("conflicting Content-Length values");
    }
    if (!length) return fail("malformed Content-Length");
    head.content_length = *length;
    head.body = *length ? BodyKind::kLength : BodyKind::kNone;
  } else {
    head.body = BodyKind::kUntilClose;
    head.keep_alive = false;
  }
  out.state = ParseState::kDone;
  return out;
}

std::string OriginRequestHead(const RequestHead& req, std::string_view path, std::string_view host) {
  std::string head = req.method + " " + std::string(path) + " HTTP/1.1\r\n";
  head += "Host: " + std::string(host) + "\r\n";
  for (const Header& h : req.headers) {
    if (IsHopByHop(h.name, req.connection_tokens) || EqualsIgnoreCase(h.name, "host")) continue;
    head += h.name + ": " + h.value + "\r\n";
  }
  if (req.body == BodyKind::kChunked) head += "Transfer-Encoding: chunked\r\n";
  head += "\r\n";
  return head;
}

std::string ClientResponseHead(const ResponseHead& res, bool close, int client_minor, bool interim, bool dechunk) {
  std::string head = "HTTP/1.1 " + std::to_string(res.status) + " " + res.reason + "\r\n";
  for (const Header& h : res.headers) {
    if (IsHopByHop(h.name, res.connection_tokens)) continue;
    head += h.name + ": " + h.value + "\r\n";
  }
  if (!interim) {
    // The origin's other codings (gzip, ...) stay on the body: name them.
    std::vector<std::string> codings = res.transfer_codings;
    if (res.body == BodyKind::kChunked && !dechunk) codings.push_back("chunked");
    for (std::size_t i = 0; i < codings.size(); ++i) {
      head += (i == 0 ? "Transfer-Encoding: " : ", ") + codings[i];
      if (i + 1 == codings.size()) head += "\r\n";
    }
    if (close) head += "Connection: close\r\n";
    else if (client_minor == 0) head += "Connection: keep-alive\r\n";
  }
  head += "\r\n";
  return head;
}

std::optional<HttpError> CheckBodyPrefix(const RequestHead& head, std::string_view body, bool client_done) {
  if (head.body == BodyKind::kChunked) {
    ChunkedDecoder chunks;
    chunks.Consume(body);
    if (chunks.failed()) return HttpError{400, "malformed chunked request body"};
    if (!chunks.done() && client_done) {
      return HttpError{400, "the client stopped sending before the chunked body ended"};
    }
  } else if (head.body == BodyKind::kLength && client_done && body.size() < head.content_length) {
    return HttpError{400, "the client stopped sending after " + std::to_string(body.size()) + " of the " +
                              std::to_string(head.content_length) + " body bytes its Content-Length announced"};
  }
  return std::nullopt;
}

std::size_t ChunkedDecoder::Consume(std::string_view data, std::string* payload) {
  constexpr std::size_t kMaxLine = 4096;
  constexpr std::size_t kMaxTrailers = 64 * 1024;
  std::size_t i = 0;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  while (i < data.size() && state_ != State::kDone && state_ != State::kError) {
    char c = data[i];
    switch (state_) {
      case State::kSize:
        if (int h = hex(c); h >= 0) {
          if (++size_digits_ > 15) { state_ = State::kError; break; }
          remaining_ = remaining_ * 16 + static_cast<uint64_t>(h);
        } else if (size_digits_ == 0) {
          state_ = State::kError;
          break;
        } else if (c == ';') {
          state_ = State::kSizeExt;
          line_bytes_ = 0;
        } else if (c == '\r') {
          state_ = State::kSizeLf;
        } else {
          state_ = State::kError;
          break;
        }
        ++i;
        break;
      case State::kSizeExt:
        if (c == '\r') state_ = State::kSizeLf;
        else if (c == '\n' || (static_cast<unsigned char>(c) < 0x20 && c != '\t') || ++line_bytes_ > kMaxLine) {
          state_ = State::kError;
          break;
        }
        ++i;
        break;
      case State::kSizeLf:
        if (c != '\n') { state_ = State::kError; break; }
        state_ = remaining_ ? State::kData : State::kTrailer;
        ++i;
        break;
      case State::kData: {
        std::size_t take = static_cast<std::size_t>(std::min<uint64_t>(remaining_, data.size() - i));
        if (payload) payload->append(data, i, take);
        i += take;
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kDataCr;
        break;
      }
      case State::kDataCr:
        if (c != '\r') { state_ = State::kError; break; }
        state_ = State::kDataLf;
        ++i;
        break;
      case State::kDataLf:
        if (c != '\n') { state_ = State::kError; break; }
        state_ = State::kSize;
        size_digits_ = 0;
        ++i;
        break;
      // Trailer fields are checked like header fields: an origin that merges
      // them into the head must not find framing there, nor folded lines.
      case State::kTrailer:
        if (c == '\r') {
          state_ = State::kFinalLf;
          ++i;
        } else if (IsTokenChar(static_cast<unsigned char>(c))) {
          state_ = State::kTrailerName;
          trailer_name_.clear();
        } else {
          state_ = State::kError;
        }
        break;
      case State::kTrailerName:
        if (++trailer_bytes_ > kMaxTrailers) {
          state_ = State::kError;
        } else if (IsTokenChar(static_cast<unsigned char>(c))) {
          trailer_name_ += c;
          ++i;
        } else if (c == ':' && !IsFramingOrRouting(trailer_name_)) {
          state_ = State::kTrailerValue;
          ++i;
        } else {
          state_ = State::kError;
        }
        break;
      case State::kTrailerValue:
        if (c == '\r') state_ = State::kTrailerLineLf;
        else if (!IsFieldValue(std::string_view(&c, 1)) || ++trailer_bytes_ > kMaxTrailers) {
          state_ = State::kError;
          break;
        }
        ++i;
        break;
      case State::kTrailerLineLf:
        if (c != '\n') { state_ = State::kError; break; }
        state_ = State::kTrailer;
        ++i;
        break;
      case State::kFinalLf:
        if (c != '\n') { state_ = State::kError; break; }
        state_ = State::kDone;
        ++i;
        break;
      case State::kDone:
      case State::kError:
        break;
    }
  }
  return i;
}

}  // namespace corral::netfilter
