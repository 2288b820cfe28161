// The proxy's own requests to a forge, on the connection it holds to it
// (docs/forge.md): a repository's default branch before a push is judged,
// the repository a GraphQL node id belongs to. Sent with the box's request's
// credentials, between two of the box's exchanges, read whole.
#pragma once

#include <string>
#include <string_view>

#include "base/base.h"
#include "netfilter/http/http.h"
#include "netfilter/tls/tls.h"

namespace corral::netfilter {

struct ProbeAnswer {
  int status = 0;
  std::string body;
  bool keep_alive = true;  // false: the origin closes after it, so nothing more goes on this connection
};

// Sends `method` `target` with `body` to `origin`, with the headers of
// `like` that say who asks (Authorization, User-Agent) and `host`, and
// reads the whole answer (at most `max_body` bytes). `origin_in` holds bytes
// read from the origin and not yet used, before and after.
Result<ProbeAnswer> ProbeOrigin(Stream& origin, std::string& origin_in, const RequestHead& like,
                                std::string_view host, std::string_view method, std::string_view target,
                                std::string_view content_type, std::string_view body, std::size_t max_head,
                                std::size_t max_body);

}  // namespace corral::netfilter
