// CONNECT tunnels: answer 200, peek at the client's first flight for a TLS
// ClientHello whose server name must be the CONNECT host, then move bytes
// both ways with splice(2) (no copy through user space).
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netfilter/server.h"
#include "netfilter/tls_peek.h"

namespace corral::netfilter {
namespace {

constexpr std::size_t kSpliceChunk = 256 * 1024;
constexpr int kRoundsPerEvent = 16;  // then yield so one busy tunnel cannot starve the loop

enum class Io { kOk, kError };

Io Flush(int fd, std::string& buffer, uint64_t* counter, bool& progress) {
  while (!buffer.empty()) {
    ssize_t n = ::send(fd, buffer.data(), buffer.size(), MSG_NOSIGNAL);
    if (n > 0) {
      buffer.erase(0, static_cast<std::size_t>(n));
      if (counter) *counter += static_cast<uint64_t>(n);
      progress = true;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      return Io::kOk;
    } else {
      return Io::kError;
    }
  }
  std::string().swap(buffer);  // an idle tunnel keeps no buffer
  return Io::kOk;
}

bool MakePipe(Pipe& pipe) {
  int fds[2];
  if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return false;
  pipe.read_end = UniqueFd(fds[0]);
  pipe.write_end = UniqueFd(fds[1]);
  fcntl(fds[1], F_SETPIPE_SZ, static_cast<int>(kSpliceChunk));  // best effort
  return true;
}

// One direction: drain the pipe into `to`, then refill it from `from`.
Io Splice(int from, int to, Pipe& pipe, bool& from_eof, uint64_t& counter, bool& progress) {
  if (pipe.pending > 0) {
    ssize_t n = splice(pipe.read_end.get(), nullptr, to, nullptr, pipe.pending,
                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n > 0) {
      pipe.pending -= static_cast<std::size_t>(n);
      counter += static_cast<uint64_t>(n);
      progress = true;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      return Io::kOk;
    } else {
      return Io::kError;
    }
  }
  if (pipe.pending > 0 || from_eof) return Io::kOk;
  if (!pipe.read_end.valid() && !MakePipe(pipe)) return Io::kError;
  ssize_t n = splice(from, nullptr, pipe.write_end.get(), nullptr, kSpliceChunk,
                     SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    pipe.pending += static_cast<std::size_t>(n);
    progress = true;
  } else if (n == 0) {
    from_eof = true;
    ::shutdown(to, SHUT_WR);
    progress = true;
  } else if (errno != EAGAIN && errno != EINTR) {
    return Io::kError;
  }
  return Io::kOk;
}

}  // namespace

void Loop::EnterTunnel(Conn& conn) {
  conn.phase = Conn::Phase::kTunnelPeek;
  conn.status = 200;
  conn.client_out = "HTTP/1.1 200 Connection established\r\n\r\n";
  conn.deadline = shared_->clock->Now() + shared_->limits.idle_timeout;
  conn.peek_started = false;
  PumpTunnel(conn);
}

void Loop::PumpTunnel(Conn& conn) {
  const int client = conn.client.get(), upstream = conn.upstream.get();
  for (int round = 0; round < kRoundsPerEvent; ++round) {
    bool progress = false;
    if (Flush(client, conn.client_out, nullptr, progress) == Io::kError) return Teardown(conn);
    if (conn.phase == Conn::Phase::kTunnelPeek) {
      // The first flight from the client is read, not spliced, to see its ClientHello.
      char buf[4096];
      while (!conn.client_eof && conn.client_in.size() < shared_->limits.max_client_hello_bytes) {
        ssize_t n = ::read(client, buf, sizeof buf);
        if (n > 0) conn.client_in.append(buf, static_cast<std::size_t>(n)), progress = true;
        else if (n == 0) conn.client_eof = true;
        else if (errno == EAGAIN || errno == EINTR) break;
        else return Teardown(conn);
      }
      HelloPeek peek = PeekClientHello(conn.client_in);
      if (peek.state == HelloState::kNeedMore) {
        if (conn.client_in.size() >= shared_->limits.max_client_hello_bytes) {
          conn.status = 403;
          LogDecision(conn, "deny", "TLS ClientHello larger than the peek limit");
          return Teardown(conn);
        }
        if (conn.client_eof) return Teardown(conn);
        if (!conn.client_in.empty() && !conn.peek_started) {
          conn.peek_started = true;  // a ClientHello must finish within the head time
          conn.deadline = shared_->clock->Now() + shared_->limits.head_timeout;
        }
      } else if (peek.state == HelloState::kMalformed) {
        conn.status = 403;
        LogDecision(conn, "deny", "malformed TLS ClientHello: " + peek.reason);
        return Teardown(conn);
      } else {
        if (peek.state == HelloState::kSni) {
          auto sni = Canonicalize(peek.server_name);
          if (!sni || sni->name != conn.host.name) {
            conn.status = 403;
            LogDecision(conn, "deny", "sni-mismatch: TLS server name '" + peek.server_name +
                                          "' differs from the CONNECT host " + conn.host.name);
            return Teardown(conn);
          }
        }
        conn.upstream_out = std::move(conn.client_in);
        std::string().swap(conn.client_in);
        conn.phase = Conn::Phase::kTunnel;
        progress = true;
      }
    }
    if (conn.client_out.empty() &&
        Splice(upstream, client, conn.to_client, conn.upstream_eof, conn.bytes_down, progress) == Io::kError) {
      return Teardown(conn);
    }
    if (conn.phase == Conn::Phase::kTunnel) {
      if (Flush(upstream, conn.upstream_out, &conn.bytes_up, progress) == Io::kError) return Teardown(conn);
      if (conn.upstream_out.empty()) {
        if (conn.client_eof && conn.to_upstream.pending == 0 && !conn.to_upstream.read_end.valid()) {
          ::shutdown(upstream, SHUT_WR);  // the client's FIN came during the peek
        }
        if (Splice(client, upstream, conn.to_upstream, conn.client_eof, conn.bytes_up, progress) == Io::kError) {
          return Teardown(conn);
        }
      }
    }
    if (conn.client_eof && conn.upstream_eof && conn.to_client.pending == 0 && conn.to_upstream.pending == 0 &&
        conn.client_out.empty() && conn.upstream_out.empty()) {
      return Teardown(conn);
    }
    if (!progress) break;
    if (!conn.peek_started || conn.phase == Conn::Phase::kTunnel) {
      conn.deadline = shared_->clock->Now() + shared_->limits.idle_timeout;
    }
  }
}

}  // namespace corral::netfilter
