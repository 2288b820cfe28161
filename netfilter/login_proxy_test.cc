// The proxy ending TLS for a login host, end to end on loopback: real curl
// (and an OpenSSL client where timing matters) through the proxy to TLS
// origins whose certificates come from a CA the test makes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include <brotli/encode.h>
#include <nlohmann/json.hpp>
#include <openssl/pem.h>
#include <sys/resource.h>
#include <zlib.h>

#include "base/subprocess.h"
#include "netfilter/proxy_internal.h"
#include "netfilter/tls/tls.h"

namespace corral::netfilter {
namespace {

const std::string kReal = "sk-real-0123456789abcdef";
const std::string kStandIn = "sk-fake-0123456789abcdef";

class FakeResolver : public Resolver {
 public:
  void Resolve(const std::string&, ResolveCallback done) override {
    done(std::vector<IpAddress>{*ParseIpStrict("127.0.0.2")});
  }
};

// A listening socket on 127.0.0.2, any free port.
UniqueFd ListenLoopback(uint16_t& port) {
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in sin{};
  sin.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.2", &sin.sin_addr);
  ::bind(listener.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin);
  ::listen(listener.get(), 16);
  socklen_t len = sizeof sin;
  getsockname(listener.get(), reinterpret_cast<sockaddr*>(&sin), &len);
  port = ntohs(sin.sin_port);
  return listener;
}

// A plain HTTP origin on 127.0.0.2: one request per connection (head and
// Content-Length body), echoed back with Content-Length.
class PlainOrigin {
 public:
  PlainOrigin() {
    listener_ = ListenLoopback(port_);
    thread_ = std::thread([this] {
      int fd;
      while ((fd = ::accept(listener_.get(), nullptr, nullptr)) >= 0) {
        ++accepted_;
        std::string in;
        char buf[4096];
        ssize_t n;
        while (in.find("\r\n\r\n") == std::string::npos && (n = ::read(fd, buf, sizeof buf)) > 0) {
          in.append(buf, static_cast<std::size_t>(n));
        }
        {
          std::lock_guard lock(mutex_);
          received_ += in;
        }
        std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(in.size()) + "\r\n\r\n" + in;
        ::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
        ::close(fd);
      }
    });
  }
  ~PlainOrigin() {
    ::shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  std::string received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  UniqueFd listener_;
  uint16_t port_ = 0;
  std::thread thread_;
  std::atomic<int> accepted_{0};
  std::mutex mutex_;
  std::string received_;
};

// A TLS origin on 127.0.0.2 with `leaf`: one thread per connection, one
// request per connection, answered by `handler` (SSL, the request's bytes).
class TlsOrigin {
 public:
  using Handler = std::function<void(SSL*, const std::string&)>;
  TlsOrigin(Result<std::shared_ptr<const KeyedCert>> leaf, Handler handler) : handler_(std::move(handler)) {
    ctx_.reset(SSL_CTX_new(TLS_server_method()));
    SSL_CTX_use_certificate(ctx_.get(), (*leaf)->cert.get());
    SSL_CTX_use_PrivateKey(ctx_.get(), (*leaf)->key.get());
    listener_ = ListenLoopback(port_);
    thread_ = std::thread([this] {
      while (true) {
        int fd = ::accept(listener_.get(), nullptr, nullptr);
        if (fd < 0) return;
        ++accepted_;
        std::lock_guard lock(mutex_);
        serving_.emplace_back([this, fd] { Serve(fd); });
      }
    });
  }
  // Joins every connection's thread too: one still in OpenSSL as the test
  // program ends would race OpenSSL's exit-time cleanup.
  ~TlsOrigin() {
    ::shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
    for (auto& thread : serving_) thread.join();
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  std::string received() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void Serve(int fd) {
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    SSL* ssl = SSL_new(ctx_.get());
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
      std::string in;
      char buf[4096];
      std::size_t end;
      while ((end = in.find("\r\n\r\n")) == std::string::npos) {
        int n = SSL_read(ssl, buf, sizeof buf);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
      }
      std::size_t cl = in.find("Content-Length: ");
      std::size_t want = end == std::string::npos ? 0 : end + 4 + (cl < end ? std::stoul(in.substr(cl + 16)) : 0);
      while (in.size() < want) {
        int n = SSL_read(ssl, buf, sizeof buf);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
      }
      {
        std::lock_guard lock(mutex_);
        received_ += in;
      }
      handler_(ssl, in);
      SSL_shutdown(ssl);
    }
    SSL_free(ssl);
    ::close(fd);
  }

