#include "netfilter/origin_probe.h"

#include <algorithm>

namespace corral::netfilter {
namespace {

bool ReadMore(Stream& from, std::string& into) {
  char buf[16 * 1024];
  long n = from.Read(buf, sizeof buf);
  if (n <= 0) return false;
  into.append(buf, static_cast<std::size_t>(n));
  return true;
}

// Only what says who asks goes with the proxy's own request.
bool KeptHeader(const Header& h) {
  return EqualsIgnoreCase(h.name, "authorization") || EqualsIgnoreCase(h.name, "user-agent");
}

}  // namespace

Result<ProbeAnswer> ProbeOrigin(Stream& origin, std::string& origin_in, const RequestHead& like,
                                std::string_view host, std::string_view method, std::string_view target,
                                std::string_view content_type, std::string_view body, std::size_t max_head,
                                std::size_t max_body) {
  std::string head = std::string(method) + " " + std::string(target) + " HTTP/1.1\r\nHost: " + std::string(host) +
                     "\r\n";
  for (const Header& h : like.headers) {
    if (KeptHeader(h)) head += h.name + ": " + h.value + "\r\n";
  }
  if (!content_type.empty()) head += "Content-Type: " + std::string(content_type) + "\r\n";
  if (!body.empty() || method == "POST") head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  head += "Accept-Encoding: identity\r\n\r\n";
  if (!origin.Write(head + std::string(body))) return Error("the origin closed the connection");
  ProbeAnswer answer;
  while (true) {
    auto parsed = ParseResponse(origin_in, max_head, method);
    if (parsed.state == ParseState::kError) return Error("the origin's answer is malformed: " + parsed.error.reason);
    if (parsed.state == ParseState::kIncomplete) {
      if (!ReadMore(origin, origin_in)) return Error("the origin closed without an answer");
      continue;
    }
    ResponseHead res = std::move(parsed.head);
    origin_in.erase(0, res.size);
    if (res.status < 200) continue;  // 100 Continue and the like
    answer.status = res.status;
    answer.keep_alive = res.keep_alive && res.body != BodyKind::kUntilClose;
    if (std::any_of(res.headers.begin(), res.headers.end(), [](const Header& h) {
          return EqualsIgnoreCase(h.name, "content-encoding") && !EqualsIgnoreCase(h.value, "identity");
        })) {
      answer.keep_alive = false;  // its body is read, but not understood
    }
    if (res.body == BodyKind::kLength) {
      if (res.content_length > max_body) return Error("the origin's answer is too large to read");
      while (origin_in.size() < res.content_length) {
        if (!ReadMore(origin, origin_in)) return Error("the origin closed mid-answer");
      }
      answer.body = origin_in.substr(0, res.content_length);
      origin_in.erase(0, res.content_length);
    } else if (res.body == BodyKind::kChunked) {
      while (true) {
        ChunkedDecoder chunks;
        std::string payload;
        std::size_t used = chunks.Consume(origin_in, &payload);
        if (chunks.failed()) return Error("the origin's answer has malformed chunks");
        if (chunks.done()) {
          origin_in.erase(0, used);
          answer.body = std::move(payload);
          break;
        }
        if (origin_in.size() > max_body) return Error("the origin's answer is too large to read");
        if (!ReadMore(origin, origin_in)) return Error("the origin closed mid-answer");
      }
    } else if (res.body == BodyKind::kUntilClose) {
      while (ReadMore(origin, origin_in)) {
        if (origin_in.size() > max_body) return Error("the origin's answer is too large to read");
      }
      answer.body = std::move(origin_in);
      origin_in.clear();
    }
    return answer;
  }
}

}  // namespace corral::netfilter
