// Origin, proxy and client for bench/logins: HTTPS through corral's
// terminating path (a login host), its plain tunnel, a peer, or direct.
//   logins_bench origin PORT1 PORT2 CERT KEY
//       a TLS origin on 127.0.0.1 (both ports), keep-alive HTTP/1.1:
//       POST /small (1 KiB back), GET /bytes/N (N bytes), GET /events (SSE:
//       one event at once, one 50 ms later)
//   logins_bench proxy LOGIN_HOST TUNNEL_HOST HOSTS_FILE UPSTREAM_CA CA_OUT
//       corral's Proxy (netfilter.h) with one login for LOGIN_HOST; TUNNEL_HOST
//       is allowed and stays a tunnel; writes the session CA to CA_OUT,
//       prints its port, serves until SIGTERM
//   logins_bench latency N PROXY|direct TARGET CA [PROXY|direct TARGET CA ...]
//       one keep-alive TLS connection per path; 50 POSTs on each to warm up,
//       then N rounds of one POST on each path in turn (so a burst of load
//       from elsewhere falls on every path alike); prints per path, in order,
//       "p50_us p99_us login"
//   logins_bench download PROXY|direct TARGET CA BYTES   prints "seconds login"
//   logins_bench ttfb PROXY|direct TARGET CA N   N SSE requests on one connection,
//       then N more each on a new connection (CONNECT and TLS included);
//       prints the medians to the first event: "warm_ms cold_ms"
// PROXY is 127.0.0.1:PORT; TARGET is host:port (the CONNECT target, the SNI
// and the name checked). "login" is what the origin saw in x-api-key: real,
// stand-in or none.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "netfilter/netfilter.h"

namespace {

using Clock = std::chrono::steady_clock;
const std::string kReal = "sk-bench-real-0123456789abcdefghij";
const std::string kStandIn = "sk-bench-fake-9876543210zyxwvutsrq";

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "logins_bench: %s\n", what.c_str());
  ERR_print_errors_fp(stderr);
  std::exit(1);
}

int Port(const std::string& hostport) {
  return std::atoi(hostport.c_str() + hostport.rfind(':') + 1);
}

int Dial(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0)
    Die("cannot connect to " + std::to_string(port));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{30, 0};  // a path that stops answering fails the round, not the bench
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

void WriteAll(SSL* ssl, std::string_view data) {
  size_t n;
  if (!data.empty() && SSL_write_ex(ssl, data.data(), data.size(), &n) != 1)
    Die("TLS write failed");
}

// ---------------------------------------------------------------- origin

// 1 MiB of JSON-like text, the bytes every large body repeats: what a
// response scanner sees in an API's answer, not one repeated letter.
std::string Pattern() {
  std::string out;
  uint32_t x = 12345;
  const char* letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ \":,{}";
  while (out.size() < (1u << 20)) {
    x = x * 1103515245 + 12345;
    out += letters[(x >> 16) % 70];
  }
  return out;
}

bool Send(SSL* ssl, std::string_view data) {
  size_t n;
  return data.empty() || SSL_write_ex(ssl, data.data(), data.size(), &n) == 1;
}

// The next request's head (its body, if any, read and dropped); false at the end.
bool ReadRequest(SSL* ssl, std::string& in, std::string& head) {
  char buf[16384];
  size_t end;
  while ((end = in.find("\r\n\r\n")) == std::string::npos) {
    int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) return false;
    in.append(buf, static_cast<size_t>(n));
  }
  head = in.substr(0, end);
  size_t cl = head.find("Content-Length: ");
  size_t want = end + 4 + (cl == std::string::npos ? 0 : std::stoul(head.substr(cl + 16)));
  while (in.size() < want) {
    int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) return false;
    in.append(buf, static_cast<size_t>(n));
  }
  in.erase(0, want);
  return true;
}

