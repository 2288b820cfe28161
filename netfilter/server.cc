// The event loop: accept, dispatch epoll events by phase, sweep deadlines.
#include "netfilter/server.h"

#include <arpa/inet.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <netinet/tcp.h>

#include <cerrno>
#include <cstring>

namespace corral::netfilter {
namespace {

constexpr uint64_t kListenerTag = 0;
constexpr uint64_t kInboxTag = 1;
constexpr std::size_t kHighWater = 256 * 1024;  // stop reading a side past this
constexpr auto kSweepEvery = std::chrono::milliseconds(100);

uint64_t Tag(const Conn& conn, bool upstream) { return (conn.id << 1) | (upstream ? 1 : 0); }

std::string PeerName(const sockaddr_storage& ss) {
  auto ip = FromSockAddr(reinterpret_cast<const sockaddr*>(&ss));
  if (!ip) return "unix";
  uint16_t port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<const sockaddr_in*>(&ss)->sin_port
                                                : reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_port);
  return (ip->v6 ? "[" + ip->ToString() + "]" : ip->ToString()) + ":" + std::to_string(port);
}

// What each side of a connection waits for in its phase.
std::pair<uint32_t, uint32_t> Interest(const Conn& c) {
  using P = Conn::Phase;
  uint32_t client = 0, upstream = 0;
  switch (c.phase) {
    case P::kHead:
      client = EPOLLIN;
      upstream = EPOLLIN;  // an idle kept-alive origin: notice when it closes
      break;
    case P::kResolving:
      break;
    case P::kConnecting:
      upstream = EPOLLOUT;
      break;
    case P::kTunnelPeek:
    case P::kTunnel: {
      bool peeking = c.phase == P::kTunnelPeek;
      if (peeking || (c.upstream_out.empty() && c.to_upstream.pending == 0 && !c.client_eof)) client |= EPOLLIN;
      if (!c.client_out.empty() || c.to_client.pending) client |= EPOLLOUT;
      if (c.client_out.empty() && c.to_client.pending == 0 && !c.upstream_eof) upstream |= EPOLLIN;
      if (!c.upstream_out.empty() || c.to_upstream.pending) upstream |= EPOLLOUT;
      break;
    }
    case P::kForward:
      if (!c.request_done && c.upstream_out.size() < kHighWater) client |= EPOLLIN;
      if (!c.client_out.empty()) client |= EPOLLOUT;
      if (!c.response_done && c.client_out.size() < kHighWater) upstream |= EPOLLIN;
      if (!c.upstream_out.empty()) upstream |= EPOLLOUT;
      break;
    case P::kClosing:
      client = c.client_out.empty() ? EPOLLIN : EPOLLOUT;
      break;
  }
  return {client, upstream};
}

}  // namespace


void Loop::Inbox::Post(std::function<void()> task) {
  std::lock_guard lock(mutex);
  if (closed) return;
  tasks.push_back(std::move(task));
  uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(event.get(), &one, sizeof one);
}

Loop::Loop(std::shared_ptr<Shared> shared, int listen_fd)
    : shared_(std::move(shared)), listen_fd_(listen_fd), inbox_(std::make_shared<Inbox>()) {}

Loop::~Loop() {
  for (auto& [id, conn] : conns_) {
    if (conn->counted_tunnel) shared_->tunnels.fetch_sub(1);
  }
}

Result<void> Loop::Init() {
  epoll_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return Error::FromErrno("epoll_create1");
  inbox_->event = UniqueFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!inbox_->event.valid()) return Error::FromErrno("eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kInboxTag;
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, inbox_->event.get(), &ev) != 0) {
    return Error::FromErrno("epoll_ctl(eventfd)");
  }
  // EPOLLEXCLUSIVE: one loop wakes per new connection, not all of them.
  ev.events = EPOLLIN | EPOLLEXCLUSIVE;
  ev.data.u64 = kListenerTag;
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, listen_fd_, &ev) != 0) {
    return Error::FromErrno("epoll_ctl(listener)");
  }
  return Ok();
}

void Loop::Stop() {
  inbox_->Post([this] { running_ = false; });
}

void Loop::Run() {
  TimePoint next_sweep = shared_->clock->Now();
  epoll_event events[128];
  while (running_) {
    int n = epoll_wait(epoll_.get(), events, 128, static_cast<int>(kSweepEvery.count()));
    for (int i = 0; i < n && running_; ++i) HandleEvent(events[i].data.u64, events[i].events);
    for (uint64_t id : dead_) conns_.erase(id);
    dead_.clear();
    TimePoint now = shared_->clock->Now();
    if (now >= next_sweep) {
      Sweep();
      next_sweep = now + kSweepEvery;
    }
  }
  {
    std::lock_guard lock(inbox_->mutex);
    inbox_->closed = true;
    inbox_->tasks.clear();
  }
  for (auto& [id, conn] : conns_) {
    if (!conn->dead) Teardown(*conn);
  }
  conns_.clear();
}

void Loop::DrainInbox() {
  uint64_t count;
  [[maybe_unused]] ssize_t n = ::read(inbox_->event.get(), &count, sizeof count);
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard lock(inbox_->mutex);
    tasks.swap(inbox_->tasks);
  }
  for (auto& task : tasks) task();
}

