// The public face: bind the listener, start one loop per core, swap rules,
// stop cleanly.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <thread>

#include "netfilter/proxy_internal.h"
#include "netfilter/server.h"
#include "netfilter/terminator.h"

namespace corral::netfilter {

struct Proxy::Impl {
  std::shared_ptr<Shared> shared;
  UniqueFd listener;
  std::string unix_path;
  std::string address;
  std::string ca_pem;
  uint16_t port = 0;
  std::vector<std::unique_ptr<Loop>> loops;
  std::vector<std::thread> threads;
  bool stopped = false;
};

namespace {

struct Bound {
  UniqueFd fd;
  std::string address;
  uint16_t port = 0;
  std::optional<IpAddress> ip;
  std::string unix_path;
};

Result<Bound> BindUnix(const std::string& path, unsigned mode) {
  auto fd = ListenUnix(path, {.mode = static_cast<mode_t>(mode), .backlog = SOMAXCONN,
                              .nonblocking = true});
  if (!fd) return fd.error();
  Bound out;
  out.fd = std::move(*fd);
  out.address = "unix:" + path;
  out.unix_path = path;
  return out;
}

Result<Bound> BindTcp(const std::string& listen) {
  std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Error("listen address '" + listen + "' must be HOST:PORT or unix:PATH");
  std::string host = listen.substr(0, colon);
  std::string port_text = listen.substr(colon + 1);
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  auto ip = ParseIpStrict(host);
  if (!ip) return Error("listen address '" + listen + "': '" + host + "' is not an IP address");
  uint16_t port = 0;
  if (port_text != "0") {
    auto parsed = ParsePort(port_text);
    if (!parsed) return Error("listen address '" + listen + "': bad port");
    port = *parsed;
  }
  Bound out;
  out.fd = UniqueFd(::socket(ip->v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!out.fd.valid()) return Error::FromErrno("socket");
  int one = 1;
  setsockopt(out.fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  SockAddr sa = ToSockAddr(*ip, port);
  if (::bind(out.fd.get(), reinterpret_cast<sockaddr*>(&sa.storage), sa.length) != 0) {
    return Error::FromErrno("cannot listen on " + listen);
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(out.fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  out.port = ntohs(ip->v6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                          : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  out.ip = *ip;
  out.address = (ip->v6 ? "[" + ip->ToString() + "]" : ip->ToString()) + ":" + std::to_string(out.port);
  return out;
}

// The addresses a client could use to reach this proxy: never dial them.
std::vector<IpAddress> SelfAddresses(const IpAddress& listen) {
  bool any = listen.bytes == std::array<uint8_t, 16>{};
  if (!any) return {listen};
  std::vector<IpAddress> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* it = list; it; it = it->ifa_next) {
      if (!it->ifa_addr) continue;
      if (auto ip = FromSockAddr(it->ifa_addr)) out.push_back(*ip);
    }
    freeifaddrs(list);
  }
  out.push_back(listen);
  return out;
}

}  // namespace

Result<std::unique_ptr<Proxy>> ProxyStarter::Start(const ProxyConfig& config, Seams seams) {
  auto rules = ParseRules(config.rules);
  if (!rules) return rules.error();
  auto shared = std::make_shared<Shared>();
  shared->limits = config.limits;
  shared->token = config.token;
  shared->log = config.log;
  shared->SetRules(std::make_shared<const Rules>(std::move(*rules)));
  if (!config.hosts_file.empty()) {
    auto hosts = ReadHostsFile(config.hosts_file);
    if (!hosts) return hosts.error();
    shared->hosts.swap(hosts.value());
  }
  auto logins = LoginContext::Make(config);
  if (!logins) return logins.error();
  shared->logins = std::move(*logins);
  shared->terminators = std::make_shared<Terminators>();
  shared->resolver = seams.resolver ? seams.resolver : MakeSystemResolver(4, 1024);
  shared->clock = seams.clock ? seams.clock : std::make_shared<SystemClock>();

  bool is_unix = config.listen.rfind("unix:", 0) == 0;
  auto bound = is_unix ? BindUnix(config.listen.substr(5), config.socket_mode) : BindTcp(config.listen);
  if (!bound) return bound.error();
  if (!is_unix && ::listen(bound->fd.get(), SOMAXCONN) != 0) {
    return Error::FromErrno("listen " + config.listen);
  }
  if (bound->ip) {
    shared->self_addresses = SelfAddresses(*bound->ip);
    shared->self_port = bound->port;
  }

  auto impl = std::make_unique<Proxy::Impl>();
  impl->shared = shared;
  impl->listener = std::move(bound->fd);
  impl->unix_path = bound->unix_path;
  impl->address = bound->address;
  impl->port = bound->port;
  if (shared->logins) impl->ca_pem = shared->logins->ca->pem();
  int threads = config.threads > 0 ? config.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(threads, 1);
  for (int i = 0; i < threads; ++i) {
    auto loop = std::make_unique<Loop>(shared, impl->listener.get());
    if (auto ok = loop->Init(); !ok) return ok.error().Context("proxy event loop");
    impl->loops.push_back(std::move(loop));
  }
  for (auto& loop : impl->loops) impl->threads.emplace_back([l = loop.get()] { l->Run(); });
  return std::unique_ptr<Proxy>(new Proxy(std::move(impl)));
}

Result<std::unique_ptr<Proxy>> Proxy::Start(const ProxyConfig& config) {
  return ProxyStarter::Start(config, {});
}

Proxy::Proxy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Proxy::~Proxy() { Stop(); }

std::string Proxy::address() const { return impl_->address; }
uint16_t Proxy::port() const { return impl_->port; }
const std::string& Proxy::ca_pem() const { return impl_->ca_pem; }
std::size_t Proxy::relay_bytes() const { return impl_->shared->relay_bytes.load(); }

Result<void> Proxy::Reload(const RuleLists& lists) {
  auto rules = ParseRules(lists);
  if (!rules) return rules.error();
  impl_->shared->SetRules(std::make_shared<const Rules>(std::move(*rules)));
  return Ok();
}

void Proxy::Stop() {
  if (impl_->stopped) return;
  impl_->stopped = true;
  for (auto& loop : impl_->loops) loop->Stop();
  for (auto& thread : impl_->threads) thread.join();
  impl_->loops.clear();
  impl_->shared->terminators->StopAll();
  impl_->listener.Reset();
  if (!impl_->unix_path.empty()) ::unlink(impl_->unix_path.c_str());
}

ProxyConfig FromPolicy(const policy::NetworkPolicy& network) {
  ProxyConfig config;
  config.rules.allowed_domains = network.allowed_domains;
  config.rules.denied_domains = network.denied_domains;
  config.rules.allow_addresses = network.allow_addresses;
  config.hosts_file = network.hosts_file;
  config.limits.head_timeout = std::chrono::seconds(network.head_timeout_seconds);
  config.limits.connect_timeout = std::chrono::seconds(network.connect_timeout_seconds);
  config.limits.idle_timeout = std::chrono::seconds(network.idle_timeout_seconds);
  config.limits.max_tunnels = network.max_tunnels;
  return config;
}

}  // namespace corral::netfilter
