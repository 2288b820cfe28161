// The proxy end to end on loopback, with the resolver and clock replaced.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "netfilter/proxy_internal.h"

namespace corral::netfilter {
namespace {

class FakeResolver : public Resolver {
 public:
  std::map<std::string, std::vector<std::string>> answers;
  void Resolve(const std::string& host, ResolveCallback done) override {
    auto it = answers.find(host);
    if (it == answers.end()) return done(Error("cannot resolve " + host + ": not found"));
    std::vector<IpAddress> out;
    for (const auto& a : it->second) out.push_back(*ParseIpStrict(a));
    done(out);
  }
};

class FakeClock : public Clock {
 public:
  std::atomic<int64_t> offset_ms{0};
  TimePoint Now() const override {
    return std::chrono::steady_clock::now() + std::chrono::milliseconds(offset_ms.load());
  }
};

UniqueFd ConnectTcp(uint16_t port, const char* ip = "127.0.0.1") {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  sin.sin_port = htons(port);
  inet_pton(AF_INET, ip, &sin.sin_addr);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) return UniqueFd();
  timeval tv{5, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

void Send(int fd, std::string_view data) {
  ASSERT_EQ(::send(fd, data.data(), data.size(), MSG_NOSIGNAL), static_cast<ssize_t>(data.size()));
}

// Reads until `until` appears, the peer closes, or 5 s pass.
std::string ReadUntil(int fd, std::string_view until = {}) {
  std::string out;
  char buf[4096];
  while (until.empty() || out.find(until) == std::string::npos) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// A server on 127.0.0.2 that gives each connection to `serve` on a thread of
// its own (serve closes the descriptor).
class LoopbackOrigin {
 public:
  // `four_digit_port`: the first free port from 9000 up, instead of any.
  explicit LoopbackOrigin(void (*serve)(int fd), bool four_digit_port = false) {
    listener_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    inet_pton(AF_INET, "127.0.0.2", &sin.sin_addr);
    for (uint16_t port = 9000; four_digit_port && port < 10000; ++port) {
      sin.sin_port = htons(port);
      if (::bind(listener_.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin) == 0) break;
    }
    if (!four_digit_port) ::bind(listener_.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin);
    ::listen(listener_.get(), 64);
    socklen_t len = sizeof sin;
    getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&sin), &len);
    port_ = ntohs(sin.sin_port);
    thread_ = std::thread([this, serve] {
      while (true) {
        int fd = ::accept(listener_.get(), nullptr, nullptr);
        if (fd < 0) return;
        ++accepted_;
        std::thread(serve, fd).detach();
      }
    });
  }
  ~LoopbackOrigin() {
    ::shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  // Connections accepted so far, counted in accept order: once a later
  // connection is served, an earlier one would have been counted.
  int accepted() const { return accepted_.load(); }

 private:
  UniqueFd listener_;
  uint16_t port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

// Echoes every byte back.
void ServeEcho(int fd) {
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) {
    ::send(fd, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL);
  }
  ::close(fd);
}

// Answers each request (head and Content-Length body) with 200 and, as the
// body, the bytes it received.
void ServeHttpEcho(int fd) {
  std::string in;
  char buf[4096];
  while (true) {
    std::size_t end = in.find("\r\n\r\n");
    if (end != std::string::npos) {
      std::size_t length = 0;
      std::size_t cl = in.find("\r\nContent-Length: ");
      if (cl != std::string::npos && cl < end) length = std::stoul(in.substr(cl + 18));
      if (in.size() >= end + 4 + length) {
        std::string request = in.substr(0, end + 4 + length);
        in.erase(0, request.size());
        std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: " +
                            std::to_string(request.size()) + "\r\n\r\n" + request;
        ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
        continue;
      }
    }
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    in.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
}

class ProxyTest : public ::testing::Test {
 protected:
  void Start(ProxyConfig config = {}) {
    config.listen = config.listen == "127.0.0.1:3128" ? "127.0.0.1:0" : config.listen;
    config.threads = 2;
    if (config.rules.allowed_domains.empty()) {
      config.rules.allowed_domains = {"origin.test:" + std::to_string(origin_.port()),
                                      "rebind.test:" + std::to_string(origin_.port()),
                                      "web.test:" + std::to_string(web_.port())};
    }
    if (config.rules.allow_addresses.empty()) config.rules.allow_addresses = {"127.0.0.2"};
    config.log = [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      log_.emplace_back(line);
    };
    resolver_->answers["origin.test"] = {"127.0.0.2"};
    resolver_->answers["web.test"] = {"127.0.0.2"};
    resolver_->answers["rebind.test"] = {"93.184.216.34", "127.0.0.1"};
    auto proxy = ProxyStarter::Start(config, {resolver_, clock_});
    ASSERT_TRUE(proxy.ok()) << proxy.error().message;
    proxy_ = std::move(*proxy);
  }
  // The proxy logs through this fixture until it stops: stop it first.
  void TearDown() override {
    if (proxy_) proxy_->Stop();
  }
  std::string Log() {
    std::lock_guard lock(mutex_);
    std::string all;
    for (const auto& l : log_) all += l + "\n";
    return all;
  }
  std::string OriginTarget() { return "origin.test:" + std::to_string(origin_.port()); }
  std::string WebTarget() { return "web.test:" + std::to_string(web_.port()); }

  LoopbackOrigin origin_{ServeEcho};
  LoopbackOrigin web_{ServeHttpEcho};
  std::shared_ptr<FakeResolver> resolver_ = std::make_shared<FakeResolver>();
  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::unique_ptr<Proxy> proxy_;
  std::mutex mutex_;
  std::vector<std::string> log_;
};

TEST_F(ProxyTest, ConnectTunnelsBytes) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  EXPECT_EQ(ReadUntil(c.get(), "\r\n\r\n"), "HTTP/1.1 200 Connection established\r\n\r\n");
  Send(c.get(), "not tls, just bytes");
  EXPECT_EQ(ReadUntil(c.get(), "bytes"), "not tls, just bytes");
  c.Reset();
  proxy_->Stop();
  EXPECT_NE(Log().find("\"decision\":\"allow\""), std::string::npos) << Log();
}

// Enough bytes for the relay buffers to grow to their largest, both ways at
// once, every byte checked.
TEST_F(ProxyTest, TunnelCarriesBulkBytesIntact) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  ASSERT_EQ(ReadUntil(c.get(), "\r\n\r\n"), "HTTP/1.1 200 Connection established\r\n\r\n");
  std::string data(8 << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
  data[0] = 'x';  // not a TLS record, so nothing waits for a ClientHello
  std::thread writer([&] {
    for (std::size_t off = 0; off < data.size();) {
      ssize_t n = ::send(c.get(), data.data() + off,
                         std::min<std::size_t>(data.size() - off, 1 << 20), MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<std::size_t>(n);
    }
  });
  std::string back;
  back.reserve(data.size());
  char buf[65536];
  while (back.size() < data.size()) {
    ssize_t n = ::read(c.get(), buf, sizeof buf);
    if (n <= 0) break;
    back.append(buf, static_cast<std::size_t>(n));
  }
  writer.join();
  ASSERT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data) << "the tunnel changed the bytes";
}

TEST_F(ProxyTest, RefusalNamesTheHostAndTheLine) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "CONNECT elsewhere.test:443 HTTP/1.1\r\nHost: elsewhere.test:443\r\n\r\n");
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 403 Forbidden\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("X-Corral-Error: not-allowed"), std::string::npos);
  EXPECT_NE(reply.find("add 'elsewhere.test' to network.allowed_domains"), std::string::npos)
      << reply;
  EXPECT_NE(Log().find("\"decision\":\"deny\""), std::string::npos);
}

