// The proxy's moving parts, private to netfilter/: state shared read-only by
// every loop, one connection's state, and the event loop that drives them.
#pragma once

#include <sys/epoll.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "netfilter/clock.h"
#include "netfilter/netfilter.h"
#include "netfilter/http/http.h"
#include "netfilter/resolver.h"
#include "netfilter/rules/rules.h"

namespace corral::netfilter {

struct LoginContext;
class Terminators;

// Everything the loops share. Read-only after Start except `rules` (swapped
// whole under the mutex by Reload) and the counters.
struct Shared {
  Limits limits;
  std::string token;
  std::function<void(std::string_view)> log;
  HostsTable hosts;
  std::shared_ptr<Resolver> resolver;
  std::shared_ptr<Clock> clock;
  // Where the proxy listens, so it never dials itself.
  std::vector<IpAddress> self_addresses;
  uint16_t self_port = 0;

  // Logins (null when none) and the threads that serve their hosts' connections.
  std::shared_ptr<LoginContext> logins;
  std::shared_ptr<Terminators> terminators;

  std::atomic<int> tunnels{0};  // terminated connections count as tunnels
  std::atomic<std::size_t> relay_bytes{0};  // every tunnel's relay buffers together

  std::shared_ptr<const Rules> CurrentRules() const {
    std::lock_guard lock(rules_mutex);
    return rules;
  }
  void SetRules(std::shared_ptr<const Rules> next) {
    std::lock_guard lock(rules_mutex);
    rules = std::move(next);
  }

 private:
  mutable std::mutex rules_mutex;
  std::shared_ptr<const Rules> rules;
};

// One direction of a tunnel: bytes read from one side, not yet written to
// the other. The buffer exists only while the direction is busy (an idle
// tunnel holds none); its size grows while reads fill it, up to 4 MiB.
struct Relay {
  std::unique_ptr<char[]> data;
  std::size_t capacity = 0;  // of data
  std::size_t size = 0;      // what the next buffer is made with
  std::size_t start = 0, pending = 0;
  bool eof_sent = false;    // the other side got our FIN
  std::atomic<std::size_t>* held = nullptr;  // Shared::relay_bytes, counting `capacity`

  Relay() = default;
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;
  ~Relay() { Drop(); }
  void Drop() {  // the buffer, not the state
    if (held) *held -= capacity;
    data.reset();
    capacity = 0;
  }
  void Reset() {
    Drop();
    size = start = pending = 0;
    eof_sent = false;
  }
};

// One client connection, from accept to teardown. Phases change only
// through the Loop's Enter* functions; Teardown is the one way out.
struct Conn {
  enum class Phase { kHead, kResolving, kConnecting, kTunnelPeek, kTunnel, kForward, kClosing };

  uint64_t id = 0;
  Phase phase = Phase::kHead;
  UniqueFd client;
  UniqueFd upstream;
  uint32_t client_events = 0, upstream_events = 0;  // registered epoll masks
  TimePoint deadline;
  std::string peer;  // client address for the log

  std::string client_in, client_out;      // bytes from / to the client
  std::string upstream_in, upstream_out;  // bytes from / to the origin
  bool client_eof = false, upstream_eof = false;

  // The request in hand.
  RequestHead request;
  CanonicalHost host;
  uint16_t port = 0;
  std::vector<IpAddress> addresses;  // checked answers, dialed in order
  std::size_t next_address = 0;
  std::optional<IpAddress> dialed;            // this exchange's origin address
  std::optional<IpAddress> upstream_address;  // the kept upstream socket's peer
  TimePoint connect_deadline;
  TimePoint started;
  bool counted_tunnel = false;
  uint64_t bytes_up = 0, bytes_down = 0;

  // Tunnel.
  Relay to_upstream, to_client;
  bool peek_started = false;

  // Forwarding: the upstream connection is kept for the next request to the
  // same host and port.
  std::string upstream_key;  // "host:port" the upstream socket talks to
  bool request_done = false, response_done = false;
  uint64_t request_left = 0, response_left = 0;
  ChunkedDecoder request_chunks, response_chunks;
  std::optional<ResponseHead> response;
  int status = 0;
  bool close_after = false;
  bool dechunk = false;  // HTTP/1.0 client, chunked response: send the data alone, then close