// Says which key the request carried, in X-Login; false when the client left.
bool Answer(SSL* ssl, const std::string& head, const std::string& pattern) {
  const char* login = head.find("x-api-key: " + kReal) != std::string::npos      ? "real"
                      : head.find("x-api-key: " + kStandIn) != std::string::npos ? "stand-in"
                                                                                 : "none";
  std::string ok = std::string("HTTP/1.1 200 OK\r\nX-Login: ") + login + "\r\n";
  if (head.rfind("GET /events ", 0) == 0) {
    if (!Send(ssl, ok + "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                        "b\r\ndata: one\n\n\r\n")) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return Send(ssl, "b\r\ndata: two\n\n\r\n0\r\n\r\n");
  }
  if (head.rfind("GET /bytes/", 0) == 0) {
    unsigned long long left = std::stoull(head.substr(11));
    if (!Send(ssl, ok + "Content-Type: application/octet-stream\r\nContent-Length: " +
                       std::to_string(left) + "\r\n\r\n")) {
      return false;
    }
    for (size_t take; left > 0; left -= take) {
      take = static_cast<size_t>(std::min<unsigned long long>(left, pattern.size()));
      if (!Send(ssl, std::string_view(pattern).substr(0, take))) return false;
    }
    return true;
  }
  return Send(ssl, ok + "Content-Type: application/json\r\nContent-Length: 1024\r\n\r\n" +
                       pattern.substr(0, 1024));
}

void ServeOrigin(SSL_CTX* ctx, int fd, const std::string& pattern) {
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  std::string in, head;
  if (SSL_accept(ssl) == 1) {
    while (ReadRequest(ssl, in, head) && Answer(ssl, head, pattern)) {
    }
  }
  SSL_free(ssl);
  close(fd);
}

[[noreturn]] void Origin(int port1, int port2, const char* cert, const char* key) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
    Die("cannot load the origin's certificate");
  }
  static const std::string pattern = Pattern();
  auto serve = [ctx](int port) {
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    if (bind(l, reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0 || listen(l, 1024) != 0)
      Die("origin: bind");
    while (true) {
      int fd = accept4(l, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::thread([ctx, fd] { ServeOrigin(ctx, fd, pattern); }).detach();
    }
  };
  std::thread(serve, port2).detach();
  serve(port1);
  std::exit(0);
}

// ---------------------------------------------------------------- proxy

[[noreturn]] void RunProxy(char** argv) {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigaddset(&term, SIGINT);
  pthread_sigmask(SIG_BLOCK, &term,
                  nullptr);  // before the proxy's threads start, so they inherit it
  corral::netfilter::ProxyConfig config;
  config.listen = "127.0.0.1:0";
  config.rules.allowed_domains = {argv[2], argv[3]};
  config.rules.allow_addresses = {"127.0.0.1"};
  config.hosts_file = argv[4];
  config.upstream_ca_file = argv[5];
  config.logins = {{"bench-key", {argv[2]}, "x-api-key", "", kReal, kStandIn}};
  // A session writes one line per decision; so does the bench, to /dev/null.
  static std::mutex mutex;
  static FILE* sink = std::fopen("/dev/null", "w");
  config.log = [](std::string_view line) {
    std::lock_guard lock(mutex);
    std::fwrite(line.data(), 1, line.size(), sink);
    std::fputc('\n', sink);
    std::fflush(sink);
  };
  auto proxy = corral::netfilter::Proxy::Start(config);
  if (!proxy.ok()) Die("the proxy did not start: " + proxy.error().message);
  std::ofstream(argv[6]) << (*proxy)->ca_pem();
  std::printf("%u\n", (*proxy)->port());
  std::fflush(stdout);
  int sig;
  sigwait(&term, &sig);
  (*proxy)->Stop();
  std::exit(0);
}

// ---------------------------------------------------------------- client

// One HTTPS connection, through a proxy's CONNECT or direct.
class Client {
 public:
  Client(SSL_CTX* ctx, const std::string& via, const std::string& target) {
    fd_ = Dial(via == "direct" ? Port(target) : Port(via));
    if (via != "direct") {
      std::string connect = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n";
      if (write(fd_, connect.data(), connect.size()) != static_cast<ssize_t>(connect.size()))
        Die("CONNECT");
      std::string reply;
      char c;
      while (reply.find("\r\n\r\n") == std::string::npos && read(fd_, &c, 1) == 1) reply += c;
      if (reply.compare(9, 3, "200") != 0) Die("CONNECT " + target + " via " + via + ": " + reply);
    }
    std::string name = target.substr(0, target.rfind(':'));
    ssl_ = SSL_new(ctx);
    SSL_set_fd(ssl_, fd_);
    SSL_set_tlsext_host_name(ssl_, name.c_str());
    SSL_set1_host(ssl_, name.c_str());
    if (SSL_connect(ssl_) != 1) Die("TLS to " + target + " via " + via);
  }
  ~Client() {
    SSL_free(ssl_);
    close(fd_);
  }
  void Send(std::string_view data) { WriteAll(ssl_, data); }
  // Reads until `until` is in the buffer; returns where it ends.
  size_t ReadUntil(std::string_view until) {
    size_t at;
    while ((at = in_.find(until)) == std::string::npos) More();
    return at + until.size();
  }
  // One response, framed by Content-Length or chunked (ending "0\r\n\r\n");
  // returns the origin's X-Login.
  std::string Response() {
    size_t end = ReadUntil("\r\n\r\n");
    std::string head = in_.substr(0, end);
    in_.erase(0, end);
    size_t cl = head.find("Content-Length: ");
    if (cl != std::string::npos) {
      unsigned long long left = std::stoull(head.substr(cl + 16));
      while (left > 0) {
        if (in_.empty()) More();
        size_t take = static_cast<size_t>(std::min<unsigned long long>(left, in_.size()));
        in_.erase(0, take);
        left -= take;
      }
    } else {
      in_.erase(0, ReadUntil("0\r\n\r\n"));
    }
    size_t login = head.find("X-Login: ");
    return login == std::string::npos ? "?"
                                      : head.substr(login + 9, head.find('\r', login) - login - 9);
  }

 private:
  void More() {
    char buf[65536];
    int n = SSL_read(ssl_, buf, sizeof buf);
    if (n <= 0) Die("the connection ended early");
    in_.append(buf, static_cast<size_t>(n));
  }
  int fd_;
  SSL* ssl_;
  std::string in_;
};

SSL_CTX* ClientContext(const char* ca) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (SSL_CTX_load_verify_locations(ctx, ca, nullptr) != 1) Die(std::string("cannot load ") + ca);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  static const unsigned char kAlpn[] = "\x08http/1.1";
  SSL_CTX_set_alpn_protos(ctx, kAlpn, sizeof kAlpn - 1);
  return ctx;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

std::string Headers(const std::string& target) {
  return "Host: " + target + "\r\nx-api-key: " + kStandIn + "\r\n";
}

int Latency(int argc, char** argv) {
  struct Path {
    std::unique_ptr<Client> client;
    std::string request, login;
    std::vector<double> us;
  };
  std::vector<Path> paths;
  for (int i = 3; i + 2 < argc; i += 3) {
    Path path;
    path.client = std::make_unique<Client>(ClientContext(argv[i + 2]), argv[i], argv[i + 1]);
    path.request = "POST /small HTTP/1.1\r\n" + Headers(argv[i + 1]) +
                   "Content-Type: application/json\r\nContent-Length: 1024\r\n\r\n" +
                   std::string(1024, 'q');
    for (int warm = 0; warm < 50; ++warm) {
      path.client->Send(path.request);
      path.login = path.client->Response();
    }
    paths.push_back(std::move(path));
  }
  for (int i = 0, n = std::atoi(argv[2]); i < n; ++i) {
    for (Path& path : paths) {
      auto start = Clock::now();
      path.client->Send(path.request);
      path.client->Response();
      path.us.push_back(Ms(Clock::now() - start) * 1000);
    }
  }
  for (const Path& path : paths) {
    std::printf("%.1f %.1f %s\n", Quantile(path.us, 0.5), Quantile(path.us, 0.99),
                path.login.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "origin" && argc == 6)
    Origin(std::atoi(argv[2]), std::atoi(argv[3]), argv[4], argv[5]);
  if (mode == "proxy" && argc == 7) RunProxy(argv);
  if (mode == "latency" && argc >= 6 && (argc - 3) % 3 == 0) return Latency(argc, argv);
  if (argc != 6) {
    std::fprintf(stderr, "usage: see the comment at the top of bench/logins_bench.cc\n");
    return 2;
  }
  std::string via = argv[2], target = argv[3];
  SSL_CTX* ctx = ClientContext(argv[4]);
  std::string host_header = Headers(target);
  if (mode == "download") {
    Client client(ctx, via, target);
    auto start = Clock::now();
    client.Send("GET /bytes/" + std::string(argv[5]) + " HTTP/1.1\r\n" + host_header + "\r\n");
    std::string login = client.Response();
    std::printf("%.4f %s\n", Ms(Clock::now() - start) / 1000, login.c_str());
  } else if (mode == "ttfb") {
    std::string request =
        "GET /events HTTP/1.1\r\n" + host_header + "Accept: text/event-stream\r\n\r\n";
    int n = std::atoi(argv[5]);
    std::vector<double> warm, cold;
    {
      Client client(ctx, via, target);
      client.Send(request);
      client.Response();  // the first exchange on a connection warms it
      for (int i = 0; i < n; ++i) {
        auto start = Clock::now();
        client.Send(request);
        client.ReadUntil("data: one");
        warm.push_back(Ms(Clock::now() - start));
        client.Response();
      }
    }
    for (int i = 0; i < n; ++i) {
      auto start = Clock::now();
      Client client(ctx, via, target);
      client.Send(request);
      client.ReadUntil("data: one");
      cold.push_back(Ms(Clock::now() - start));
      client.Response();
    }
    std::printf("%.3f %.3f\n", Quantile(warm, 0.5), Quantile(cold, 0.5));
  } else {
    std::fprintf(stderr, "usage: see the comment at the top of bench/logins_bench.cc\n");
    return 2;
  }
  return 0;
}