TEST_F(ProxyTest, EveryAnswerIsChecked) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  std::string target = "rebind.test:" + std::to_string(origin_.port());
  Send(c.get(), "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
  std::string reply = ReadUntil(c.get());
  EXPECT_NE(reply.find("403"), std::string::npos) << reply;
  EXPECT_NE(reply.find("X-Corral-Error: address-refused"), std::string::npos) << reply;
  EXPECT_NE(reply.find("127.0.0.1"), std::string::npos) << reply;
}

TEST_F(ProxyTest, HostHeaderMustAgree) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "GET http://" + OriginTarget() + "/ HTTP/1.1\r\nHost: evil.test\r\n\r\n");
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply;
  EXPECT_NE(reply.find("host-mismatch"), std::string::npos) << reply;
}

TEST_F(ProxyTest, TokenRequired) {
  ProxyConfig config;
  config.token = "s3cret";
  Start(config);
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 407", 0), 0u) << reply;
  EXPECT_NE(reply.find("Proxy-Authenticate: Basic"), std::string::npos);
  c = ConnectTcp(proxy_->port());
  // "any:s3cret"
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() +
                    "\r\nProxy-Authorization: Basic YW55OnMzY3JldA==\r\n\r\n");
  EXPECT_EQ(ReadUntil(c.get(), "\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
  c = ConnectTcp(proxy_->port());
  // "any:s3cre"
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() +
                    "\r\nProxy-Authorization: Basic YW55OnMzY3Jl\r\n\r\n");
  EXPECT_EQ(ReadUntil(c.get()).rfind("HTTP/1.1 407", 0), 0u);
}