  Handler handler_;
  SslCtxPtr ctx_;
  UniqueFd listener_;
  uint16_t port_ = 0;
  std::thread thread_;
  std::vector<std::thread> serving_;
  std::atomic<int> accepted_{0};
  std::mutex mutex_;
  std::string received_;
};

void Write(SSL* ssl, std::string_view data) { SSL_write(ssl, data.data(), static_cast<int>(data.size())); }

// Echoes the request, head and body, as a chunked body cut into 7-byte
// chunks: a secret in it is always split across chunks.
void EchoChunked(SSL* ssl, const std::string& request) {
  Write(ssl, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
  std::string body;
  for (std::size_t i = 0; i < request.size(); i += 7) {
    std::string piece = request.substr(i, 7);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    body += size + piece + "\r\n";
  }
  Write(ssl, body + "0\r\n\r\n");
}

// Echoes with Content-Length, and the secret, if any, in a response header.
void EchoLength(SSL* ssl, const std::string& request) {
  std::size_t at = request.find("x-api-key: ");
  std::string key = at == std::string::npos ? "" : request.substr(at + 11, kReal.size());
  Write(ssl, "HTTP/1.1 200 OK\r\nX-Seen-Key: " + key + "\r\nContent-Length: " + std::to_string(request.size()) +
                 "\r\nConnection: close\r\n\r\n" + request);
}

// A TLS client through the proxy: CONNECT, then TLS trusting only `ca_pem`,
// with the server name checked.
class TlsClient {
 public:
  TlsClient(uint16_t proxy_port, const std::string& target, const std::string& ca_pem, const std::string& name) {
    fd_ = UniqueFd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in sin{};
    sin.sin_family = AF_INET;
    sin.sin_port = htons(proxy_port);
    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    timeval tv{5, 0};
    setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (::connect(fd_.get(), reinterpret_cast<sockaddr*>(&sin), sizeof sin) != 0) return;
    std::string connect = "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n";
    ::send(fd_.get(), connect.data(), connect.size(), MSG_NOSIGNAL);
    std::string reply;
    char c;
    while (reply.find("\r\n\r\n") == std::string::npos && ::read(fd_.get(), &c, 1) == 1) reply += c;
    if (reply.rfind("HTTP/1.1 200", 0) != 0) return;
    ctx_.reset(SSL_CTX_new(TLS_client_method()));
    BioPtr bio(BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size())));
    X509Ptr ca(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx_.get()), ca.get());
    SSL_CTX_set_verify(ctx_.get(), SSL_VERIFY_PEER, nullptr);
    ssl_.reset(SSL_new(ctx_.get()));
    SSL_set_fd(ssl_.get(), fd_.get());
    SSL_set_tlsext_host_name(ssl_.get(), name.c_str());
    SSL_set1_host(ssl_.get(), name.c_str());
    connected_ = SSL_connect(ssl_.get()) == 1;
  }
  bool connected() const { return connected_; }
  void Send(std::string_view data) { Write(ssl_.get(), data); }
  // Reads until `until` is in what was read so far (or the end, or 5 s).
  std::string& ReadUntil(std::string_view until) {
    char buf[4096];
    while (in_.find(until) == std::string::npos) {
      int n = SSL_read(ssl_.get(), buf, sizeof buf);
      if (n <= 0) break;
      in_.append(buf, static_cast<std::size_t>(n));
    }
    return in_;
  }
  // One Content-Length-framed response, taken from what was read.
  std::string ReadResponse() {
    ReadUntil("\r\n\r\n");
    std::size_t end = in_.find("\r\n\r\n");
    std::size_t cl = in_.find("Content-Length: ");
    if (end == std::string::npos || cl > end) return "";
    std::size_t size = end + 4 + std::stoul(in_.substr(cl + 16));
    char buf[4096];
    while (in_.size() < size) {
      int n = SSL_read(ssl_.get(), buf, sizeof buf);
      if (n <= 0) break;
      in_.append(buf, static_cast<std::size_t>(n));
    }
    std::string out = in_.substr(0, size);
    in_.erase(0, size);
    return out;
  }

