// HTTP to a container engine over a unix socket or TCP (+TLS), with libcurl.
// Private to launcher/.
#pragma once

#include <curl/curl.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/base.h"

namespace corral::launcher {

// Where an engine listens: unix:///path, or tcp://host:port with optional TLS
// (DOCKER_TLS_VERIFY / DOCKER_CERT_PATH: cert.pem, key.pem, ca.pem).
struct Endpoint {
  std::string url;          // as given
  std::string socket_path;  // unix only
  std::string base;         // "http://localhost" or "http(s)://host:port"
  std::string cert, key, ca;
  std::string source;       // where it came from: "--engine", "DOCKER_HOST", "default"
};
Result<Endpoint> ParseEndpoint(const std::string& url, const std::string& source,
                               const std::string& tls_verify = "",
                               const std::string& cert_path = "");

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case
};

// A CURL handle set up for the endpoint (socket, TLS files, timeouts).
CurlHandle NewHandle(const Endpoint& endpoint, long connect_timeout_ms);

// One request; JSON bodies go with Content-Type: application/json.
Result<HttpResponse> HttpRequest(const Endpoint& endpoint, const std::string& method,
                                 const std::string& path, const std::string& body = "",
                                 long timeout_ms = 0,
                                 const std::string& content_type = "application/json");

// A POST whose body is read from `body_fd` until EOF (sent chunked), and
// whose answer is handed to `on_line` a line at a time as it arrives (the
// JSON lines of a build). The whole body is kept in the response too.
Result<HttpResponse> HttpStreamLines(const Endpoint& endpoint, const std::string& path,
                                     int body_fd, const std::string& content_type,
                                     const std::function<void(std::string_view)>& on_line);

// A hijacked connection: the request is written raw, the response headers
// read, and the socket then carries the stream both ways (attach), or the
// late body (Docker's wait). Bytes that came with the headers are kept.
class RawConnection {
 public:
  static Result<RawConnection> Open(const Endpoint& endpoint, const std::string& method,
                                    const std::string& path, bool upgrade);
  long status() const { return status_; }
  int fd() const { return fd_; }
  // Sends all of `data`; false when the connection is gone.
  bool Send(const char* data, std::size_t size);
  // Bytes kept from the header read first, then from the socket. 0 on EOF,
  // -1 on error, -2 when nothing is there yet (non-blocking).
  long Recv(char* buffer, std::size_t size);
  void WaitReadable(int timeout_ms);
  // Half-closes the writing side (stdin ended), for plain sockets.
  void CloseWrite();

 private:
  CurlHandle curl_;
  int fd_ = -1;
  long status_ = 0;
  std::string pending_;
};

}  // namespace corral::launcher
