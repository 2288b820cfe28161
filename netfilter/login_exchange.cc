#include "netfilter/login_exchange.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace corral::netfilter {
namespace {

constexpr std::size_t kReadSize = 16 * 1024;
// A token endpoint's answer is read whole before the box gets it.
constexpr std::size_t kLargestTokenAnswer = 1024 * 1024;

std::string_view StatusText(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 502: return "Bad Gateway";
    default: return "Error";
  }
}

std::string Chunk(std::string_view data) {
  if (data.empty()) return {};
  char size[20];
  int n = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out(size, static_cast<std::size_t>(n));
  out.append(data);
  out.append("\r\n");
  return out;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

// One connection's exchanges. Reads block (with the idle timeout set on the
// sockets), so each step is plain sequential code.
class Exchanges {
 public:
  Exchanges(Stream& box, Stream& origin, const ExchangeSetup& setup, std::string box_in)
      : box_(box), origin_(origin), setup_(setup), box_in_(std::move(box_in)) {}

  void Run(std::optional<RequestHead> first) {
    while (true) {
      RequestHead req;
      if (first) {
        req = std::move(*first);
        first.reset();
      } else if (!ReadRequest(req)) {
        return;
      }
      if (!Serve(req)) return;
      if (!setup_.tls) return;  // plain http: one exchange, then the box dials again through the loop
    }
  }

 private:
  bool ReadRequest(RequestHead& req) {
    while (true) {
      auto parsed = ParseRequest(box_in_, setup_.max_head, RequestForm::kOrigin);
      if (parsed.state == ParseState::kDone) {
        req = std::move(parsed.head);
        box_in_.erase(0, req.size);
        return true;
      }
      if (parsed.state == ParseState::kError) {
        Refuse(parsed.error.status, "bad-request", parsed.error.reason);
        return false;
      }
      if (!ReadMore(box_, box_in_)) return false;  // the box closed between requests: done
    }
  }

  static bool ReadMore(Stream& from, std::string& into) {
    char buf[kReadSize];
    long n = from.Read(buf, sizeof buf);
    if (n <= 0) return false;
    into.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  // One exchange; false when the connection ends with it.
  bool Serve(RequestHead& req) {
    started_ = std::chrono::steady_clock::now();
    line_ = setup_.base;
    line_.method = req.method;
    bytes_up_ = bytes_down_ = 0;
    if (req.method == "TRACE") {
      // TRACE echoes the request, real login included, back to the box.
      return Refuse(405, "trace-refused", "TRACE is not forwarded (it would echo the request back)");
    }
    if (setup_.tls) {
      auto host = ParseAuthority(req.authority, setup_.port);
      if (!host || host->host.name != setup_.host.name || host->port != setup_.port) {
        return Refuse(400, "host-mismatch", "Host header '" + req.authority + "' is not the CONNECT host " +
                                                setup_.host.name + ":" + std::to_string(setup_.port));
      }
    }
    table_ = setup_.store->Current();
    mine_ = table_->For(setup_.host, setup_.port);
    endpoint_ = setup_.endpoints ? setup_.endpoints->For(setup_.host, setup_.port, req.method, req.path) : nullptr;
    HeadVerdict verdict = ApplyLogins(*table_, mine_, req);
    if (verdict.refused) {
      line_.credential = "credential-to-wrong-host";
      return Refuse(403, "stand-in-refused", *verdict.refused);
    }
    if (!verdict.added.empty()) line_.login = Joined(verdict.added);
    bool expect_continue = false;
    std::erase_if(req.headers, [&](const Header& h) {
      bool expect = EqualsIgnoreCase(h.name, "expect") && EqualsIgnoreCase(h.value, "100-continue");
      expect_continue |= expect;
      // The tokens in a token endpoint's answer must be readable to be replaced.
      return expect || (endpoint_ && EqualsIgnoreCase(h.name, "accept-encoding"));
    });
    std::string host_header = setup_.tls ? req.authority
                              : setup_.port == 80 ? setup_.host.name
                                                  : setup_.host.name + ":" + std::to_string(setup_.port);
    if (!origin_.Write(OriginRequestHead(req, req.path, host_header))) {
      return Refuse(502, "bad-gateway", "the origin closed the connection");
    }
    // The body goes on without waiting for the origin's 100: this proxy reads it anyway.
    if (expect_continue && req.minor == 1 && !box_.Write("HTTP/1.1 100 Continue\r\n\r\n")) return false;
    if (!SendBody(req)) return false;
    return RelayResponse(req);
  }

  // The request body by its framing, through the stand-in scanner: another
  // login's stand-in in it (even one split across reads) stops the request
  // before it is whole. This host's own go as they are (an agent that sends
  // its model what `env` printed).
  bool SendBody(const RequestHead& req) {
    StreamReplacer scan = FindStandIns(*table_, mine_);
    StreamReplacer values = BodyValues(mine_);  // a refresh token, say
    std::string scanned, out;
    auto pass = [&](std::string_view data, bool last) {
      scanned.clear();
      scan.Feed(data, scanned);
      if (last) scan.Finish(scanned);
      if (scan.matched()) return false;
      out.clear();
      values.Feed(scanned, out);
      if (last) values.Finish(out);
      std::string framed = req.body == BodyKind::kChunked ? Chunk(out) : out;
      if (last && req.body == BodyKind::kChunked) framed += "0\r\n\r\n";
      bytes_up_ += out.size();
      return origin_.Write(framed);
    };
    if (req.body == BodyKind::kLength) {
      uint64_t left = req.content_length;
      while (left > 0) {
        if (box_in_.empty() && !ReadMore(box_, box_in_)) return BoxLeft();
        std::size_t take = static_cast<std::size_t>(std::min<uint64_t>(left, box_in_.size()));
        left -= take;
        bool ok = pass(std::string_view(box_in_).substr(0, take), left == 0);
        box_in_.erase(0, take);
        if (!ok) return RefuseBody();
      }
    } else if (req.body == BodyKind::kChunked) {
      ChunkedDecoder chunks;
      while (!chunks.done()) {
        if (box_in_.empty() && !ReadMore(box_, box_in_)) return BoxLeft();
        std::string payload;
        box_in_.erase(0, chunks.Consume(box_in_, &payload));
        if (chunks.failed()) return Refuse(400, "bad-request", "malformed chunked request body");
        if (!pass(payload, chunks.done())) return RefuseBody();
      }
    }
    return true;
  }

  bool BoxLeft() {
    Log("error", "the box closed before its request body ended");
    return false;
  }

  bool RefuseBody() {
    line_.credential = "credential-to-wrong-host";
    return Refuse(403, "stand-in-refused",
                  "another login's stand-in is in the request body, and this host is not where it "
                  "belongs; the request was cut off before it was whole");
  }

  bool RelayResponse(const RequestHead& req) {
    StreamReplacer hide_head = HideValues(*table_);
    std::string out;
    while (true) {
      auto parsed = ParseResponse(origin_in_, setup_.max_head, req.method);
      if (parsed.state == ParseState::kError) return Refuse(502, "bad-gateway", parsed.error.reason);
      if (parsed.state == ParseState::kIncomplete) {
        if (!ReadMore(origin_, origin_in_)) {
          return Refuse(502, "bad-gateway", "the origin closed without a response");
        }
        continue;
      }
      ResponseHead res = std::move(parsed.head);
      origin_in_.erase(0, res.size);
      if (res.status == 101) return Refuse(502, "bad-gateway", "the origin switched protocols unasked");
      bool interim = res.status < 200;
      bool dechunk = res.body == BodyKind::kChunked && req.minor == 0;
      bool close = !setup_.tls || !req.keep_alive || !res.keep_alive || res.body == BodyKind::kUntilClose || dechunk;
      out.clear();
      hide_head.Feed(ClientResponseHead(res, close, req.minor, interim, dechunk), out);
      hide_head.Finish(out);
      if (interim) {
        if (req.minor == 1 && !box_.Write(out)) return false;
        continue;
      }
      line_.status = res.status;
      if (endpoint_ && !interim && res.body != BodyKind::kNone &&
          std::any_of(res.headers.begin(), res.headers.end(), [](const Header& h) {
            return EqualsIgnoreCase(h.name, "content-encoding") && !EqualsIgnoreCase(h.value, "identity");
          })) {
        return Refuse(502, "token-answer-encoded", "the token endpoint's answer is compressed, so its tokens "
                                                   "cannot be replaced; it was not passed on");
      }
      if (!box_.Write(out)) return false;
      std::string tokens;
      if (!RelayBody(res, dechunk, tokens)) return false;
      Log("allow", !tokens.empty() ? "forwarded, " + tokens
                   : line_.login  ? "forwarded, login added"
                                  : "forwarded");
      return !close;
    }
  }

  // Streams the body as it comes: each read goes to the box at once, less
  // only a tail that may begin a real value.
  bool RelayBody(const ResponseHead& res, bool dechunk, std::string& tokens) {
    StreamReplacer hide = HideValues(*table_);
    std::string out, answer;
    bool chunked = res.body == BodyKind::kChunked;
    auto send = [&](std::string_view data, bool last) {
      out.clear();
      hide.Feed(data, out);
      if (last) hide.Finish(out);
      bytes_down_ += out.size();
      std::string framed = chunked && !dechunk ? Chunk(out) : out;
      if (last && chunked && !dechunk) framed += "0\r\n\r\n";
      return framed.empty() || box_.Write(framed);
    };
    // A token endpoint's answer is held whole, its tokens swapped for
    // stand-ins, then sent; any other body streams as it comes.
    auto pass = [&](std::string_view data, bool last) {
      if (!endpoint_) return send(data, last);
      answer.append(data);
      if (answer.size() > kLargestTokenAnswer) {
        Log("error", "the token endpoint's answer is larger than 1 MiB; it was not passed on");
        return false;
      }
      if (!last) return true;
      auto captured = CaptureTokens(*endpoint_, *table_, answer);
      if (!captured) {
        Log("error", captured.error().message + "; the answer was not passed on");
        return false;
      }
      if (!captured->logins.empty()) {
        if (auto added = setup_.store->Add(captured->logins); !added) {
          Log("error", "the token endpoint's tokens could not be held: " + added.error().message);
          return false;
        }
      }
      if (!captured->update.tokens.empty()) {
        tokens = std::to_string(captured->update.tokens.size()) + " token(s) from " + endpoint_->name +
                 " held by the proxy, the box has stand-ins";
        if (setup_.on_tokens) setup_.on_tokens(captured->update);
      }
      return send(answer, true);
    };
    if (res.body == BodyKind::kNone) return true;
    uint64_t left = res.content_length;
    ChunkedDecoder chunks;
    while (true) {
      if (origin_in_.empty() && !ReadMore(origin_, origin_in_)) {
        if (res.body == BodyKind::kUntilClose) return pass({}, true);
        Log("error", "the origin closed mid-response");
        return false;
      }
      if (res.body == BodyKind::kLength) {
        std::size_t take = static_cast<std::size_t>(std::min<uint64_t>(left, origin_in_.size()));
        left -= take;
        bool ok = pass(std::string_view(origin_in_).substr(0, take), left == 0);
        origin_in_.erase(0, take);
        if (!ok) return false;
        if (left == 0) return true;
      } else if (chunked) {
        std::string payload;
        origin_in_.erase(0, chunks.Consume(origin_in_, &payload));
        if (chunks.failed()) {
          Log("error", "malformed chunked response from the origin");
          return false;
        }
        if (!pass(payload, chunks.done())) return false;
        if (chunks.done()) return true;
      } else {
        bool ok = pass(origin_in_, false);
        origin_in_.clear();
        if (!ok) return false;
      }
    }
  }

  // Answers the box (unless a response is under way) and ends the connection.
  bool Refuse(int status, std::string_view code, const std::string& reason) {
    line_.status = status;
    std::string body = "corral proxy refused " + line_.method + " to " + setup_.host.name + ": " + reason + "\n";
    box_.Write(ErrorResponse(status, code, body));
    Log(status >= 500 ? "error" : "deny", std::string(code) + ": " + reason);
    return false;
  }

  void Log(std::string_view decision, std::string reason) {
    line_.decision = decision;
    line_.reason = std::move(reason);
    line_.bytes_up = bytes_up_;
    line_.bytes_down = bytes_down_;
    line_.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started_).count();
    WriteDecision(setup_.log, line_);
  }

  Stream& box_;
  Stream& origin_;
  const ExchangeSetup& setup_;
  std::string box_in_, origin_in_;
  Decision line_;
  std::shared_ptr<const LoginTable> table_;  // as it was when this request came
  std::vector<const Login*> mine_;            // this host's logins in it
  const TokenEndpoint* endpoint_ = nullptr;   // when the request is to a token endpoint
  uint64_t bytes_up_ = 0, bytes_down_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

std::string ErrorResponse(int status, std::string_view code, std::string_view body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(StatusText(status)) +
         "\r\nX-Corral-Error: " + std::string(code) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n\r\n" + std::string(body);
}

void RunExchanges(Stream& box, Stream& origin, const ExchangeSetup& setup, std::optional<RequestHead> first,
                  std::string box_in) {
  Exchanges(box, origin, setup, std::move(box_in)).Run(std::move(first));
}

}  // namespace corral::netfilter
