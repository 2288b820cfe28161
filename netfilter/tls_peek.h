// Reads the server name from a TLS ClientHello without decrypting anything,
// so a tunnel opened for one host cannot be used to talk TLS to another.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "netfilter/host.h"

namespace corral::netfilter {

enum class HelloState {
  kNeedMore,   // a prefix of a ClientHello: read more (up to the caller's bound)
  kNotTls,     // the client does not start with a TLS handshake record
  kNoSni,      // a complete ClientHello without server_name
  kSni,        // a complete ClientHello naming `server_name`
  kMalformed,  // a TLS handshake record that is not a sane ClientHello
};

struct HelloPeek {
  HelloState state = HelloState::kNeedMore;
  std::string server_name;
  std::string reason;  // for kMalformed
};

// `data` is everything the client sent so far; the ClientHello may span
// several records and TCP segments.
HelloPeek PeekClientHello(std::string_view data);

struct HelloRefusal {
  std::string code;    // X-Corral-Error: "sni-mismatch" or "bad-client-hello"
  std::string reason;
};

// Why a tunnel to `host` must not carry this first flight: a malformed
// ClientHello, or one naming another server. nullopt when it may pass, or
// while more bytes are needed to tell.
std::optional<HelloRefusal> JudgeHello(const HelloPeek& peek, const CanonicalHost& host);

}  // namespace corral::netfilter