 private:
  UniqueFd fd_;
  SslCtxPtr ctx_;
  SslPtr ssl_;
  bool connected_ = false;
  std::string in_;
};

class LoginProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    test_ca_ = SessionCa::Create("test CA").value();
    forged_ca_ = SessionCa::Create("forged CA").value();
    dir_ = ::testing::TempDir() + "login_proxy_" + std::to_string(::getpid());
    ::mkdir(dir_.c_str(), 0700);
    std::ofstream(dir_ + "/test_ca.pem") << test_ca_->pem();
  }
  void TearDown() override {
    if (proxy_) proxy_->Stop();
  }
  std::string Host(const TlsOrigin& origin, const char* name) { return name + (":" + std::to_string(origin.port())); }

  void Start(std::vector<std::string> allowed, std::vector<std::string> login_hosts,
             const std::function<void(ProxyConfig&)>& more = {}) {
    ProxyConfig config;
    config.listen = "127.0.0.1:0";
    config.threads = 1;
    config.rules.allowed_domains = std::move(allowed);
    config.rules.allow_addresses = {"127.0.0.2"};
    config.logins = {{"test-key", std::move(login_hosts), "x-api-key", "", kReal, kStandIn}};
    config.upstream_ca_file = dir_ + "/test_ca.pem";
    if (more) more(config);
    config.log = [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      log_ += std::string(line) + "\n";
    };
    auto proxy = ProxyStarter::Start(config, {std::make_shared<FakeResolver>(), nullptr});
    ASSERT_TRUE(proxy.ok()) << proxy.error().message;
    proxy_ = std::move(*proxy);
    std::ofstream(dir_ + "/session_ca.pem") << proxy_->ca_pem();
  }
  std::string Log() {
    std::lock_guard lock(mutex_);
    return log_;
  }
  // The log once it holds `text`, or after 5 s: a decision line is written
  // when its exchange ends, which may be just after the client has its answer.
  std::string LogWith(std::string_view text) {
    for (int i = 0; i < 500; ++i) {
      std::string log = Log();
      if (log.find(text) != std::string::npos) return log;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return Log();
  }
  // curl through the proxy; stdout, then "\n<status> <http version>".
  std::string Curl(std::vector<std::string> args, const std::string& ca = "session_ca.pem") {
    std::vector<std::string> argv = {"curl", "-sS", "--max-time", "5", "--proxy",
                                     "http://127.0.0.1:" + std::to_string(proxy_->port()), "--cacert", dir_ + "/" + ca,
                                     "-w", "\n%{http_code} %{http_version}"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto run = RunCapture(argv, std::chrono::seconds(10));
    return run ? run->out : "curl did not run: " + run.error().message;
  }

  std::unique_ptr<SessionCa> test_ca_, forged_ca_;
  std::string dir_;
  std::unique_ptr<Proxy> proxy_;
  std::mutex mutex_;
  std::string log_;
};

TEST_F(LoginProxyTest, OriginSeesTheRealValueAndTheBoxNeverDoes) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), EchoLength);
  Start({Host(origin, "api.test")}, {Host(origin, "api.test")});
  std::string out = Curl({"-i", "-H", "x-api-key: " + kStandIn, "--data", "{\"q\":1}",
                          "https://" + Host(origin, "api.test") + "/v1/messages"});
  EXPECT_NE(out.find("\n200 1.1"), std::string::npos) << out;
  EXPECT_NE(origin.received().find("x-api-key: " + kReal), std::string::npos) << origin.received();
  EXPECT_EQ(out.find(kReal), std::string::npos) << out;
  EXPECT_NE(out.find("X-Seen-Key: " + kStandIn), std::string::npos) << out;  // the header, hidden too
  EXPECT_NE(out.find("{\"q\":1}"), std::string::npos);
  std::string log = LogWith("\"login\":\"test-key\"");
  EXPECT_NE(log.find("\"login\":\"test-key\""), std::string::npos) << log;
  EXPECT_EQ(log.find(kReal), std::string::npos);
  EXPECT_EQ(log.find(kStandIn), std::string::npos);
}

TEST_F(LoginProxyTest, ServerSentEventsArriveAsTheyAreSent) {
  std::atomic<bool> first_arrived{false}, second_sent_after_first{false};
  TlsOrigin origin(test_ca_->Leaf("api.test"), [&](SSL* ssl, const std::string&) {
    Write(ssl, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
               "b\r\ndata: one\n\n\r\n");
    // Up to 20 s: a loaded machine (the sanitizer build, two cores) took
    // more than the 2 s this waited first. It waits only as long as the
    // first event takes to arrive.
    for (int i = 0; i < 2000 && !first_arrived; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    second_sent_after_first = first_arrived.load();
    Write(ssl, "b\r\ndata: two\n\n\r\n0\r\n\r\n");
  });
  Start({Host(origin, "api.test")}, {Host(origin, "api.test")});
  TlsClient client(proxy_->port(), Host(origin, "api.test"), proxy_->ca_pem(), "api.test");
  ASSERT_TRUE(client.connected());
  client.Send("GET /events HTTP/1.1\r\nHost: " + Host(origin, "api.test") + "\r\nx-api-key: " + kStandIn +
              "\r\n\r\n");
  std::string& got = client.ReadUntil("data: one");
  EXPECT_NE(got.find("data: one"), std::string::npos) << got;
  EXPECT_EQ(got.find("data: two"), std::string::npos) << got;
  first_arrived = true;
  EXPECT_NE(client.ReadUntil("data: two").find("data: two"), std::string::npos);
  EXPECT_TRUE(second_sent_after_first);
}

TEST_F(LoginProxyTest, KeepAliveRequestsOnOneConnectionEachGetTheLogin) {
  std::string second_seen;
  TlsOrigin origin(test_ca_->Leaf("api.test"), [&second_seen](SSL* ssl, const std::string& first) {
    // Two requests on this connection, each echoed with Content-Length.
    std::string request = first;
    for (int i = 0; i < 2; ++i) {
      Write(ssl, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(request.size()) + "\r\n\r\n" + request);
      if (i == 1) break;
      request.clear();
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        int n = SSL_read(ssl, buf, sizeof buf);
        if (n <= 0) return;
        request.append(buf, static_cast<std::size_t>(n));
      }
      second_seen = request;
    }
  });
  Start({Host(origin, "api.test")}, {Host(origin, "api.test")});
  TlsClient client(proxy_->port(), Host(origin, "api.test"), proxy_->ca_pem(), "api.test");
  ASSERT_TRUE(client.connected());
  std::string request = "GET / HTTP/1.1\r\nHost: api.test:" + std::to_string(origin.port()) +
                        "\r\nx-api-key: " + kStandIn + "\r\n\r\n";
  client.Send(request);
  std::string first = client.ReadResponse();
  client.Send(request);
  std::string second = client.ReadResponse();
  for (const std::string& got : {first, second}) {
    EXPECT_NE(got.find("x-api-key: " + kStandIn), std::string::npos) << got;
    EXPECT_EQ(got.find(kReal), std::string::npos) << got;
  }
  EXPECT_NE(origin.received().find("x-api-key: " + kReal), std::string::npos);
  EXPECT_NE(second_seen.find("x-api-key: " + kReal), std::string::npos) << second_seen;
  EXPECT_EQ(origin.accepted(), 1);
}