// The most the relay buffers held while a client pushed 8 MiB through an
// echo and read nothing back for a while; then every byte must come back.
std::size_t MostHeldByAStalledTunnel(Proxy& proxy, const std::string& target) {
  UniqueFd c = ConnectTcp(proxy.port());
  Send(c.get(), "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
  EXPECT_EQ(ReadUntil(c.get(), "\r\n\r\n"), "HTTP/1.1 200 Connection established\r\n\r\n");
  std::string data(8 << 20, 'y');
  std::thread writer([&] {
    for (std::size_t off = 0; off < data.size();) {
      ssize_t n = ::send(c.get(), data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<std::size_t>(n);
    }
  });
  std::size_t most = 0;
  for (int i = 0; i < 50; ++i) {  // nobody reads for 0.5 s: the buffers fill
    most = std::max(most, proxy.relay_bytes());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::size_t back = 0;
  char buf[65536];
  while (back < data.size()) {
    ssize_t n = ::read(c.get(), buf, sizeof buf);
    if (n <= 0) break;
    back += static_cast<std::size_t>(n);
    most = std::max(most, proxy.relay_bytes());
  }
  writer.join();
  EXPECT_EQ(back, data.size());
  return most;
}

TEST_F(ProxyTest, RelayBuffersStayWithinTheirBudget) {
  ProxyConfig config;
  config.limits.relay_budget_bytes = 64 * 1024;
  Start(config);
  EXPECT_LE(MostHeldByAStalledTunnel(*proxy_, OriginTarget()), 64u * 1024);
  proxy_->Stop();
  Start();  // the default budget: the same transfer grows the buffers past it
  EXPECT_GT(MostHeldByAStalledTunnel(*proxy_, OriginTarget()), 64u * 1024);
}

TEST_F(ProxyTest, TunnelCap) {
  ProxyConfig config;
  config.limits.max_tunnels = 1;
  Start(config);
  UniqueFd first = ConnectTcp(proxy_->port());
  Send(first.get(),
       "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  EXPECT_EQ(ReadUntil(first.get(), "\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
  UniqueFd second = ConnectTcp(proxy_->port());
  Send(second.get(),
       "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  std::string reply = ReadUntil(second.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 429", 0), 0u) << reply;
  first.Reset();
  // The slot frees once the first tunnel is torn down.
  for (int i = 0; i < 50; ++i) {
    UniqueFd third = ConnectTcp(proxy_->port());
    Send(third.get(),
         "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
    if (ReadUntil(third.get(), "\r\n\r\n").rfind("HTTP/1.1 200", 0) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "tunnel slot never freed";
}

TEST_F(ProxyTest, SlowHeadGets408) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "GET http://" + OriginTarget() + "/ HTTP/1.1\r\nHo");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  clock_->offset_ms += 11'000;
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 408", 0), 0u) << reply;
}

// network.head_timeout_seconds reaches the running proxy through FromPolicy.
TEST_F(ProxyTest, HeadTimeoutComesFromThePolicy) {
  policy::NetworkPolicy network;
  network.head_timeout_seconds = 30;
  ProxyConfig config = FromPolicy(network);
  EXPECT_EQ(config.limits.head_timeout, std::chrono::seconds(30));
  Start(config);
  UniqueFd c = ConnectTcp(proxy_->port());
  timeval short_wait{0, 300'000};
  setsockopt(c.get(), SOL_SOCKET, SO_RCVTIMEO, &short_wait, sizeof short_wait);
  Send(c.get(), "GET http://" + OriginTarget() + "/ HTTP/1.1\r\nHo");
  std::this_thread::sleep_for(std::chrono::milliseconds(150));  // accepted at the real time
  clock_->offset_ms += 20'000;  // past the built-in 10 s, within the policy's 30 s
  char byte;
  EXPECT_EQ(::read(c.get(), &byte, 1), -1) << "answered before the policy's head timeout";
  clock_->offset_ms += 11'000;
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 408", 0), 0u) << reply;
}

// A minimal TLS record holding a ClientHello that names `name`.
std::string ClientHello(const std::string& name) {
  std::string sni = std::string("\x00\x00", 2) + char(0) + char(name.size() + 5) + char(0) +
                    char(name.size() + 3) + char(0) + char(0) + char(name.size()) + name;
  std::string body = std::string("\x03\x03", 2) + std::string(32, 'r') + char(0) +
                     std::string("\x00\x02\x13\x01", 4) + std::string("\x01\x00", 2) + char(0) +
                     char(sni.size()) + sni;
  std::string hs = std::string(1, '\x01') + char(0) + char(0) + char(body.size()) + body;
  return std::string("\x16\x03\x01", 3) + char(0) + char(hs.size()) + hs;
}

TEST_F(ProxyTest, SniMismatchClosesTheTunnel) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  ASSERT_EQ(ReadUntil(c.get(), "\r\n\r\n").rfind("HTTP/1.1 200", 0), 0u);
  Send(c.get(), ClientHello("other.test"));
  EXPECT_EQ(ReadUntil(c.get()), "");  // closed, nothing echoed
  EXPECT_NE(Log().find("sni-mismatch"), std::string::npos) << Log();
}

TEST_F(ProxyTest, ReloadSwapsTheLists) {
  Start();
  RuleLists lists;
  lists.allowed_domains = {"other.test"};
  ASSERT_TRUE(proxy_->Reload(lists).ok());
  UniqueFd c = ConnectTcp(proxy_->port());
  Send(c.get(), "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n");
  EXPECT_EQ(ReadUntil(c.get()).rfind("HTTP/1.1 403", 0), 0u);
  lists.allowed_domains = {"*"};
  EXPECT_FALSE(proxy_->Reload(lists).ok());
}

// Allowing loopback and the proxy's own port must not let a request loop
// back into the proxy, whichever spelling of the address the name gives.
TEST_F(ProxyTest, NeverDialsItselfUnderAnotherSpelling) {
  ProxyConfig config;
  config.listen = "0.0.0.0:0";
  Start(config);
  std::string port = std::to_string(proxy_->port());
  RuleLists lists;
  lists.allowed_domains = {"mapped.test:" + port, "other-loopback.test:" + port,
                           "zero.test:" + port};
  lists.allow_addresses = {"127.0.0.0/8", "::ffff:127.0.0.0/104", "0.0.0.0"};
  ASSERT_TRUE(proxy_->Reload(lists).ok());
  resolver_->answers["mapped.test"] = {"::ffff:127.0.0.1"};
  resolver_->answers["other-loopback.test"] = {"127.0.0.9"};
  resolver_->answers["zero.test"] = {"0.0.0.0"};
  for (const char* name : {"mapped.test", "other-loopback.test", "zero.test"}) {
    UniqueFd c = ConnectTcp(proxy_->port());
    std::string target = std::string(name) + ":" + port;
    Send(c.get(), "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
    std::string reply = ReadUntil(c.get());
    EXPECT_EQ(reply.rfind("HTTP/1.1 403", 0), 0u) << name << ": " << reply;
    EXPECT_NE(reply.find("X-Corral-Error: self"), std::string::npos) << name << ": " << reply;
  }
}

TEST_F(ProxyTest, UnixSocketIsPrivate) {
  ProxyConfig config;
  std::string path = ::testing::TempDir() + "corral-proxy-test.sock";
  config.listen = "unix:" + path;
  Start(config);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(proxy_->address(), "unix:" + path);
  proxy_->Stop();
  EXPECT_NE(::stat(path.c_str(), &st), 0);
}

// A client waiting for the socket (the box's shim waits for the sidecar's)
// must find it ready: the path appears only once it has its mode and
// listens, never bound but refusing. A watcher spins on the path while the
// proxy starts, many times; a stale socket at the path is replaced.
TEST_F(ProxyTest, UnixSocketAppearsOnlyWhenReady) {
  std::string path = ::testing::TempDir() + "corral-proxy-ready-" + std::to_string(::getpid()) + ".sock";
  ::unlink(path.c_str());
  int seen_early = 0, refused = 0;
  ino_t stale_inode = 0;  // a stale socket left at the path is not the new one
  for (int round = 0; round < 40; ++round) {
    std::atomic<bool> stop{false};
    std::thread watcher([&] {
      struct stat st {};
      while (!stop && (::stat(path.c_str(), &st) != 0 || st.st_ino == stale_inode)) {
      }
      if (stop) return;
      if ((st.st_mode & 0777) != 0600) ++seen_early;
      sockaddr_un sun{};
      sun.sun_family = AF_UNIX;
      std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
      UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
      if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&sun), sizeof sun) != 0) ++refused;
    });
    ProxyConfig config;
    config.listen = "unix:" + path;
    Start(config);
    stop = true;
    watcher.join();
    proxy_->Stop();
    if (round % 2 == 0) {  // leave a stale socket for the next round to replace
      sockaddr_un sun{};
      sun.sun_family = AF_UNIX;
      std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
      UniqueFd stale(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
      ASSERT_EQ(::bind(stale.get(), reinterpret_cast<sockaddr*>(&sun), sizeof sun), 0);
      struct stat st {};
      ASSERT_EQ(::stat(path.c_str(), &st), 0);
      stale_inode = st.st_ino;
    } else {
      stale_inode = 0;
    }
  }
  EXPECT_EQ(seen_early, 0) << "the path was there before its mode was set";
  EXPECT_EQ(refused, 0) << "the path was there before the socket listened";
  EXPECT_NE(::access((path + ".making").c_str(), F_OK), 0) << "no temporary name is left";
  ::unlink(path.c_str());
}

TEST_F(ProxyTest, ForwardsPlainHttpWithCanonicalHost) {
  ProxyConfig config;
  Start(config);
  UniqueFd c = ConnectTcp(proxy_->port());
  // The echo origin sends our forwarded request back; it is not HTTP, so
  // read what the proxy forwarded from the 502 path instead: use CONNECT-less
  // check through the log of bytes_up.
  Send(c.get(),
       "GET http://ORIGIN.test.:" + std::to_string(origin_.port()) +
           "/x HTTP/1.1\r\nHost: origin.test:" + std::to_string(origin_.port()) +
           "\r\nProxy-Authorization: Basic eDp5\r\nConnection: close, X-Drop\r\nX-Drop: 1\r\n\r\n");
  std::string reply = ReadUntil(c.get());
  // The origin echoes the forwarded head, which is not a valid response.
  EXPECT_EQ(reply.rfind("HTTP/1.1 502", 0), 0u) << reply;
}

// curl sends a small body in the head's segment: its bytes are the body's,
// whatever they are, and not checked as head lines.
TEST_F(ProxyTest, BodyInTheHeadsSegmentMayHoldAnyByte) {
  Start();
  UniqueFd c = ConnectTcp(proxy_->port());
  std::string body = "line one\nline two\rthree\n";
  Send(c.get(), "POST http://" + WebTarget() + "/form HTTP/1.1\r\nHost: " + WebTarget() +
                    "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  EXPECT_NE(reply.find("\r\n\r\n" + body), std::string::npos) << reply;
}

// A control request the origin must see, sent after a request the proxy
// refused: connections are counted in accept order, so had the refused one
// been dialed (even without a byte sent), the count would be one higher.
void ExpectOnlyTheControlReachedTheOrigin(Proxy& proxy, const LoopbackOrigin& web, const std::string& target,
                                          int accepted_before, const std::string& what) {
  UniqueFd c = ConnectTcp(proxy.port());
  Send(c.get(), "GET http://" + target + "/control HTTP/1.1\r\nHost: " + target + "\r\nConnection: close\r\n\r\n");
  std::string reply = ReadUntil(c.get());
  EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << what << ": control: " << reply;
  EXPECT_EQ(web.accepted(), accepted_before + 1) << what << ": the refused request reached the origin";
}

// "0443" is 443 to some parsers and octal 291 to others: a port is plain
// decimal without leading zeros, or the request is refused before anything
// is dialed. The origin listens on a four-digit port, so "0" + port is no
// longer than a port may be.
TEST_F(ProxyTest, PortsAreRefusedUnlessPlainDecimal) {
  LoopbackOrigin low(ServeHttpEcho, /*four_digit_port=*/true);
  ASSERT_LT(low.port(), 10000);
  Start();
  std::string port = std::to_string(low.port());
  RuleLists lists;
  lists.allowed_domains = {"low.test:" + port};
  lists.allow_addresses = {"127.0.0.2"};
  ASSERT_TRUE(proxy_->Reload(lists).ok());
  resolver_->answers["low.test"] = {"127.0.0.2"};
  for (std::string spelling : {"0" + port, "+" + port, "0x" + port, port + ".0", std::string("")}) {
    for (bool connect : {true, false}) {
      std::string target = "low.test:" + spelling;
      int accepted_before = low.accepted();
      UniqueFd c = ConnectTcp(proxy_->port());
      Send(c.get(), connect ? "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n"
                            : "GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\n\r\n");
      std::string reply = ReadUntil(c.get());
      EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << target << ": " << reply;
      EXPECT_NE(reply.find("X-Corral-Error: bad-target"), std::string::npos) << target << ": " << reply;
      ExpectOnlyTheControlReachedTheOrigin(*proxy_, low, "low.test:" + port, accepted_before, target);
    }
  }
}

// Body bytes that came with the head are judged before dialing: the origin
// must never see a request that the proxy then refuses.
TEST_F(ProxyTest, MalformedBodyWithTheHeadNeverReachesTheOrigin) {
  Start();
  std::string head = "POST http://" + WebTarget() + "/upload HTTP/1.1\r\nHost: " + WebTarget() + "\r\n";
  std::string chunked = head + "Transfer-Encoding: chunked\r\n\r\n";
  struct Case {
    const char* name;
    std::string request;
    bool client_stops_sending;  // shutdown(SHUT_WR) after the request
  };
  const Case cases[] = {
      {"chunk size overflows", chunked + "10000000000000000\r\n", false},
      {"chunk size not hex", chunked + "zz\r\n", false},
      {"chunk size empty", chunked + "\r\n", false},
      {"second chunk malformed", chunked + "5\r\nhello\r\n-1\r\n", false},
      {"chunk data without CRLF", chunked + "5\r\nhelloXX", false},
      {"framing in a trailer", chunked + "0\r\nContent-Length: 5\r\n\r\n", false},
      {"chunked body cut short", chunked + "5\r\nhel", true},
      {"Content-Length body cut short", head + "Content-Length: 10\r\n\r\nabc", true},
  };
  for (const Case& c : cases) {
    int accepted_before = web_.accepted();
    UniqueFd fd = ConnectTcp(proxy_->port());
    // Corked, the request and the FIN leave in one segment: the proxy reads
    // the end of the client's data with the head, not a moment later.
    int cork = c.client_stops_sending ? 1 : 0;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_CORK, &cork, sizeof cork);
    Send(fd.get(), c.request);
    if (c.client_stops_sending) ::shutdown(fd.get(), SHUT_WR);
    std::string reply = ReadUntil(fd.get());
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << c.name << ": " << reply;
    EXPECT_NE(reply.find("X-Corral-Error: bad-request"), std::string::npos) << c.name << ": " << reply;
    ExpectOnlyTheControlReachedTheOrigin(*proxy_, web_, WebTarget(), accepted_before, c.name);
  }
}

// A client that sends its ClientHello with the CONNECT, without waiting for
// the 200: a hello the tunnel would refuse is refused before dialing.
TEST_F(ProxyTest, ClientHelloSentWithTheConnectIsJudgedBeforeDialing) {
  Start();
  std::string connect = "CONNECT " + OriginTarget() + " HTTP/1.1\r\nHost: " + OriginTarget() + "\r\n\r\n";
  std::string malformed = ClientHello("origin.test");
  malformed[5] = '\x02';  // a ServerHello where the ClientHello belongs
  const std::pair<const char*, std::string> refused[] = {
      {"sni-mismatch", ClientHello("other.test")},
      {"bad-client-hello", malformed},
  };
  for (const auto& [code, hello] : refused) {
    int accepted_before = origin_.accepted();
    UniqueFd c = ConnectTcp(proxy_->port());
    Send(c.get(), connect + hello);
    std::string reply = ReadUntil(c.get());
    EXPECT_EQ(reply.rfind("HTTP/1.1 403", 0), 0u) << code << ": " << reply;
    EXPECT_NE(reply.find(std::string("X-Corral-Error: ") + code), std::string::npos) << reply;
    // The control: a tunnel that is let through; only its connection reached the origin.
    UniqueFd control = ConnectTcp(proxy_->port());
    Send(control.get(), connect + ClientHello("origin.test"));
    // The 200 and the origin's echo of the hello may arrive in one read.
    EXPECT_EQ(ReadUntil(control.get(), "origin.test"),
              "HTTP/1.1 200 Connection established\r\n\r\n" + ClientHello("origin.test"));
    EXPECT_EQ(origin_.accepted(), accepted_before + 1) << code << ": the refused tunnel was dialed";
  }
}

}  // namespace
}  // namespace corral::netfilter
