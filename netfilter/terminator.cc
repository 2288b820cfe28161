#include "netfilter/terminator.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <thread>

#include "netfilter/login_exchange.h"
#include "netfilter/server.h"
#include "netfilter/tls/tls.h"

namespace corral::netfilter {
namespace {

// Blocking from now on, with the idle limit on every read and write.
void MakeBlocking(int fd, std::chrono::milliseconds idle) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(idle.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((idle.count() % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// A second connection to the address the first was dialed to, TLS as the
// first: the forge's judge asks the origin while the box's request is
// under way on the first. The address was checked when the first was made.
Result<ExchangeSetup::OriginLink> DialAgain(const Handoff& h, const LoginContext& logins,
                                            std::chrono::milliseconds connect, std::chrono::milliseconds idle) {
  auto ip = policy::ParseIpStrict(h.address);
  if (!ip) return Error("no address to dial the origin again");
  SockAddr to = ToSockAddr(*ip, h.port);
  ExchangeSetup::OriginLink link;
  link.fd = UniqueFd(::socket(to.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (link.fd.get() < 0) return Error::FromErrno("cannot make a socket");
  MakeBlocking(link.fd.get(), connect);
  if (::connect(link.fd.get(), reinterpret_cast<const sockaddr*>(&to.storage), to.length) != 0) {
    return Error::FromErrno("cannot connect to " + h.host.name + " again");
  }
  MakeBlocking(link.fd.get(), idle);
  if (!h.tls) {
    link.stream = PlainStream(link.fd.get(), {});
    return link;
  }
  auto tls = ConnectTls(logins.upstream_ctx.get(), link.fd.get(), h.host);
  if (!tls) return tls.error();
  link.stream = std::move(*tls);
  return link;
}

}  // namespace

Result<std::shared_ptr<LoginContext>> LoginContext::Make(const ProxyConfig& config) {
  if (config.logins.empty() && config.token_endpoints.empty() && config.forge.empty() && !config.requests) {
    return std::shared_ptr<LoginContext>();
  }
  auto context = std::make_shared<LoginContext>();
  if (!config.forge.empty()) {
    auto scope = forge::Scope::Make(config.forge);
    if (!scope) return scope.error().Context("the forge's scope");
    context->forge = std::move(*scope);
  }
  context->watching = config.watching;
  if (config.requests) {
    auto judged = requests::RequestRules::Make(*config.requests);
    if (!judged) return judged.error().Context("the request rules");
    context->requests = std::move(*judged);
  }
  auto table = LoginTable::Make(config.logins);
  if (!table) return table.error().Context("logins");
  context->store = std::make_unique<LoginStore>(std::move(*table));
  auto endpoints = TokenEndpoints::Make(config.token_endpoints);
  if (!endpoints) return endpoints.error();
  context->endpoints = std::move(*endpoints);
  context->on_tokens = config.on_tokens;
  auto ca = config.ca.empty() ? SessionCa::Create() : SessionCa::FromPem(config.ca.cert, config.ca.key);
  if (!ca) return ca.error();
  context->ca = std::move(*ca);
  auto box = MakeBoxContext();
  if (!box) return box.error();
  context->box_ctx = std::move(*box);
  auto upstream = MakeUpstreamContext(config.upstream_ca_file);
  if (!upstream) return upstream.error();
  context->upstream_ctx = std::move(*upstream);
  return context;
}

bool Terminators::Start(Handoff handoff, std::shared_ptr<Shared> shared) {
  JoinFinished();
  std::lock_guard lock(mutex_);
  if (stopping_) {
    shared->tunnels.fetch_sub(1);
    return false;
  }
  fds_.insert(handoff.client.get());
  fds_.insert(handoff.upstream.get());
  uint64_t id = next_id_++;
  threads_[id] = std::thread([this, id, handoff = std::move(handoff), shared = std::move(shared)]() mutable {
    Serve(handoff, *shared);
    shared->tunnels.fetch_sub(1);
    std::lock_guard lock(mutex_);
    // Forgotten before they close, so StopAll never shuts a reused number.
    fds_.erase(handoff.client.get());
    fds_.erase(handoff.upstream.get());
    handoff.client.Reset();
    handoff.upstream.Reset();
    finished_.push_back(id);
  });
  return true;
}

void Terminators::JoinFinished() {
  std::vector<std::thread> done;
  {
    std::lock_guard lock(mutex_);
    for (uint64_t id : finished_) {
      auto it = threads_.find(id);
      done.push_back(std::move(it->second));
      threads_.erase(it);
    }
    finished_.clear();
  }
  for (auto& thread : done) thread.join();
}

void Terminators::StopAll() {
  std::map<uint64_t, std::thread> all;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
    all.swap(threads_);
    finished_.clear();
  }
  for (auto& [id, thread] : all) thread.join();
}

void Terminators::Serve(Handoff& h, Shared& shared) {
  const LoginContext& logins = *shared.logins;
  MakeBlocking(h.client.get(), shared.limits.idle_timeout);
  MakeBlocking(h.upstream.get(), shared.limits.idle_timeout);
  ExchangeSetup setup;
  setup.store = logins.store.get();
  setup.endpoints = logins.endpoints.get();
  setup.on_tokens = logins.on_tokens;
  setup.host = h.host;
  setup.port = h.port;
  setup.tls = h.tls;
  setup.max_head = shared.limits.max_head_bytes;
  setup.log = shared.log;
  setup.forge = logins.forge.get();
  setup.requests = logins.requests.get();
  setup.watching = logins.watching;
  setup.memo = logins.memo.get();
  setup.dial_origin = [&h, &logins, idle = shared.limits.idle_timeout,
                       connect = shared.limits.connect_timeout]() -> Result<ExchangeSetup::OriginLink> {
    return DialAgain(h, logins, connect, idle);
  };
  setup.base.client = h.peer;
  setup.base.host = h.host.name;
  setup.base.port = h.port;
  setup.base.address = h.address;
  setup.base.method = h.tls ? "CONNECT" : h.request.method;
  auto fail = [&](int status, std::string code, std::string reason, bool answer) {
    Decision line = setup.base;
    line.decision = status >= 500 ? "error" : "deny";
    line.reason = code + ": " + reason;
    line.status = status;
    WriteDecision(shared.log, line);
    if (answer) {
      auto stream = PlainStream(h.client.get(), {});
      stream->Write(ErrorResponse(status, code, "corral proxy refused " + setup.base.method + " " + h.host.name +
                                                    ": " + reason + "\n"));
    }
  };

  if (!h.tls) {
    auto box = PlainStream(h.client.get(), std::move(h.client_in));
    auto origin = PlainStream(h.upstream.get(), {});
    return RunExchanges(*box, *origin, setup, std::move(h.request), {});
  }
  // The origin first: a certificate that does not verify is answered with a
  // 502 to the CONNECT itself, before the box has sent a byte in TLS.
  auto origin = ConnectTls(logins.upstream_ctx.get(), h.upstream.get(), h.host);
  if (!origin) return fail(502, "upstream-tls", origin.error().message, true);
  std::string leaf_name = h.host.ip ? h.host.ip->ToString() : h.host.name;
  auto leaf = logins.ca->Leaf(leaf_name);
  if (!leaf) return fail(502, "leaf-certificate", leaf.error().message, true);
  auto ok = PlainStream(h.client.get(), {});
  if (!ok->Write("HTTP/1.1 200 Connection established\r\n\r\n")) return;
  std::string sni;
  auto box = AcceptTls(logins.box_ctx.get(), h.client.get(), std::move(h.client_in), **leaf, &sni);
  if (!box) return fail(400, "box-tls", box.error().message, false);
  if (!sni.empty()) {
    // As for a plain tunnel: the name in the handshake must be the CONNECT host.
    auto named = Canonicalize(sni);
    if (!named || named->name != h.host.name) {
      return fail(403, "sni-mismatch", "TLS server name '" + sni + "' is not the CONNECT host " + h.host.name,
                  false);
    }
  }
  RunExchanges(**box, **origin, setup, std::nullopt, {});
}

}  // namespace corral::netfilter