TEST_F(LoginProxyTest, RealValueSplitAcrossChunksIsHidden) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), EchoChunked);
  Start({Host(origin, "api.test")}, {Host(origin, "api.test")});
  std::string out = Curl({"-H", "x-api-key: " + kStandIn, "https://" + Host(origin, "api.test") + "/"});
  EXPECT_NE(out.find("x-api-key: " + kStandIn), std::string::npos) << out;
  EXPECT_EQ(out.find(kReal), std::string::npos) << out;
}

// A subscription login's refresh: the box sends its refresh token's
// stand-in; the token endpoint gets the real one and answers with new real
// tokens; the box gets new stand-ins, the host the real tokens, and the new
// access token's stand-in then works against the API.
TEST_F(LoginProxyTest, TokenRefreshKeepsTheNewTokensOutOfTheBox) {
  const std::string refresh_real = "rt-real-0123456789abcdefABCDEF";
  const std::string refresh_stand_in = "rt-fake-9876543210fedcbaFEDCBA";
  const std::string new_access = "sk-ant-oat01-NEWaccess0123456789abcdef";
  const std::string new_refresh = "sk-ant-ort01-NEWrefresh0123456789abcdef";
  std::mutex seen_mutex;
  std::vector<std::string> seen;  // the requests as the origin got them
  TlsOrigin origin(test_ca_->Leaf("api.test"), [&](SSL* ssl, const std::string& request) {
    {
      std::lock_guard lock(seen_mutex);
      seen.push_back(request);
    }
    std::string body = request.find("POST /v1/oauth/token") == 0
                           ? "{\"token_type\":\"Bearer\",\"access_token\":\"" + new_access +
                                 "\",\"refresh_token\":\"" + new_refresh + "\",\"expires_in\":28800}"
                           : "{\"ok\":true}";
    Write(ssl, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  });
  std::string host = Host(origin, "api.test");
  std::vector<TokenUpdate> updates;
  Start({host}, {host}, [&](ProxyConfig& config) {
    config.logins.push_back({"refresh", {host}, "", "", refresh_real, refresh_stand_in, /*in_body=*/true});
    TokenEndpoint endpoint{"subscription", {host}, "/v1/oauth/token", {}};
    endpoint.fields.push_back({"access_token", {"access", {host}, "Authorization", "Bearer ", "", "", false}});
    endpoint.fields.push_back({"refresh_token", {"refresh", {host}, "", "", "", "", true}});
    config.token_endpoints = {endpoint};
    config.on_tokens = [&](const TokenUpdate& update) { updates.push_back(update); };
  });
  std::string answer = Curl({"-H", "Accept-Encoding: gzip", "-H", "Content-Type: application/json", "--data",
                             "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"" + refresh_stand_in + "\"}",
                             "https://" + host + "/v1/oauth/token"});
  ASSERT_NE(answer.find("\n200"), std::string::npos) << answer;
  EXPECT_EQ(answer.find(new_access), std::string::npos) << answer;
  EXPECT_EQ(answer.find(new_refresh), std::string::npos) << answer;
  auto json = nlohmann::json::parse(answer.substr(0, answer.rfind('\n')));
  std::string access_stand_in = json["access_token"];
  ASSERT_EQ(access_stand_in.size(), new_access.size());
  EXPECT_EQ(access_stand_in.substr(0, 13), "sk-ant-oat01-");  // the same shape
  EXPECT_NE(access_stand_in, new_access);
  EXPECT_EQ(json["expires_in"], 28800);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].endpoint, "subscription");
  EXPECT_EQ(updates[0].tokens["access_token"], new_access);
  EXPECT_EQ(updates[0].tokens["refresh_token"], new_refresh);
  EXPECT_EQ(updates[0].expires_in, 28800);

  answer = Curl({"-H", "Authorization: Bearer " + access_stand_in, "https://" + host + "/v1/messages"});
  EXPECT_NE(answer.find("\n200"), std::string::npos) << answer;
  std::lock_guard lock(seen_mutex);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_NE(seen[0].find("\"refresh_token\":\"" + refresh_real + "\""), std::string::npos) << seen[0];
  EXPECT_EQ(seen[0].find(refresh_stand_in), std::string::npos) << seen[0];
  EXPECT_EQ(seen[0].find("gzip"), std::string::npos) << seen[0];  // the answer must be readable
  EXPECT_NE(seen[1].find("Authorization: Bearer " + new_access), std::string::npos) << seen[1];
}

