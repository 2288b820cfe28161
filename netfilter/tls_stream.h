// Blocking byte streams for a terminated connection: a plain socket, or TLS
// over one (the box's side with a session leaf, the origin's side verified
// against the host's CA bundle with its name checked).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/base.h"
#include "netfilter/host.h"
#include "netfilter/openssl_types.h"
#include "netfilter/session_ca.h"

namespace corral::netfilter {

class Stream {
 public:
  virtual ~Stream() = default;
  // Bytes read (> 0), 0 at the end, < 0 on an error or timeout.
  virtual long Read(char* buf, std::size_t size) = 0;
  virtual bool Write(std::string_view data) = 0;
};

// A socket; `prefix` is read first (bytes the event loop already took from it).
std::unique_ptr<Stream> PlainStream(int fd, std::string prefix);

// The box's side: HTTP/1.1 only in ALPN (a client asking for h2 falls back).
Result<SslCtxPtr> MakeBoxContext();
// The origin's side: peers verified against `ca_file` (empty: the system's).
Result<SslCtxPtr> MakeUpstreamContext(const std::string& ca_file);

// Accepts TLS from the box on `fd` with `leaf`. `sni`: the name the box
// asked for, empty when it sent none.
Result<std::unique_ptr<Stream>> AcceptTls(SSL_CTX* ctx, int fd, std::string prefix, const KeyedCert& leaf,
                                          std::string* sni);
// Connects TLS to the origin on `fd`: SNI `host` (a name; none for an IP) and
// its certificate must name `host`.
Result<std::unique_ptr<Stream>> ConnectTls(SSL_CTX* ctx, int fd, const CanonicalHost& host);

}  // namespace corral::netfilter
