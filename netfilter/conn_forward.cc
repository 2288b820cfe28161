// Absolute-form http:// requests: forward the head in origin form with the
// canonical Host and without hop-by-hop fields, then stream both bodies by
// their framing, so each side sees exactly one message per exchange.
#include <sys/socket.h>
#include <unistd.h>

#include "netfilter/server.h"

namespace corral::netfilter {
namespace {

constexpr std::size_t kHighWater = 256 * 1024;
constexpr int kRoundsPerEvent = 16;
constexpr std::size_t kMaxReplayBody = 64 * 1024;  // a bigger body is not kept to send again

// RFC 9110 9.2.2: a proxy must not retry a non-idempotent request by itself.
bool Idempotent(std::string_view method) {
  for (std::string_view m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
    if (method == m) return true;
  }
  return false;
}

// The proxy speaks HTTP/1.1 to origins whatever the client speaks (RFC 9110
// 2.5); what the client can read is handled on the way back.
std::string UpstreamHead(const Conn& conn) {
  return OriginRequestHead(conn.request, conn.request.path, conn.upstream_key);
}

enum class Io { kOk, kEof, kError };

Io ReadInto(int fd, std::string& buffer, bool& progress) {
  char buf[64 * 1024];
  ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    buffer.append(buf, static_cast<std::size_t>(n));
    progress = true;
    return Io::kOk;
  }
  if (n == 0) return Io::kEof;
  return errno == EAGAIN || errno == EINTR ? Io::kOk : Io::kError;
}

Io WriteFrom(int fd, std::string& buffer, uint64_t& counter, bool& progress) {
  while (!buffer.empty()) {
    ssize_t n = ::send(fd, buffer.data(), buffer.size(), MSG_NOSIGNAL);
    if (n > 0) {
      buffer.erase(0, static_cast<std::size_t>(n));
      counter += static_cast<uint64_t>(n);
      progress = true;
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      return Io::kOk;
    } else {
      return Io::kError;
    }
  }
  return Io::kOk;
}

// Moves the part of `in` that belongs to the current body into `out`; with
// `dechunk`, only the data of a chunked body. Returns false on bad chunked framing.
bool MoveBody(BodyKind kind, std::string& in, std::string& out, uint64_t& left, ChunkedDecoder& chunks,
              bool& done, bool dechunk = false) {
  std::size_t take = 0;
  if (kind == BodyKind::kLength) {
    take = static_cast<std::size_t>(std::min<uint64_t>(left, in.size()));
    left -= take;
    done = left == 0;
  } else if (kind == BodyKind::kChunked) {
    take = chunks.Consume(in, dechunk ? &out : nullptr);
    if (chunks.failed()) return false;
    done = chunks.done();
    if (dechunk) {
      in.erase(0, take);
      return true;
    }
  } else if (kind == BodyKind::kUntilClose) {
    take = in.size();
  } else {
    done = true;
  }
  out.append(in, 0, take);
  in.erase(0, take);
  return true;
}

}  // namespace

void Loop::EnterForward(Conn& conn) {
  conn.phase = Conn::Phase::kForward;
  conn.upstream_out = UpstreamHead(conn);
  if (conn.resend) {
    // The body's framing state carries on; what was forwarded goes out again.
    conn.resend = false;
    conn.upstream_out += conn.replay_body;
  } else {
    conn.request_left = conn.request.content_length;
    conn.request_chunks = ChunkedDecoder{};
    conn.request_done = conn.request.body == BodyKind::kNone;
    conn.replayable = Idempotent(conn.request.method);
    std::string().swap(conn.replay_body);
  }
  conn.bytes_up = 0;
  conn.response_bytes = 0;
  conn.response.reset();
  conn.response_done = false;
  conn.dechunk = false;
  conn.close_after = !conn.request.keep_alive;
  conn.deadline = shared_->clock->Now() + shared_->limits.idle_timeout;
  PumpForward(conn);
  if (!conn.dead) Watch(conn);
}