// An answer whose token is written with a JSON escape cannot have it
// replaced in place: it never reaches the box.
TEST_F(LoginProxyTest, ATokenThatCannotBeReplacedStopsTheAnswer) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), [](SSL* ssl, const std::string&) {
    std::string body = "{\"access_token\":\"sk-ant-oat01-ABCDEF\\u0030123456789abcdef\"}";
    Write(ssl, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                   "\r\nConnection: close\r\n\r\n" + body);
  });
  std::string host = Host(origin, "api.test");
  Start({host}, {host}, [&](ProxyConfig& config) {
    TokenEndpoint endpoint{"subscription", {host}, "/oauth/token", {}};
    endpoint.fields.push_back({"access_token", {"access", {host}, "Authorization", "Bearer ", "", "", false}});
    config.token_endpoints = {endpoint};
  });
  std::string answer = Curl({"--data", "{}", "https://" + host + "/oauth/token?x=1"});
  EXPECT_EQ(answer.find("0123456789abcdef"), std::string::npos) << answer;
  std::string log = LogWith("could not be replaced");
  EXPECT_NE(log.find("could not be replaced"), std::string::npos) << log;
}

TEST_F(LoginProxyTest, ForgedUpstreamCertificateIsRefused) {
  TlsOrigin forged(forged_ca_->Leaf("api.test"), EchoLength);
  Start({Host(forged, "api.test")}, {Host(forged, "api.test")});
  std::string out = Curl({"-H", "x-api-key: " + kStandIn, "https://" + Host(forged, "api.test") + "/"});
  EXPECT_EQ(out.find("\n200"), std::string::npos) << out;
  EXPECT_EQ(forged.received(), "");  // not a request byte reached it
  std::string log = LogWith("upstream-tls");
  EXPECT_NE(log.find("upstream-tls"), std::string::npos) << log;
  EXPECT_NE(log.find("\"status\":502"), std::string::npos) << log;
}

TEST_F(LoginProxyTest, OtherHostsStayTunnelsWithTheOriginsOwnCertificate) {
  TlsOrigin login(test_ca_->Leaf("api.test"), EchoLength);
  TlsOrigin other(test_ca_->Leaf("tunnel.test"), EchoLength);
  Start({Host(login, "api.test"), Host(other, "tunnel.test")}, {Host(login, "api.test")});
  // Trusting only the test CA works for the tunnel: the client sees the origin's certificate.
  std::string out = Curl({"https://" + Host(other, "tunnel.test") + "/"}, "test_ca.pem");
  EXPECT_NE(out.find("\n200 1.1"), std::string::npos) << out;
  out = Curl({"https://" + Host(other, "tunnel.test") + "/"}, "session_ca.pem");
  EXPECT_EQ(out.find("\n200"), std::string::npos) << out;
}

TEST_F(LoginProxyTest, StandInToAnotherHostOverPlainHttpNeverArrives) {
  TlsOrigin login(test_ca_->Leaf("api.test"), EchoLength);
  PlainOrigin plain;
  std::string other = "other.test:" + std::to_string(plain.port());
  Start({Host(login, "api.test"), other}, {Host(login, "api.test")});
  std::string header = Curl({"-H", "x-api-key: " + kStandIn, "http://" + other + "/"});
  std::string url = Curl({"http://" + other + "/?key=" + kStandIn});
  std::string body = Curl({"--data", "{\"key\":\"" + kStandIn + "\"}", "http://" + other + "/"});
  for (const std::string& out : {header, url, body}) EXPECT_NE(out.find("\n403"), std::string::npos) << out;
  EXPECT_EQ(plain.accepted(), 0);
  std::string log = LogWith("\"credential\":\"credential-to-wrong-host\"");
  EXPECT_NE(log.find("\"credential\":\"credential-to-wrong-host\""), std::string::npos) << log;
  EXPECT_EQ(log.find(kStandIn), std::string::npos) << log;
}

// Bodies the loop does not read whole, chunked or large, are scanned as
// they go: a stand-in in one never reaches another host.
TEST_F(LoginProxyTest, StandInInAChunkedOrLargeBodyToAnotherHostIsRefused) {
  TlsOrigin login(test_ca_->Leaf("api.test"), EchoLength);
  PlainOrigin plain;
  std::string other = "other.test:" + std::to_string(plain.port());
  Start({Host(login, "api.test"), other}, {Host(login, "api.test")});
  std::string chunked = Curl({"-H", "Transfer-Encoding: chunked", "--data-binary",
                              std::string(3000, 'a') + kStandIn, "http://" + other + "/chunked"});
  std::string large = Curl({"--data-binary", std::string(100 * 1024, 'b') + kStandIn, "http://" + other + "/large"});
  EXPECT_NE(chunked.find("\n403"), std::string::npos) << chunked;
  EXPECT_NE(large.find("\n403"), std::string::npos) << large.substr(large.size() - 200);
  EXPECT_EQ(plain.received().find(kStandIn), std::string::npos);
  std::string log = LogWith("credential-to-wrong-host");
  EXPECT_NE(log.find("\"credential\":\"credential-to-wrong-host\""), std::string::npos) << log;
  // Without a stand-in, a chunked body goes through.
  std::string clean = Curl({"-H", "Transfer-Encoding: chunked", "--data-binary", "hello", "http://" + other + "/ok"});
  EXPECT_NE(clean.find("\n200"), std::string::npos) << clean;
}

