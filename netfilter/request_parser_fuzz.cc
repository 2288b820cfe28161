// libFuzzer target for everything the proxy parses from the network: request
// heads, response heads, chunked bodies, TLS ClientHellos and hosts. Crashes,
// sanitizer reports and broken invariants (abort) are findings.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "netfilter/rules/rules.h"
#include "netfilter/http/http.h"
#include "netfilter/tls/tls.h"

namespace {

using namespace corral::netfilter;

void Check(bool ok) {
  if (!ok) std::abort();
}

void FuzzRequest(std::string_view data) {
  constexpr std::size_t kMax = 4096;  // small, so the 431 path is reached
  auto parsed = ParseRequest(data, kMax);
  if (parsed.state != ParseState::kDone) return;
  Check(parsed.head.size <= data.size() && parsed.head.size <= kMax);
  // Feeding the head in pieces must never refuse what the whole accepts.
  for (std::size_t cut : {parsed.head.size / 2, parsed.head.size - 1}) {
    Check(ParseRequest(data.substr(0, cut), kMax).state != ParseState::kError);
  }
  auto target = ParseAuthority(parsed.head.authority, parsed.head.connect ? std::nullopt : std::optional<uint16_t>(80));
  if (target) Check(!target->host.name.empty() && target->port != 0);
  if (parsed.head.body == BodyKind::kChunked) {
    ChunkedDecoder whole;
    std::string_view body = data.substr(parsed.head.size);
    std::size_t used = whole.Consume(body);
    Check(used <= body.size());
    ChunkedDecoder split;  // the same bytes one at a time end at the same place
    std::size_t total = 0;
    for (std::size_t i = 0; i < body.size() && !split.done() && !split.failed(); ++i) {
      total += split.Consume(body.substr(i, 1));
    }
    Check(split.done() == whole.done() && split.failed() == whole.failed());
    if (whole.done()) Check(total == used);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, std::size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  FuzzRequest(data);
  auto response = ParseResponse(data, 4096, "GET");
  if (response.state == ParseState::kDone) Check(response.head.size <= data.size());
  auto hello = PeekClientHello(data);
  if (hello.state == HelloState::kSni) Check(!hello.server_name.empty());
  if (size < 300) {
    auto host = Canonicalize(data);
    // Canonical form is a fixed point.
    if (host) {
      auto again = Canonicalize(host->name);
      Check(again.ok() && again->name == host->name);
    }
  }
  return 0;
}
