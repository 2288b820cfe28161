#include "netfilter/tls/tls.h"

#include <sys/socket.h>

#include <cerrno>
#include <mutex>

#include <openssl/x509v3.h>

namespace corral::netfilter {
namespace {

// A socket with bytes to read first: the loop may already hold the start of
// the box's TLS handshake. Sends use MSG_NOSIGNAL: a closed peer is an error,
// never a SIGPIPE for the whole process.
struct FdState {
  int fd = -1;
  std::string prefix;
  std::size_t used = 0;

  long Read(char* buf, std::size_t size) {
    if (used < prefix.size()) {
      std::size_t n = std::min(size, prefix.size() - used);
      prefix.copy(buf, n, used);
      used += n;
      return static_cast<long>(n);
    }
    while (true) {
      ssize_t n = ::recv(fd, buf, size, 0);
      if (n >= 0 || errno != EINTR) return n;
    }
  }
  bool Write(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
};

class Plain : public Stream {
 public:
  explicit Plain(FdState state) : state_(std::move(state)) {}
  long Read(char* buf, std::size_t size) override { return state_.Read(buf, size); }
  bool Write(std::string_view data) override { return state_.Write(data); }

 private:
  FdState state_;
};

int BioWrite(BIO* bio, const char* data, size_t size, size_t* written) {
  auto* state = static_cast<FdState*>(BIO_get_data(bio));
  if (!state->Write(std::string_view(data, size))) return 0;
  *written = size;
  return 1;
}

int BioRead(BIO* bio, char* buf, size_t size, size_t* read) {
  auto* state = static_cast<FdState*>(BIO_get_data(bio));
  long n = state->Read(buf, size);
  if (n <= 0) return 0;
  *read = static_cast<size_t>(n);
  return 1;
}

long BioCtrl(BIO*, int cmd, long, void*) { return cmd == BIO_CTRL_FLUSH ? 1 : 0; }

int BioDestroy(BIO* bio) {
  delete static_cast<FdState*>(BIO_get_data(bio));
  BIO_set_data(bio, nullptr);
  return 1;
}

BIO_METHOD* FdBioMethod() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "corral fd");
    BIO_meth_set_write_ex(m, BioWrite);
    BIO_meth_set_read_ex(m, BioRead);
    BIO_meth_set_ctrl(m, BioCtrl);
    BIO_meth_set_destroy(m, BioDestroy);
    return m;
  }();
  return method;
}

Result<SslPtr> NewSsl(SSL_CTX* ctx, int fd, std::string prefix) {
  SslPtr ssl(SSL_new(ctx));
  BIO* bio = BIO_new(FdBioMethod());
  if (!ssl || !bio) {
    if (bio) BIO_free(bio);
    return Error(OsslError("cannot start TLS"));
  }
  BIO_set_data(bio, new FdState{fd, std::move(prefix), 0});
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl.get(), bio, bio);  // the SSL owns it now
  return ssl;
}

class Tls : public Stream {
 public:
  explicit Tls(SslPtr ssl) : ssl_(std::move(ssl)) {}
  ~Tls() override { SSL_shutdown(ssl_.get()); }
  long Read(char* buf, std::size_t size) override {
    std::size_t n = 0;
    if (SSL_read_ex(ssl_.get(), buf, size, &n) == 1) return static_cast<long>(n);
    int error = SSL_get_error(ssl_.get(), 0);
    ERR_clear_error();
    return error == SSL_ERROR_ZERO_RETURN ? 0 : -1;
  }
  bool Write(std::string_view data) override {
    std::size_t n = 0;
    bool ok = data.empty() || SSL_write_ex(ssl_.get(), data.data(), data.size(), &n) == 1;
    if (!ok) ERR_clear_error();
    return ok;
  }

 private:
  SslPtr ssl_;
};

// ALPN: http/1.1 if the box offers it; otherwise no ALPN at all, which a
// client that offered only h2 reads as HTTP/1.1.
int SelectHttp11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                 unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) == OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

}  // namespace

std::unique_ptr<Stream> PlainStream(int fd, std::string prefix) {
  return std::make_unique<Plain>(FdState{fd, std::move(prefix), 0});
}

Result<SslCtxPtr> MakeBoxContext() {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return Error(OsslError("cannot make the TLS context for the box"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_alpn_select_cb(ctx.get(), SelectHttp11, nullptr);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  return ctx;
}

Result<SslCtxPtr> MakeUpstreamContext(const std::string& ca_file) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return Error(OsslError("cannot make the TLS context for origins"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  bool loaded = ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx.get()) == 1
                                : SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr) == 1;
  if (!loaded) {
    return Error(OsslError("cannot load the CA bundle " + (ca_file.empty() ? std::string("(system)") : ca_file) +
                           " to verify origins"));
  }
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  SSL_CTX_set_alpn_protos(ctx.get(), kHttp11, sizeof kHttp11);
  return ctx;
}

Result<std::unique_ptr<Stream>> AcceptTls(SSL_CTX* ctx, int fd, std::string prefix, const KeyedCert& leaf,
                                          std::string* sni) {
  auto ssl = NewSsl(ctx, fd, std::move(prefix));
  if (!ssl) return ssl.error();
  if (SSL_use_certificate(ssl->get(), leaf.cert.get()) != 1 || SSL_use_PrivateKey(ssl->get(), leaf.key.get()) != 1) {
    return Error(OsslError("cannot use the leaf certificate"));
  }
  if (SSL_accept(ssl->get()) != 1) return Error(OsslError("TLS handshake with the box failed"));
  const char* name = SSL_get_servername(ssl->get(), TLSEXT_NAMETYPE_host_name);
  if (sni) *sni = name ? name : "";
  return std::unique_ptr<Stream>(std::make_unique<Tls>(std::move(*ssl)));
}

Result<std::unique_ptr<Stream>> ConnectTls(SSL_CTX* ctx, int fd, const CanonicalHost& host) {
  auto ssl = NewSsl(ctx, fd, {});
  if (!ssl) return ssl.error();
  SSL* s = ssl->get();
  if (host.ip) {
    if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s), host.ip->ToString().c_str()) != 1) {
      return Error(OsslError("cannot check the origin's address"));
    }
  } else if (SSL_set_tlsext_host_name(s, host.name.c_str()) != 1 || SSL_set1_host(s, host.name.c_str()) != 1) {
    return Error(OsslError("cannot set the origin's name"));
  }
  if (SSL_connect(s) != 1) {
    long verify = SSL_get_verify_result(s);
    if (verify != X509_V_OK) {
      ERR_clear_error();
      return Error("the certificate of " + host.name + " is not trusted: " +
                   X509_verify_cert_error_string(verify));
    }
    return Error(OsslError("TLS handshake with " + host.name + " failed"));
  }
  return std::unique_ptr<Stream>(std::make_unique<Tls>(std::move(*ssl)));
}

}  // namespace corral::netfilter