TEST_F(LoginProxyTest, SmallBodyAfterExpectContinueIsNotDelayed) {
  PlainOrigin plain;
  std::string other = "other.test:" + std::to_string(plain.port());
  Start({other}, {"api.test:443"});
  auto start = std::chrono::steady_clock::now();
  std::string out = Curl({"-H", "Expect: 100-continue", "--expect100-timeout", "3", "--data",
                          std::string(2000, 'a'), "http://" + other + "/"});
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_NE(out.find("\n200"), std::string::npos) << out;
  EXPECT_LT(took, std::chrono::milliseconds(1500));  // not curl's 3 s wait for a 100
}

TEST_F(LoginProxyTest, PlainHttpToALoginHostGetsTheLoginToo) {
  PlainOrigin plain;
  std::string local = "local.test:" + std::to_string(plain.port());
  Start({local}, {local});
  std::string out = Curl({"-H", "x-api-key: " + kStandIn, "http://" + local + "/v1/models"});
  EXPECT_NE(out.find("\n200 1.1"), std::string::npos) << out;
  EXPECT_NE(out.find("x-api-key: " + kStandIn), std::string::npos) << out;  // the echo, hidden again
  EXPECT_EQ(out.find(kReal), std::string::npos) << out;
  EXPECT_NE(plain.received().find("x-api-key: " + kReal), std::string::npos) << plain.received();
  EXPECT_NE(LogWith("\"login\":\"test-key\"").find("\"login\":\"test-key\""), std::string::npos)
      << Log();
}

TEST_F(LoginProxyTest, TraceIsRefusedOnEveryPath) {
  TlsOrigin login(test_ca_->Leaf("api.test"), EchoLength);
  Start({Host(login, "api.test"), "plain.test:80"}, {Host(login, "api.test")});
  std::string tls = Curl({"-X", "TRACE", "https://" + Host(login, "api.test") + "/"});
  std::string plain = Curl({"-X", "TRACE", "http://plain.test/"});
  EXPECT_NE(tls.find("\n405"), std::string::npos) << tls;
  EXPECT_NE(plain.find("\n405"), std::string::npos) << plain;
  EXPECT_EQ(login.received(), "");
}

TEST_F(LoginProxyTest, Http2ClientFallsBackToHttp11) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), EchoLength);
  Start({Host(origin, "api.test")}, {Host(origin, "api.test")});
  std::string out = Curl({"--http2", "-H", "x-api-key: " + kStandIn, "https://" + Host(origin, "api.test") + "/"});
  EXPECT_NE(out.find("\n200 1.1"), std::string::npos) << out;
}

// The login host may see its own stand-in anywhere: it is no secret there
// (an agent sends its model what `env` printed). Only its header gets the
// real value.
TEST_F(LoginProxyTest, OwnStandInElsewhereGoesToItsHostAsItIs) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), EchoLength);
  Start({Host(origin, "api.test")}, {Host(origin, "api.test")});
  std::string out = Curl({"-H", "authorization: Bearer " + kStandIn,
                          "https://" + Host(origin, "api.test") + "/"});
  EXPECT_NE(out.find("\n200"), std::string::npos) << out;
  out = Curl({"--data", "k=" + kStandIn, "https://" + Host(origin, "api.test") + "/"});
  EXPECT_NE(out.find("\n200"), std::string::npos) << out;
  EXPECT_NE(origin.received().find("authorization: Bearer " + kStandIn), std::string::npos)
      << origin.received();
  EXPECT_NE(origin.received().find("k=" + kStandIn), std::string::npos) << origin.received();
  EXPECT_EQ(origin.received().find(kReal), std::string::npos) << origin.received();
  EXPECT_EQ(Log().find("credential"), std::string::npos) << Log();
}

// ---------------------------------------------------------------- compressed responses

// zlib with `window`: 15 + 16 gzip, 15 zlib (HTTP's deflate).
std::string Deflate(std::string_view data, int window) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, window, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Brotli(std::string_view data) {
  std::string out(BrotliEncoderMaxCompressedSize(data.size()) + 64, '\0');
  std::size_t size = out.size();
  BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, data.size(), reinterpret_cast<const uint8_t*>(data.data()),
                        &size, reinterpret_cast<uint8_t*>(out.data()));
  out.resize(size);
  return out;
}

// `data` in the codings named (as Content-Encoding lists them, applied in order).
std::string Encoded(std::string data, const std::string& codings) {
  std::size_t at = 0;
  while (at < codings.size()) {
    std::size_t comma = std::min(codings.find(',', at), codings.size());
    std::string coding = codings.substr(at, comma - at);
    coding.erase(0, coding.find_first_not_of(' '));
    data = coding == "br" ? Brotli(data) : Deflate(data, coding == "deflate" ? 15 : 15 + 16);
    at = comma + 1;
  }
  return data;
}

