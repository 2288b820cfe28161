// Resolving the canonical host, checking every answer, and dialing exactly
// the addresses that passed, in order, within the connect deadline.
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "netfilter/server.h"

namespace corral::netfilter {
namespace {

std::string Key(const Conn& conn) {
  return conn.port == 80 ? conn.host.name : conn.host.name + ":" + std::to_string(conn.port);
}

// The proxy's own listener, however the address is spelled: its IPv4-mapped
// IPv6 form, or any loopback (or unspecified) address when it listens on
// every address. Dialing it would loop through the proxy until the tunnel cap.
bool IsSelf(const Shared& shared, uint16_t port, const IpAddress& address) {
  if (port != shared.self_port) return false;
  IpAddress plain = EmbeddedIpv4(address).value_or(address);
  const auto& self = shared.self_addresses;
  if (std::find(self.begin(), self.end(), plain) != self.end()) return true;
  auto unspecified = [](const IpAddress& a) { return a.bytes == std::array<uint8_t, 16>{}; };
  bool local = unspecified(plain) || (!plain.v6 && plain.bytes[0] == 127) ||
               (plain.v6 && plain.bytes == std::array<uint8_t, 16>{0, 0, 0, 0, 0, 0, 0, 0,
                                                                   0, 0, 0, 0, 0, 0, 0, 1});
  return local && std::any_of(self.begin(), self.end(), unspecified);
}

}  // namespace

void Loop::EnterResolving(Conn& conn) {
  conn.phase = Conn::Phase::kResolving;
  conn.connect_deadline = shared_->clock->Now() + shared_->limits.connect_timeout;
  conn.deadline = conn.connect_deadline;
  Watch(conn);
  if (conn.host.ip) return OnResolved(conn.id, std::vector<IpAddress>{*conn.host.ip});
  if (auto it = shared_->hosts.find(conn.host.name); it != shared_->hosts.end()) {
    return OnResolved(conn.id, it->second);
  }
  auto inbox = inbox_;
  uint64_t id = conn.id;
  shared_->resolver->Resolve(conn.host.name, [this, inbox, id](Result<std::vector<IpAddress>> answer) {
    inbox->Post([this, id, answer = std::move(answer)]() mutable { OnResolved(id, std::move(answer)); });
  });
}

void Loop::OnResolved(uint64_t id, Result<std::vector<IpAddress>> answer) {
  auto it = conns_.find(id);
  if (it == conns_.end() || it->second->dead || it->second->phase != Conn::Phase::kResolving) return;
  Conn& conn = *it->second;
  if (!answer) return Refuse(conn, 502, "resolve-failed", answer.error().message);
  if (answer->empty()) return Refuse(conn, 502, "resolve-failed", "no addresses for " + conn.host.name);
  // Every answer must pass, so a name cannot mix a public address with a
  // private one and win on a retry (DNS rebinding).
  auto rules = shared_->CurrentRules();
  for (const IpAddress& address : *answer) {
    if (IsSelf(*shared_, conn.port, address)) {
      conn.dialed = address;
      return Refuse(conn, 403, "self", "address " + address.ToString() + " is the proxy itself");
    }
    if (auto refused = CheckAddress(*rules, address)) {
      conn.dialed = address;
      std::string why = conn.host.ip ? refused->reason
                                     : conn.host.name + " resolves to " + address.ToString() + ", which is " +
                                           std::string(SpecialAddressClass(address).value_or("refused"));
      return Refuse(conn, 403, refused->error, why, refused->hint);
    }
  }
  conn.addresses = std::move(*answer);
  conn.next_address = 0;
  DialNext(conn);
  if (!conn.dead) Watch(conn);
}

void Loop::DialNext(Conn& conn) {
  std::string last_error = "no address";
  while (conn.next_address < conn.addresses.size()) {
    const IpAddress& address = conn.addresses[conn.next_address++];
    CloseUpstream(conn);
    conn.dialed = address;
    int fd = ::socket(address.v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    conn.upstream = UniqueFd(fd);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    SockAddr sa = ToSockAddr(address, conn.port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&sa.storage), sa.length) == 0) return OnUpstreamReady(conn);
    if (errno == EINPROGRESS) {
      conn.phase = Conn::Phase::kConnecting;
      conn.deadline = conn.connect_deadline;
      return;
    }
    last_error = std::strerror(errno);
  }
  CloseUpstream(conn);
  Refuse(conn, 502, "connect-failed",
         "cannot connect to " + conn.host.name + ":" + std::to_string(conn.port) + ": " + last_error);
}

void Loop::OnConnected(Conn& conn) {
  int error = 0;
  socklen_t len = sizeof error;
  if (getsockopt(conn.upstream.get(), SOL_SOCKET, SO_ERROR, &error, &len) != 0) error = errno;
  if (error == 0 && conn.upstream_hup) error = ECONNREFUSED;
  if (error != 0) {
    CloseUpstream(conn);
    if (conn.next_address < conn.addresses.size()) return DialNext(conn);
    return Refuse(conn, 502, "connect-failed",
                  "cannot connect to " + conn.host.name + ":" + std::to_string(conn.port) + ": " +
                      std::strerror(error));
  }
  OnUpstreamReady(conn);
}

void Loop::OnUpstreamReady(Conn& conn) {
  conn.upstream_address = conn.dialed;
  conn.upstream_key = Key(conn);
  if (IsLoginHost(conn) || BodyToScan(conn)) return HandOff(conn);
  if (conn.request.connect) return EnterTunnel(conn);
  EnterForward(conn);
}

}  // namespace corral::netfilter
