#include "launcher/engine/engine.h"

#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <vector>

#include <curl/curl.h>

namespace corral::launcher {
namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* out) {
  std::string line(data, size * count);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 1);
    auto first = value.find_first_not_of(" \t");
    auto last = value.find_last_not_of(" \t\r\n");
    value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * count;
}

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

// The error, with an errno that tells "connected, but no answer in time"
// (ETIMEDOUT: an engine still starting) from "nobody listens" (ECONNREFUSED).
// libcurl's own detail ("SSL certificate problem: certificate has expired")
// says more than the code's text, so it comes first when there is one.
Error CurlError(const Endpoint& endpoint, CURL* curl, CURLcode code, const char* detail) {
  int errno_value = 0;
  if (code == CURLE_OPERATION_TIMEDOUT) {
    curl_off_t connected_us = 0;
    curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connected_us);
    errno_value = connected_us > 0 ? ETIMEDOUT : EHOSTUNREACH;
  } else if (code == CURLE_COULDNT_CONNECT) {
    errno_value = ECONNREFUSED;
  }
  std::string why = detail && *detail ? detail : curl_easy_strerror(code);
  if (code == CURLE_SSL_CONNECT_ERROR && why.find("wrong version number") != std::string::npos) {
    why = "it does not speak TLS there (" + why + "): is it plain tcp://? unset DOCKER_TLS_VERIFY";
  }
  return Error(why + " at " + endpoint.url, errno_value);
}

// curl_easy_perform with libcurl's detail kept for the error.
Result<void> Perform(const Endpoint& endpoint, CURL* curl) {
  char detail[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, detail);
  CURLcode code = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  // CORRAL_LOG=debug: each engine request and its time, to see where a
  // slow start goes.
  if (log::Enabled(log::Level::kDebug)) {
    char* method = nullptr;
    char* url = nullptr;
    long status = 0;
    curl_off_t total_us = 0, connect_us = 0, tls_us = 0;
    curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_METHOD, &method);
    curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &url);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_TOTAL_TIME_T, &total_us);
    curl_easy_getinfo(curl, CURLINFO_CONNECT_TIME_T, &connect_us);
    curl_easy_getinfo(curl, CURLINFO_APPCONNECT_TIME_T, &tls_us);
    auto ms = [](curl_off_t us) {
      char text[32];
      std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(us) / 1000.0);
      return std::string(text);
    };
    std::string message = std::string("engine: ") + (method ? method : "?") + " " +
                          (url ? url : "?") + " -> " + std::to_string(status) + " in " +
                          ms(total_us);
    if (tls_us > 0) message += " (TLS handshake " + ms(tls_us - connect_us) + ")";
    log::debug(message);
  }
  if (code != CURLE_OK) return CurlError(endpoint, curl, code, detail);
  return Ok();
}

// TLS sessions kept for the whole process, so that each request to a TLS
// engine (a session start makes a dozen, some from other threads) resumes the
// first handshake instead of making a full one: 6-15 ms each here. Only the
// session cache is shared; libcurl does not support sharing connections
// between threads.
CURLSH* TlsSessions() {
  static CURLSH* share = [] {
    static std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;
    CURLSH* made = curl_share_init();
    if (made == nullptr) return made;
    auto lock = +[](CURL*, curl_lock_data data, curl_lock_access, void*) {
      locks[static_cast<std::size_t>(data)].lock();
    };
    auto unlock = +[](CURL*, curl_lock_data data, void*) {
      locks[static_cast<std::size_t>(data)].unlock();
    };
    curl_share_setopt(made, CURLSHOPT_LOCKFUNC, lock);
    curl_share_setopt(made, CURLSHOPT_UNLOCKFUNC, unlock);
    curl_share_setopt(made, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return made;
  }();
  return share;
}

// Whether this is a process forked from the one that first asked (the
// reaper): a lock another thread held at the fork stays held in the child.
bool Forked() {
  static const pid_t first = ::getpid();
  return ::getpid() != first;
}

// Handles whose connection to an engine stays open after their request, for
// the next request to the same engine: a session start makes a dozen, in
// turn and from several threads, and each new connection costs a connect
// and (TLS) a handshake, 5-20 ms each on a busy machine. A handle serves one
// request at a time; libcurl checks a kept connection before reusing it and
// opens a new one when the engine has closed it. Not in a forked child (the
// reaper): its parent may hold the lock and uses the same connections.
class IdleHandles {
 public:
  static IdleHandles& Get() {
    static IdleHandles* pool = new IdleHandles();  // outlives every thread
    return *pool;
  }

  CurlHandle Take(const std::string& key) {
    if (Forked()) return nullptr;
    std::lock_guard lock(mutex_);
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
      if (it->first != key) continue;
      CurlHandle handle = std::move(it->second);
      idle_.erase(std::next(it).base());
      return handle;
    }
    return nullptr;
  }

  void GiveBack(std::string key, CurlHandle handle) {
    if (Forked() || !handle) return;
    std::lock_guard lock(mutex_);
    if (idle_.size() >= kMaxIdle) idle_.erase(idle_.begin());  // the oldest
    idle_.emplace_back(std::move(key), std::move(handle));
  }

 private:
  static constexpr std::size_t kMaxIdle = 8;
  std::mutex mutex_;
  std::vector<std::pair<std::string, CurlHandle>> idle_;
};