// Echoes the request compressed as its path names ("/gzip", "/br", "/gzip,br").
void EchoCompressed(SSL* ssl, const std::string& request) {
  std::size_t space = request.find(' ') + 1;
  std::string codings = request.substr(space + 1, request.find(' ', space) - space - 1);
  std::string body = Encoded(request, codings);
  Write(ssl, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: " + codings +
                 "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
}

// git's token on the same host, as Basic credentials: its base64 form is
// echoed too. 24 bytes after "x-access-token:" (15): whole base64 groups.
const std::string kGitReal = "ghp_REALtoken0123456789A";
const std::string kGitFake = "ghp_FAKEtoken9876543210Z";

void AddGitLogin(ProxyConfig& config, const std::string& host) {
  Login git{"GH_TOKEN", {host}, "Authorization", "Basic ", kGitReal, kGitFake};
  git.basic = true;
  config.logins.push_back(git);
}

TEST_F(LoginProxyTest, CompressedEchoesReachTheBoxDecodedWithStandIns) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), EchoCompressed);
  std::string host = Host(origin, "api.test");
  Start({host}, {host}, [&](ProxyConfig& config) { AddGitLogin(config, host); });
  const std::string basic_real = EncodeBase64("x-access-token:" + kGitReal);
  const std::string basic_fake = EncodeBase64("x-access-token:" + kGitFake);
  for (std::string codings : {"gzip", "deflate", "br", "x-gzip", "gzip,br"}) {
    std::string out = Curl({"-i", "-H", "x-api-key: " + kStandIn, "-H", "Authorization: Basic " + basic_fake,
                            "-H", "Accept-Encoding: zstd, br, gzip", "https://" + host + "/" + codings});
    EXPECT_NE(out.find("\n200 1.1"), std::string::npos) << codings << ": " << out;
    EXPECT_NE(out.find("x-api-key: " + kStandIn), std::string::npos) << codings << ": " << out;
    EXPECT_NE(out.find("Authorization: Basic " + basic_fake), std::string::npos) << codings << ": " << out;
    EXPECT_EQ(out.find(kReal), std::string::npos) << codings << ": " << out;
    EXPECT_EQ(out.find(basic_real), std::string::npos) << codings << ": " << out;
    EXPECT_EQ(out.find("Content-Encoding"), std::string::npos) << codings << ": " << out;
    EXPECT_NE(out.find("Transfer-Encoding: chunked"), std::string::npos) << codings << ": " << out;
  }
  std::string received = origin.received();
  EXPECT_NE(received.find("x-api-key: " + kReal), std::string::npos) << received;
  EXPECT_NE(received.find("Authorization: Basic " + basic_real), std::string::npos) << received;
  // Asked only for what the proxy decodes.
  EXPECT_NE(received.find("Accept-Encoding: br, gzip\r\n"), std::string::npos) << received;
  EXPECT_EQ(received.find("zstd"), std::string::npos) << received;
}

// A chunked gzip body whose chunks cut the stream anywhere, and the same to
// an HTTP/1.0 client, which gets the decoded body delimited by the close.
TEST_F(LoginProxyTest, ChunkedGzipAndHttp10Clients) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), [](SSL* ssl, const std::string& request) {
    std::string body = Encoded(request + std::string(5000, 'z') + kReal, "gzip");
    std::string framed;
    for (std::size_t i = 0; i < body.size(); i += 7) {
      std::string piece = body.substr(i, 7);
      char size[16];
      std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
      framed += size + piece + "\r\n";
    }
    Write(ssl, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" + framed +
                   "0\r\n\r\n");
  });
  std::string host = Host(origin, "api.test");
  Start({host}, {host});
  for (std::string version : {"--http1.1", "--http1.0"}) {
    std::string out = Curl({"-i", version, "-H", "x-api-key: " + kStandIn, "https://" + host + "/chunked"});
    EXPECT_NE(out.find("x-api-key: " + kStandIn), std::string::npos) << version << ": " << out;
    EXPECT_NE(out.find(std::string(5000, 'z') + kStandIn + "\n200"), std::string::npos) << version << ": " << out;
    EXPECT_EQ(out.find(kReal), std::string::npos) << version << ": " << out;
    EXPECT_EQ(out.find("Content-Encoding"), std::string::npos) << version << ": " << out;
    bool chunked = out.find("Transfer-Encoding: chunked") != std::string::npos;
    EXPECT_EQ(chunked, version == "--http1.1") << version << ": " << out;
  }
}

// gzip of 2 GiB of zeros in ~2 MiB: 1 MiB of zeros deflated after a full
// flush gives the same bytes every time, so the stream is made in a moment.
struct GzipBomb {
  std::string head, block;  // the first MiB with the gzip header, then each next MiB
};
GzipBomb MakeGzipBomb() {
  z_stream z{};
  deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string zeros(1 << 20, '\0'), out(1 << 20, '\0');
  std::string parts[3];
  for (std::string& part : parts) {
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(zeros.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FULL_FLUSH);
    part = out.substr(0, out.size() - z.avail_out);
  }
  deflateEnd(&z);
  EXPECT_EQ(parts[1], parts[2]);
  return {parts[0], parts[1]};
}

long PeakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// What the proxy may take while it decodes a bomb: its pieces and buffers,
// far below the 1 GiB it passes on. AddressSanitizer also keeps up to 256 MiB
// of freed memory in quarantine.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kBombMemoryKiB = (128 + 256) * 1024;
#else
constexpr long kBombMemoryKiB = 128 * 1024;
#endif

