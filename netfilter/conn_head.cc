// Reading a request head and judging it: parse, token, canonical target,
// Host agreement, allowlist, tunnel cap. Refusals are answered here.
#include <sys/socket.h>
#include <unistd.h>

#include "netfilter/http/http.h"
#include "netfilter/decision_log.h"
#include "netfilter/server.h"
#include "netfilter/terminator.h"
#include "netfilter/tls/tls.h"

namespace corral::netfilter {
namespace {

std::string_view StatusText(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 405: return "Method Not Allowed";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Error";
  }
}

std::string_view CodeFor(int status) {
  switch (status) {
    case 431: return "head-too-large";
    case 408: return "head-timeout";
    default: return "bad-request";
  }
}

std::string HostForHeader(const Conn& conn) {
  return conn.port == 80 ? conn.host.name : conn.host.name + ":" + std::to_string(conn.port);
}

}  // namespace

void Loop::EnterHead(Conn& conn) {
  conn.phase = Conn::Phase::kHead;
  conn.deadline = shared_->clock->Now() + shared_->limits.head_timeout;
  conn.request = RequestHead{};
  conn.logged = false;
  conn.credential.reset();
  conn.sent_continue = false;
  conn.status = 0;
  conn.bytes_up = conn.bytes_down = 0;
  conn.response.reset();
  conn.host = CanonicalHost{};
  conn.port = 0;
  conn.dialed.reset();
  conn.reused_upstream = conn.resend = conn.retried = false;
  conn.started = shared_->clock->Now();
  if (!conn.client_in.empty()) ReadHead(conn);
}

void Loop::ReadHead(Conn& conn) {
  const std::size_t max_head = shared_->limits.max_head_bytes;
  char buf[16 * 1024];
  const std::size_t before = conn.client_in.size();
  while (conn.client_in.size() <= HeadReadLimit() && !conn.client_eof) {
    ssize_t n = ::read(conn.client.get(), buf, sizeof buf);
    if (n > 0) {
      conn.client_in.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) {
      conn.client_eof = true;
    } else if (errno != EAGAIN && errno != EINTR) {
      return Teardown(conn);
    }
    break;
  }
  auto parsed = ParseRequest(conn.client_in, max_head);
  if (parsed.state == ParseState::kError) {
    return Refuse(conn, parsed.error.status, CodeFor(parsed.error.status), parsed.error.reason);
  }
  if (parsed.state == ParseState::kIncomplete) {
    // A bare CR or LF can never become a valid head: answer now, not at the
    // head timeout. Only the new bytes are scanned, so trickling stays linear;
    // and only while the head is unfinished, since a body may hold any byte.
    for (std::size_t i = before; i < conn.client_in.size(); ++i) {
      char c = conn.client_in[i];
      bool bare_lf = c == '\n' && (i == 0 || conn.client_in[i - 1] != '\r');
      bool bare_cr = i > 0 && conn.client_in[i - 1] == '\r' && c != '\n';
      if (bare_lf || bare_cr) return Refuse(conn, 400, "bad-request", "bare CR or LF in the request head");
    }
    if (conn.client_eof) Teardown(conn);  // the client left mid-head: nobody to answer
    return;
  }
  if (WaitForSmallBody(conn, parsed.head)) return;
  conn.request = std::move(parsed.head);
  conn.client_in.erase(0, conn.request.size);
  // The origin must never see a request the proxy then refuses: what of the
  // body came with the head is judged before anything is dialed.
  if (auto error = CheckBodyPrefix(conn.request, conn.client_in, conn.client_eof)) {
    return Refuse(conn, error->status, CodeFor(error->status), error->reason);
  }
  Dispatch(conn);
}