std::string PoolKey(const Endpoint& endpoint) {
  return endpoint.base + '\n' + endpoint.socket_path + '\n' + endpoint.cert + '\n' +
         endpoint.key + '\n' + endpoint.ca;
}

void SetUp(CURL* c, const Endpoint& endpoint, long connect_timeout_ms) {
  if (!endpoint.socket_path.empty()) {
    curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, endpoint.socket_path.c_str());
  }
  if (!endpoint.cert.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, endpoint.cert.c_str());
  if (!endpoint.key.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, endpoint.key.c_str());
  if (!endpoint.ca.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, endpoint.ca.c_str());
  if (endpoint.base.rfind("https:", 0) == 0 && !Forked()) {  // the share's locks, as the pool's
    if (CURLSH* sessions = TlsSessions()) curl_easy_setopt(c, CURLOPT_SHARE, sessions);
  }
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
}

// A CURL handle set up for the endpoint (socket, TLS files, timeouts).
CurlHandle NewHandle(const Endpoint& endpoint, long connect_timeout_ms) {
  CurlHandle curl(curl_easy_init());
  if (curl) SetUp(curl.get(), endpoint, connect_timeout_ms);
  return curl;
}

}  // namespace

void CurlDeleter::operator()(CURL* curl) const { curl_easy_cleanup(curl); }

Result<HttpResponse> HttpRequest(const Endpoint& endpoint, const std::string& method,
                                 const std::string& path, const std::string& body,
                                 long timeout_ms, const std::string& content_type) {
  std::string key = PoolKey(endpoint);
  CurlHandle curl = IdleHandles::Get().Take(key);
  if (curl) {
    curl_easy_reset(curl.get());  // its options; its open connection stays
    SetUp(curl.get(), endpoint, 2000);
  } else {
    curl = NewHandle(endpoint, 2000);
  }
  if (!curl) return Error("cannot start libcurl");
  CURL* c = curl.get();
  HttpResponse response;
  std::string url = endpoint.base + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, AppendHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response.headers);
  if (timeout_ms > 0) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  Slist headers;
  if (method == "POST" || method == "PUT" || !body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (!body.empty()) {
      headers.reset(curl_slist_append(nullptr, ("Content-Type: " + content_type).c_str()));
      curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    }
  }
  if (auto done = Perform(endpoint, c); !done) return done.error();
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  IdleHandles::Get().GiveBack(std::move(key), std::move(curl));
  return response;
}

namespace {

// The request body, read from a file descriptor as curl asks for it.
size_t ReadBody(char* buffer, size_t size, size_t count, void* fd) {
  for (;;) {
    ssize_t n = ::read(*static_cast<int*>(fd), buffer, size * count);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return CURL_READFUNC_ABORT;
  }
}

struct LineSink {
  HttpResponse* response;
  const std::function<void(std::string_view)>* on_line;
  std::size_t done = 0;  // bytes of the body already handed over
};

size_t AppendLines(char* data, size_t size, size_t count, void* out) {
  auto* sink = static_cast<LineSink*>(out);
  std::string& body = sink->response->body;
  body.append(data, size * count);
  for (std::size_t end; (end = body.find('\n', sink->done)) != std::string::npos;) {
    (*sink->on_line)(std::string_view(body).substr(sink->done, end - sink->done));
    sink->done = end + 1;
  }
  return size * count;
}

}  // namespace

