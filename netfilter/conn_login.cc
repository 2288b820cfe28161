// Logins in the event loop: a stand-in on its way to a host it does not
// belong to is refused before anything is dialed; a connection to a login's
// host, once dialed like any other, goes to the terminator (terminator.h).
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>

#include "netfilter/server.h"
#include "netfilter/terminator.h"

namespace corral::netfilter {
namespace {

// A plain request body up to this size is read whole before the request is
// judged, so a stand-in in it is found before the origin sees a byte.
constexpr std::size_t kSmallBody = 64 * 1024;

}  // namespace

std::size_t Loop::HeadReadLimit() const {
  return shared_->limits.max_head_bytes + (shared_->logins ? kSmallBody : 0);
}

bool Loop::WaitForSmallBody(Conn& conn, const RequestHead& head) {
  if (!shared_->logins || head.connect || head.body != BodyKind::kLength || head.content_length > kSmallBody) {
    return false;
  }
  if (conn.client_eof || conn.client_in.size() - head.size >= head.content_length) return false;
  // A client that waits for 100 Continue before its body would otherwise
  // wait here until it gives up; a second 100 from the origin is allowed.
  bool expects = std::any_of(head.headers.begin(), head.headers.end(), [](const Header& h) {
    return EqualsIgnoreCase(h.name, "expect") && EqualsIgnoreCase(h.value, "100-continue");
  });
  if (expects && head.minor == 1 && !conn.sent_continue) {
    conn.sent_continue = true;
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    [[maybe_unused]] ssize_t n = ::send(conn.client.get(), kContinue.data(), kContinue.size(), MSG_NOSIGNAL);
  }
  return true;
}

bool Loop::IsLoginHost(const Conn& conn) const {
  if (!shared_->logins) return false;
  const LoginContext& logins = *shared_->logins;
  return !logins.store->Current()->For(conn.host, conn.port).empty() || logins.endpoints->Covers(conn.host, conn.port) ||
         (logins.forge && logins.forge->Covers(conn.host.name + ":" + std::to_string(conn.port))) ||
         (logins.requests && logins.requests->Covers(conn.host.name, conn.port));
}

bool Loop::BodyToScan(const Conn& conn) const {
  const RequestHead& req = conn.request;
  return shared_->logins && !req.connect &&
         (req.body == BodyKind::kChunked || (req.body == BodyKind::kLength && req.content_length > kSmallBody));
}

// A login host's requests are judged by the terminator, which knows which
// stand-ins belong there; every other host gets none.
bool Loop::RefuseStrayStandIn(Conn& conn) {
  if (!shared_->logins || IsLoginHost(conn)) return false;
  auto held = shared_->logins->store->Current();
  const LoginTable& table = *held;
  RequestHead head = conn.request;
  HeadVerdict verdict = ApplyLogins(table, {}, head);
  std::string reason;
  if (verdict.refused) {
    reason = *verdict.refused;
  } else if (const Login* login = table.StandInIn(conn.client_in)) {
    reason = "the stand-in of login '" + login->name + "' is in the body of a request to a host it does not belong to";
  } else {
    return false;
  }
  conn.credential = "credential-to-wrong-host";
  Refuse(conn, 403, "credential-to-wrong-host", reason);
  return true;
}

void Loop::HandOff(Conn& conn) {
  if (!conn.counted_tunnel) {
    if (shared_->tunnels.fetch_add(1) >= shared_->limits.max_tunnels) {
      shared_->tunnels.fetch_sub(1);
      return Refuse(conn, 429, "too-many-tunnels",
                    "the proxy already holds " + std::to_string(shared_->limits.max_tunnels) +
                        " connections (network.max_tunnels)");
    }
  }
  conn.counted_tunnel = false;  // the terminator's thread gives it back
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, conn.client.get(), nullptr);
  if (conn.upstream_watched) epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, conn.upstream.get(), nullptr);
  conn.upstream_watched = false;
  Handoff handoff;
  handoff.client = std::move(conn.client);
  handoff.upstream = std::move(conn.upstream);
  handoff.client_in = std::move(conn.client_in);
  handoff.tls = conn.request.connect;
  handoff.request = conn.request;
  handoff.host = conn.host;
  handoff.port = conn.port;
  handoff.peer = conn.peer;
  if (conn.dialed) handoff.address = conn.dialed->ToString();
  shared_->terminators->Start(std::move(handoff), shared_);
  conn.logged = true;  // the terminator writes this connection's lines
  conn.phase = Conn::Phase::kClosing;
  Teardown(conn);
}

}  // namespace corral::netfilter