  // A kept-alive origin connection may turn out stale (closed by the origin
  // while idle); a request safe to replay is then sent once more on a fresh one.
  bool reused_upstream = false;  // this exchange went out on a kept connection
  bool resend = false;           // EnterForward sends the request again
  bool retried = false;          // this exchange was sent again once
  bool replayable = false;       // idempotent, and every body byte sent is in replay_body
  std::string replay_body;       // request body bytes forwarded so far (bounded)
  uint64_t response_bytes = 0;   // bytes read from the origin this exchange

  // This exchange's stand-in refusal, for the log: "credential-to-wrong-host".
  std::optional<std::string> credential;
  bool sent_continue = false;  // this request got the proxy's own 100 Continue

  bool dead = false;
  bool logged = false;       // this exchange's decision line is written
  bool client_shut = false;  // we sent FIN to the client (closing)
  bool upstream_hup = false;       // upstream hung up: read it without epoll
  bool upstream_watched = false;   // upstream is registered with epoll
};

class Loop {
 public:
  Loop(std::shared_ptr<Shared> shared, int listen_fd);
  ~Loop();
  Result<void> Init();
  void Run();   // until Stop
  void Stop();  // from any thread

  // Tasks for the loop's thread (resolver answers); dropped once it stopped.
  struct Inbox {
    std::mutex mutex;
    std::vector<std::function<void()>> tasks;
    UniqueFd event;
    bool closed = false;
    void Post(std::function<void()> task);
  };
  std::shared_ptr<Inbox> inbox() const { return inbox_; }

 private:
  // server.cc: the loop itself.
  void Accept();
  void Sweep();
  void HandleEvent(uint64_t tag, uint32_t events);
  void DrainInbox();
  void Watch(Conn& conn);       // syncs epoll interest with the phase
  void Teardown(Conn& conn);    // the one way a connection ends
  void CloseUpstream(Conn& conn);
  void OnTimeout(Conn& conn);

  // conn_head.cc: reading and judging a request head.
  void ReadHead(Conn& conn);
  void Dispatch(Conn& conn);
  void EnterHead(Conn& conn);
  void Refuse(Conn& conn, int status, std::string_view code, std::string_view reason,
              std::string_view hint = {});
  void EnterClosing(Conn& conn);
  void FlushClosing(Conn& conn);
  void LogDecision(const Conn& conn, std::string_view decision, std::string_view reason);

  // conn_dial.cc: resolving, checking every answer, connecting.
  void EnterResolving(Conn& conn);
  void OnResolved(uint64_t id, Result<std::vector<IpAddress>> answer);
  void DialNext(Conn& conn);
  void OnConnected(Conn& conn);
  void OnUpstreamReady(Conn& conn);

  // conn_login.cc: stand-ins on their way to other hosts; handing login
  // hosts' connections to the terminator.
  bool RefuseStrayStandIn(Conn& conn);
  bool WaitForSmallBody(Conn& conn, const RequestHead& head);
  std::size_t HeadReadLimit() const;
  bool IsLoginHost(const Conn& conn) const;
  // A plain request whose body the loop did not read whole (chunked, or
  // over 64 KiB): the terminator scans it for stand-ins as it goes.
  bool BodyToScan(const Conn& conn) const;
  void HandOff(Conn& conn);

  // conn_tunnel.cc: CONNECT tunnels.
  void EnterTunnel(Conn& conn);
  void PumpTunnel(Conn& conn);

  // conn_forward.cc: absolute-form http:// requests.
  void EnterForward(Conn& conn);
  void PumpForward(Conn& conn);
  bool RetryOnFreshConnection(Conn& conn);
  void FinishExchange(Conn& conn);

  std::shared_ptr<Shared> shared_;
  int listen_fd_;
  bool listening_ = true;
  TimePoint listen_resume_;
  UniqueFd epoll_;
  std::shared_ptr<Inbox> inbox_;
  uint64_t next_id_ = 16;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
  std::vector<uint64_t> dead_;
  bool running_ = true;
};

}  // namespace corral::netfilter