Result<HttpResponse> HttpStreamLines(const Endpoint& endpoint, const std::string& path,
                                     int body_fd, const std::string& content_type,
                                     const std::function<void(std::string_view)>& on_line) {
  CurlHandle curl = NewHandle(endpoint, 2000);
  if (!curl) return Error("cannot start libcurl");
  CURL* c = curl.get();
  HttpResponse response;
  LineSink sink{&response, &on_line};
  std::string url = endpoint.base + path;
  Slist headers(curl_slist_append(nullptr, ("Content-Type: " + content_type).c_str()));
  // No "Expect: 100-continue" pause: the engines read the body at once.
  headers.reset(curl_slist_append(headers.release(), "Expect:"));
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadBody);
  curl_easy_setopt(c, CURLOPT_READDATA, &body_fd);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, AppendLines);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  if (auto done = Perform(endpoint, c); !done) return done.error();
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  if (sink.done < response.body.size()) {
    on_line(std::string_view(response.body).substr(sink.done));
  }
  return response;
}

Result<RawConnection> RawConnection::Open(const Endpoint& endpoint, const std::string& method,
                                          const std::string& path, bool upgrade,
                                          const std::string& body) {
  RawConnection conn;
  conn.curl_ = NewHandle(endpoint, 2000);
  CURL* c = conn.curl_.get();
  std::string url = endpoint.base + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
  if (auto done = Perform(endpoint, c); !done) return done.error();
  curl_socket_t fd = CURL_SOCKET_BAD;
  curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &fd);
  conn.fd_ = static_cast<int>(fd);
  std::string host = endpoint.socket_path.empty() ? endpoint.base.substr(endpoint.base.find("://") + 3)
                                                  : "localhost";
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + host +
                        "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  if (!body.empty()) request += "Content-Type: application/json\r\n";
  if (upgrade) request += "Connection: Upgrade\r\nUpgrade: tcp\r\n";
  request += "\r\n" + body;
  if (!conn.Send(request.data(), request.size())) return Error("the engine closed the connection");
  // Read up to the end of the headers; whatever follows is the stream.
  std::string head;
  char buffer[4096];
  for (;;) {
    auto end = head.find("\r\n\r\n");
    if (end != std::string::npos) {
      conn.pending_ = head.substr(end + 4);
      head.resize(end);
      break;
    }
    long n = conn.Recv(buffer, sizeof buffer);
    if (n == 0 || n == -1) return Error("the engine closed the connection before answering " + path);
    if (n > 0) head.append(buffer, n);
    if (n == -2) conn.WaitReadable(10000);
  }
  auto space = head.find(' ');
  conn.status_ = space == std::string::npos ? 0 : std::strtol(head.c_str() + space + 1, nullptr, 10);
  if (conn.status_ >= 400) {
    return Error(path + " answered " + std::to_string(conn.status_) + ": " + conn.pending_);
  }
  return conn;
}

RawConnection RawConnection::Adopt(int fd) {
  RawConnection conn;
  conn.adopted_.Reset(fd);
  conn.fd_ = fd;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);  // as curl's sockets are
  return conn;
}

bool RawConnection::Send(const char* data, std::size_t size) {
  while (size > 0) {
    size_t sent = 0;
    CURLcode code = CURLE_OK;
    if (!curl_) {
      ssize_t n = ::send(fd_, data, size, MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      code = n < 0 ? CURLE_AGAIN : CURLE_OK;
      sent = n < 0 ? 0 : static_cast<size_t>(n);
    } else {
      code = curl_easy_send(curl_.get(), data, size, &sent);
    }
    if (code == CURLE_AGAIN) {
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, 1000);
      continue;
    }
    if (code != CURLE_OK) return false;
    data += sent;
    size -= sent;
  }
  return true;
}

long RawConnection::Recv(char* buffer, std::size_t size) {
  if (!pending_.empty()) {
    std::size_t n = std::min(size, pending_.size());
    pending_.copy(buffer, n);
    pending_.erase(0, n);
    return static_cast<long>(n);
  }
  if (!curl_) {
    ssize_t n = ::recv(fd_, buffer, size, 0);
    if (n < 0) return errno == EAGAIN || errno == EINTR ? -2 : -1;
    return static_cast<long>(n);
  }
  size_t got = 0;
  CURLcode code = curl_easy_recv(curl_.get(), buffer, size, &got);
  if (code == CURLE_AGAIN) return -2;
  if (code != CURLE_OK) return -1;
  return static_cast<long>(got);
}

void RawConnection::WaitReadable(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  ::poll(&p, 1, timeout_ms);
}

void RawConnection::CloseWrite() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

}  // namespace corral::launcher