void Loop::Accept() {
  for (int i = 0; i < 64; ++i) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop accepting for a moment instead of spinning.
        log::warn(std::string("proxy: cannot accept a connection: ") + std::strerror(errno) +
                  "; pausing new connections for 100 ms");
        epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, listen_fd_, nullptr);
        listening_ = false;
        listen_resume_ = shared_->clock->Now() + std::chrono::milliseconds(100);
      }
      return;
    }
    auto conn = std::make_unique<Conn>();
    conn->id = next_id_++;
    conn->client = UniqueFd(fd);
    conn->peer = PeerName(ss);
    if (ss.ss_family != AF_UNIX) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = Tag(*conn, false);
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &ev) != 0) continue;
    conn->client_events = EPOLLIN;
    Conn& ref = *conn;
    conns_.emplace(conn->id, std::move(conn));
    EnterHead(ref);
  }
}

void Loop::Sweep() {
  TimePoint now = shared_->clock->Now();
  if (!listening_ && now >= listen_resume_) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLEXCLUSIVE;
    ev.data.u64 = kListenerTag;
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, listen_fd_, &ev) == 0) listening_ = true;
  }
  for (auto& [id, conn] : conns_) {
    if (!conn->dead && now >= conn->deadline) OnTimeout(*conn);
  }
  for (uint64_t id : dead_) conns_.erase(id);
  dead_.clear();
}

void Loop::HandleEvent(uint64_t tag, uint32_t events) {
  if (tag == kListenerTag) return Accept();
  if (tag == kInboxTag) return DrainInbox();
  auto it = conns_.find(tag >> 1);
  if (it == conns_.end() || it->second->dead) return;
  Conn& conn = *it->second;
  bool upstream = tag & 1;
  using P = Conn::Phase;
  if (!upstream) {
    if (events & EPOLLERR) return Teardown(conn);
    switch (conn.phase) {
      case P::kHead: ReadHead(conn); break;
      case P::kTunnelPeek:
      case P::kTunnel: PumpTunnel(conn); break;
      case P::kForward: PumpForward(conn); break;
      case P::kClosing: FlushClosing(conn); break;
      case P::kResolving:
      case P::kConnecting: break;
    }
    // A client that hung up completely can receive nothing more.
    if (!conn.dead && (events & EPOLLHUP)) Teardown(conn);
  } else {
    if (events & (EPOLLERR | EPOLLHUP)) conn.upstream_hup = true;
    switch (conn.phase) {
      case P::kConnecting: OnConnected(conn); break;
      case P::kTunnelPeek:
      case P::kTunnel: PumpTunnel(conn); break;
      case P::kForward: PumpForward(conn); break;
      default: CloseUpstream(conn); break;  // an idle origin closed or sent junk
    }
  }
  if (!conn.dead) Watch(conn);
}

void Loop::Watch(Conn& conn) {
  auto [client, upstream] = Interest(conn);
  if (client != conn.client_events) {
    epoll_event ev{};
    ev.events = client;
    ev.data.u64 = Tag(conn, false);
    epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, conn.client.get(), &ev);
    conn.client_events = client;
  }
  bool want_upstream = conn.upstream.valid() && !conn.upstream_hup;
  if (!want_upstream) {
    if (conn.upstream_watched && conn.upstream.valid()) {
      epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, conn.upstream.get(), nullptr);
    }
    conn.upstream_watched = false;
    return;
  }
  if (!conn.upstream_watched || upstream != conn.upstream_events) {
    epoll_event ev{};
    ev.events = upstream;
    ev.data.u64 = Tag(conn, true);
    epoll_ctl(epoll_.get(), conn.upstream_watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, conn.upstream.get(), &ev);
    conn.upstream_watched = true;
    conn.upstream_events = upstream;
  }
}

void Loop::CloseUpstream(Conn& conn) {
  if (conn.upstream_watched) epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, conn.upstream.get(), nullptr);
  conn.upstream.Reset();
  conn.upstream_watched = false;
  conn.upstream_hup = false;
  conn.upstream_eof = false;
  conn.upstream_in.clear();
  conn.upstream_out.clear();
  conn.upstream_key.clear();
  conn.to_upstream.Reset();
  conn.to_client.Reset();
}

void Loop::Teardown(Conn& conn) {
  if (conn.dead) return;
  using P = Conn::Phase;
  if (!conn.logged && (conn.phase == P::kTunnel || conn.phase == P::kTunnelPeek)) {
    LogDecision(conn, "allow", "tunnel closed");
  } else if (!conn.logged && conn.phase == P::kForward) {
    LogDecision(conn, "allow", "connection closed before the exchange finished");
  }
  if (conn.counted_tunnel) {
    shared_->tunnels.fetch_sub(1);
    conn.counted_tunnel = false;
  }
  CloseUpstream(conn);
  epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, conn.client.get(), nullptr);
  conn.client.Reset();
  conn.dead = true;
  dead_.push_back(conn.id);
}

void Loop::OnTimeout(Conn& conn) {
  using P = Conn::Phase;
  switch (conn.phase) {
    case P::kHead:
      // Silence between keep-alive requests is not an error; a half-sent head is.
      if (conn.client_in.empty()) return Teardown(conn);
      return Refuse(conn, 408, "head-timeout", "the request head did not arrive within the time limit");
    case P::kResolving:
    case P::kConnecting:
      return Refuse(conn, 504, "connect-timeout",
                    "no connection to " + conn.host.name + ":" + std::to_string(conn.port) +
                        " within the connect timeout");
    case P::kTunnelPeek:
    case P::kTunnel:
    case P::kForward:
    case P::kClosing:
      return Teardown(conn);
  }
}

}  // namespace corral::netfilter