void Loop::PumpForward(Conn& conn) {
  const std::size_t max_head = shared_->limits.max_head_bytes;
  for (int round = 0; round < kRoundsPerEvent; ++round) {
    bool progress = false;
    // Request body, by its framing; pipelined bytes after it stay in client_in.
    if (!conn.request_done && conn.upstream_out.size() < kHighWater) {
      if (conn.client_in.empty() && !conn.client_eof) {
        Io io = ReadInto(conn.client.get(), conn.client_in, progress);
        if (io == Io::kError) return Teardown(conn);
        if (io == Io::kEof) conn.client_eof = true;
      }
      const std::size_t before = conn.upstream_out.size();
      if (!MoveBody(conn.request.body, conn.client_in, conn.upstream_out, conn.request_left,
                    conn.request_chunks, conn.request_done)) {
        return Refuse(conn, 400, "bad-request", "malformed chunked request body");
      }
      if (conn.replayable) {
        conn.replay_body.append(conn.upstream_out, before);
        if (conn.replay_body.size() > kMaxReplayBody) {
          conn.replayable = false;
          std::string().swap(conn.replay_body);
        }
      }
      if (!conn.request_done && conn.client_in.empty() && conn.client_eof) return Teardown(conn);
    }
    if (WriteFrom(conn.upstream.get(), conn.upstream_out, conn.bytes_up, progress) == Io::kError) {
      if (RetryOnFreshConnection(conn)) return;
      return Refuse(conn, 502, "bad-gateway", "the origin closed the connection while receiving the request");
    }
    // Response.
    if (!conn.response_done && conn.client_out.size() < kHighWater && !conn.upstream_eof) {
      const std::size_t before = conn.upstream_in.size();
      Io io = ReadInto(conn.upstream.get(), conn.upstream_in, progress);
      conn.response_bytes += conn.upstream_in.size() - before;
      if (io == Io::kError && RetryOnFreshConnection(conn)) return;
      if (io == Io::kError) return Refuse(conn, 502, "bad-gateway", "the origin reset the connection");
      if (io == Io::kEof) conn.upstream_eof = progress = true;
    }
    while (!conn.response) {
      auto parsed = ParseResponse(conn.upstream_in, max_head, conn.request.method);
      if (parsed.state == ParseState::kError) return Refuse(conn, 502, "bad-gateway", parsed.error.reason);
      if (parsed.state == ParseState::kIncomplete) {
        if (conn.upstream_eof && RetryOnFreshConnection(conn)) return;
        if (conn.upstream_eof) return Refuse(conn, 502, "bad-gateway", "the origin closed without a response");
        break;
      }
      ResponseHead& res = parsed.head;
      conn.upstream_in.erase(0, res.size);
      if (res.status == 101) return Refuse(conn, 502, "bad-gateway", "the origin switched protocols unasked");
      if (res.status < 200) {
        // RFC 9110 15.2: no 1xx to an HTTP/1.0 client.
        if (conn.request.minor == 1) conn.client_out += ClientResponseHead(res, false, 1, true, false);
        continue;
      }
      conn.status = res.status;
      if (res.body == BodyKind::kUntilClose) conn.close_after = true;
      // An HTTP/1.0 client cannot read chunked: it gets the data, and the
      // close marks the end.
      conn.dechunk = res.body == BodyKind::kChunked && conn.request.minor == 0;
      if (conn.dechunk) conn.close_after = true;
      conn.client_out += ClientResponseHead(res, conn.close_after, conn.request.minor, false, conn.dechunk);
      conn.response_left = res.content_length;
      conn.response_chunks = ChunkedDecoder{};
      conn.response_done = res.body == BodyKind::kNone;
      conn.response = std::move(res);
      progress = true;
    }
    if (conn.response && !conn.response_done) {
      if (!MoveBody(conn.response->body, conn.upstream_in, conn.client_out, conn.response_left,
                    conn.response_chunks, conn.response_done, conn.dechunk)) {
        LogDecision(conn, "error", "malformed chunked response from the origin");
        return Teardown(conn);
      }
      if (conn.response->body == BodyKind::kUntilClose && conn.upstream_eof) conn.response_done = true;
      if (!conn.response_done && conn.upstream_eof) {
        LogDecision(conn, "error", "the origin closed mid-response");
        return Teardown(conn);
      }
    }
    if (WriteFrom(conn.client.get(), conn.client_out, conn.bytes_down, progress) == Io::kError) {
      return Teardown(conn);
    }
    if (conn.response_done && conn.client_out.empty()) return FinishExchange(conn);
    if (!progress) break;
    conn.deadline = shared_->clock->Now() + shared_->limits.idle_timeout;
  }
}

// The origin may close a kept-alive connection while it is idle, and that
// close can cross our next request in flight. When not a byte of a response
// came back, the origin never answered: send the request once more on a
// fresh connection, if it is safe to replay.
bool Loop::RetryOnFreshConnection(Conn& conn) {
  if (!conn.reused_upstream || conn.retried || !conn.replayable || conn.response_bytes > 0) return false;
  conn.retried = true;
  conn.reused_upstream = false;
  conn.resend = true;
  CloseUpstream(conn);
  EnterResolving(conn);
  return true;
}

void Loop::FinishExchange(Conn& conn) {
  LogDecision(conn, "allow",
              conn.retried ? "forwarded, sent again on a fresh connection (the kept one was stale)" : "forwarded");
  bool reusable = conn.request_done && conn.response && conn.response->keep_alive &&
                  conn.response->body != BodyKind::kUntilClose && conn.upstream_in.empty() &&
                  !conn.upstream_eof && !conn.upstream_hup;
  if (!reusable) CloseUpstream(conn);
  // An origin that answered before the request body ended leaves the client
  // mid-message: there is no next request to read.
  if (conn.close_after || !conn.request_done) return EnterClosing(conn);
  EnterHead(conn);
  if (!conn.dead) Watch(conn);
}

}  // namespace corral::netfilter