TEST_F(LoginProxyTest, ADecompressionBombIsCutOffWithoutTakingMemory) {
  GzipBomb bomb = MakeGzipBomb();
  ASSERT_LT(bomb.block.size(), 4096u);
  TlsOrigin origin(test_ca_->Leaf("api.test"), [&](SSL* ssl, const std::string&) {
    std::string head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n" + bomb.head;
    if (SSL_write(ssl, head.data(), static_cast<int>(head.size())) <= 0) return;
    for (int mib = 1; mib < 2048; ++mib) {  // 2 GiB, unless the proxy stops reading
      if (SSL_write(ssl, bomb.block.data(), static_cast<int>(bomb.block.size())) <= 0) return;
    }
  });
  std::string host = Host(origin, "api.test");
  Start({host}, {host});
  long rss_before = PeakRssKiB();
  // 1 GiB reaches curl before the cut: more than the Curl helper's 5 s allow.
  auto run = RunCapture({"curl", "-sS", "--max-time", "120", "--proxy",
                         "http://127.0.0.1:" + std::to_string(proxy_->port()), "--cacert",
                         dir_ + "/session_ca.pem", "-o", "/dev/null", "-w", "%{size_download}",
                         "https://" + host + "/bomb"},
                        std::chrono::seconds(130));
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_NE(run->exit_status, 0);  // cut off: curl saw no end of the chunked body
  uint64_t downloaded = std::stoull(run->out);
  EXPECT_LE(downloaded, (uint64_t{1} << 30) + (1 << 20)) << downloaded;  // 1 GiB and a chunk's framing
  std::string log = LogWith("decompression bomb");
  EXPECT_NE(log.find("decodes to more than 1024 MiB"), std::string::npos) << log;
  long grew = PeakRssKiB() - rss_before;
  EXPECT_LT(grew, kBombMemoryKiB) << "the proxy's peak memory grew by " << grew << " KiB";
}

TEST_F(LoginProxyTest, AnEncodingTheProxyCannotDecodeIsRefused) {
  TlsOrigin origin(test_ca_->Leaf("api.test"), [](SSL* ssl, const std::string& request) {
    // A body in zstd (its bytes do not matter: it is never read), or none.
    std::string body = request.rfind("HEAD", 0) == 0 ? "" : "\x28\xb5\x2f\xfd" + request;
    Write(ssl, "HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\nContent-Length: " +
                   std::to_string(request.rfind("HEAD", 0) == 0 ? 10 : body.size()) + "\r\nConnection: close\r\n\r\n" +
                   body);
  });
  std::string host = Host(origin, "api.test");
  Start({host}, {host});
  std::string out = Curl({"-i", "-H", "x-api-key: " + kStandIn, "https://" + host + "/zstd"});
  EXPECT_NE(out.find("\n502 1.1"), std::string::npos) << out;
  EXPECT_NE(out.find("X-Corral-Error: encoding-unknown"), std::string::npos) << out;
  EXPECT_NE(out.find("'zstd'"), std::string::npos) << out;
  EXPECT_EQ(out.find(kReal), std::string::npos) << out;
  // A response without a body has nothing to hide.
  out = Curl({"-I", "-H", "x-api-key: " + kStandIn, "https://" + host + "/zstd"});
  EXPECT_NE(out.find("\n200 1.1"), std::string::npos) << out;
  EXPECT_NE(out.find("Content-Encoding: zstd"), std::string::npos) << out;
}

// A token endpoint's answer compressed although the proxy asked for none:
// decoded, its tokens replaced as in a plain one.
TEST_F(LoginProxyTest, ACompressedTokenAnswerIsDecodedAndItsTokensReplaced) {
  const std::string new_access = "sk-ant-oat01-NEWaccess0123456789abcdef";
  TlsOrigin origin(test_ca_->Leaf("api.test"), [&](SSL* ssl, const std::string&) {
    std::string body = Encoded("{\"access_token\":\"" + new_access + "\",\"expires_in\":60}", "gzip");
    Write(ssl, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: " +
                   std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
  });
  std::string host = Host(origin, "api.test");
  std::vector<TokenUpdate> updates;
  Start({host}, {host}, [&](ProxyConfig& config) {
    TokenEndpoint endpoint{"subscription", {host}, "/oauth/token", {}};
    endpoint.fields.push_back({"access_token", {"access", {host}, "Authorization", "Bearer ", "", "", false}});
    config.token_endpoints = {endpoint};
    config.on_tokens = [&](const TokenUpdate& update) { updates.push_back(update); };
  });
  std::string answer = Curl({"--data", "{}", "https://" + host + "/oauth/token"});
  ASSERT_NE(answer.find("\n200"), std::string::npos) << answer;
  EXPECT_EQ(answer.find(new_access), std::string::npos) << answer;
  EXPECT_NE(answer.find("\"access_token\":\"sk-ant-oat01-"), std::string::npos) << answer;
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].tokens["access_token"], new_access);
}

}  // namespace
}  // namespace corral::netfilter