void Loop::Dispatch(Conn& conn) {
  const RequestHead& req = conn.request;
  if (!TokenAccepted(req.proxy_authorization, shared_->token)) {
    return Refuse(conn, 407, "auth-required",
                  "this proxy needs Proxy-Authorization: Basic with the session token as password");
  }
  auto target = ParseAuthority(req.authority, req.connect ? std::nullopt : std::optional<uint16_t>(80));
  if (!target) return Refuse(conn, 400, "bad-target", "bad target '" + req.authority + "': " + target.error().message);
  conn.host = target->host;
  conn.port = target->port;
  if (req.host) {
    // The Host header never picks the destination; one that disagrees with
    // the target is a request meant to be read two ways.
    auto host = ParseAuthority(*req.host, req.connect ? std::optional<uint16_t>(conn.port) : 80);
    if (!host || host->host.name != conn.host.name || host->port != conn.port) {
      return Refuse(conn, 400, "host-mismatch", "Host header '" + *req.host + "' disagrees with the target " +
                                                    conn.host.name + ":" + std::to_string(conn.port));
    }
  }
  if (!req.connect && req.method == "TRACE") {
    // TRACE echoes the request back, a login the proxy added included.
    return Refuse(conn, 405, "trace-refused", "TRACE is not forwarded (it would echo the request back)");
  }
  if (RefuseStrayStandIn(conn)) return;
  auto rules = shared_->CurrentRules();
  Verdict verdict = DecideHost(*rules, conn.host, conn.port, req.connect ? Method::kConnect : Method::kHttp);
  if (!verdict.allowed) return Refuse(conn, 403, verdict.error, verdict.reason, verdict.hint);
  if (!req.connect && shared_->logins && shared_->logins->requests &&
      shared_->logins->requests->RefusesPlainHttp(conn.host.name, conn.port)) {
    return Refuse(conn, 403, "registry-plain-http",
                  conn.host.name + " is a package registry, reached over TLS only: plain HTTP would carry "
                                   "what the box sends in clear",
                  "allow it with network.allowed_domains: " + conn.host.name + ":" + std::to_string(conn.port));
  }

  if (req.connect) {
    // A client that sent its ClientHello with the CONNECT, not waiting for
    // the 200: a hello the tunnel would refuse is refused before dialing.
    if (auto refusal = JudgeHello(PeekClientHello(conn.client_in), conn.host)) {
      return Refuse(conn, 403, refusal->code, refusal->reason);
    }
    if (shared_->tunnels.fetch_add(1) >= shared_->limits.max_tunnels) {
      shared_->tunnels.fetch_sub(1);
      return Refuse(conn, 429, "too-many-tunnels",
                    "the proxy already holds " + std::to_string(shared_->limits.max_tunnels) +
                        " tunnels (network.max_tunnels)");
    }
    conn.counted_tunnel = true;
    CloseUpstream(conn);
    return EnterResolving(conn);
  }
  std::string key = HostForHeader(conn);
  if (conn.upstream.valid() && !conn.upstream_hup && conn.upstream_key == key && conn.upstream_address &&
      !CheckAddress(*rules, *conn.upstream_address)) {
    conn.dialed = conn.upstream_address;
    conn.reused_upstream = true;
    return EnterForward(conn);  // reuse the kept-alive origin connection
  }
  CloseUpstream(conn);
  EnterResolving(conn);
}

void Loop::Refuse(Conn& conn, int status, std::string_view code, std::string_view reason,
                  std::string_view hint) {
  conn.status = status;
  std::string what = conn.request.method.empty() ? std::string("request")
                                                  : conn.request.method + " " + conn.request.authority;
  std::string body = "corral proxy refused " + what + ": " + std::string(reason) + "\n";
  if (!hint.empty()) body += "To allow it: " + std::string(hint) + "\n";
  std::string response = "HTTP/1.1 " + std::to_string(status) + " " + std::string(StatusText(status)) +
                         "\r\nX-Corral-Error: " + std::string(code) + "\r\n";
  if (status == 407) response += "Proxy-Authenticate: Basic realm=\"corral\"\r\n";
  response += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
              "\r\nConnection: close\r\n\r\n" + body;
  // A response already under way cannot be replaced; just close.
  if (conn.phase == Conn::Phase::kForward && conn.response) {
    LogDecision(conn, "error", reason);
    return Teardown(conn);
  }
  conn.client_out = std::move(response);
  LogDecision(conn, status >= 500 ? "error" : "deny", std::string(code) + ": " + std::string(reason));
  EnterClosing(conn);
}

void Loop::EnterClosing(Conn& conn) {
  if (conn.counted_tunnel) {
    shared_->tunnels.fetch_sub(1);
    conn.counted_tunnel = false;
  }
  CloseUpstream(conn);
  conn.phase = Conn::Phase::kClosing;
  conn.deadline = shared_->clock->Now() + std::chrono::seconds(2);
  FlushClosing(conn);
  if (!conn.dead) Watch(conn);
}

// Sends what is left, then half-closes and drains the client for a moment so
// unread request bytes do not turn the close into a reset that eats the reply.
void Loop::FlushClosing(Conn& conn) {
  while (!conn.client_out.empty()) {
    ssize_t n = ::send(conn.client.get(), conn.client_out.data(), conn.client_out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      conn.client_out.erase(0, static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      return;
    } else {
      return Teardown(conn);
    }
  }
  if (!conn.client_shut) {
    ::shutdown(conn.client.get(), SHUT_WR);
    conn.client_shut = true;
  }
  char buf[4096];
  while (true) {
    ssize_t n = ::read(conn.client.get(), buf, sizeof buf);
    if (n > 0) continue;
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    return Teardown(conn);
  }
}

void Loop::LogDecision(const Conn& conn, std::string_view decision, std::string_view reason) {
  const_cast<Conn&>(conn).logged = true;
  if (!shared_->log) return;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(shared_->clock->Now() - conn.started);
  Decision line;
  line.client = conn.peer;
  line.method = conn.request.method;
  line.host = conn.host.name;
  line.port = conn.port;
  if (conn.dialed) line.address = conn.dialed->ToString();
  line.decision = decision;
  line.reason = reason;
  line.status = conn.status;
  line.bytes_up = conn.bytes_up;
  line.bytes_down = conn.bytes_down;
  line.duration_ms = conn.started.time_since_epoch().count() ? ms.count() : 0;
  line.credential = conn.credential;
  WriteDecision(shared_->log, line);
}

}  // namespace corral::netfilter
