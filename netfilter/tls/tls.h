// netfilter/tls/: TLS for the connections the proxy ends (login hosts, the
// forge): the session CA and its leaf certificates, blocking byte streams
// plain or TLS on either side, and the ClientHello peek that keeps a plain
// tunnel to the host it was opened for. The room's one public header.
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/base.h"
#include "netfilter/rules/rules.h"

namespace corral::netfilter {

// ---------------------------------------------------------------- OpenSSL handles

template <class T, void (*Free)(T*)>
struct OsslDeleter {
  void operator()(T* p) const { Free(p); }
};
template <class T, void (*Free)(T*)>
using Ossl = std::unique_ptr<T, OsslDeleter<T, Free>>;

using PkeyPtr = Ossl<EVP_PKEY, EVP_PKEY_free>;
using X509Ptr = Ossl<X509, X509_free>;
using SslCtxPtr = Ossl<SSL_CTX, SSL_CTX_free>;
using SslPtr = Ossl<SSL, SSL_free>;
using BioPtr = Ossl<BIO, BIO_free_all>;

// "what: <OpenSSL's reasons>", emptying OpenSSL's error queue for this thread.
inline std::string OsslError(std::string_view what) {
  std::string out(what);
  unsigned long code;
  bool first = true;
  while ((code = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    out += first ? ": " : "; ";
    out += buf;
    first = false;
  }
  return out;
}

// ---------------------------------------------------------------- the session CA

// The session CA: made in memory when the proxy starts, its key never written
// anywhere; it signs one leaf certificate per login host, kept for reuse.
// All of netfilter/'s certificate making is here (verifying upstream
// certificates is OpenSSL's, set up in tls_stream.cc).
// A certificate and the key it certifies.
struct KeyedCert {
  X509Ptr cert;
  PkeyPtr key;
};

class SessionCa {
 public:
  // An EC P-256 key and a self-signed CA certificate (CA:TRUE, keyCertSign),
  // valid from an hour ago for `validity`.
  static Result<std::unique_ptr<SessionCa>> Create(
      std::string_view common_name = "corral session CA",
      std::chrono::hours validity = std::chrono::hours(24 * 7));

  // One made ahead (MakeSessionCaPem): `cert` must be a CA certificate and
  // `key` the key it certifies; leaves are valid for `validity`.
  static Result<std::unique_ptr<SessionCa>> FromPem(
      const std::string& cert, const std::string& key,
      std::chrono::hours validity = std::chrono::hours(24 * 7));

  // The CA certificate as PEM, for the box's trusted bundle.
  const std::string& pem() const { return pem_; }
  X509* cert() const { return ca_.cert.get(); }
  // Its key as PKCS#8 PEM: only for MakeSessionCaPem, whose caller hands it
  // to a proxy elsewhere.
  std::string KeyPem() const;

  // The leaf for `host` ("api.example.com", or an IP literal without
  // brackets): SAN DNS or IP, serverAuth, signed by this CA. Made once per
  // host, then shared. Thread-safe.
  Result<std::shared_ptr<const KeyedCert>> Leaf(const std::string& host);

 private:
  SessionCa() = default;
  KeyedCert ca_;
  PkeyPtr leaf_key_;  // one key for every leaf: a P-256 key per host would buy nothing here
  std::string pem_;
  std::chrono::hours validity_{0};
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const KeyedCert>> leaves_;
};

// PEM text of a certificate (tests write it to files).
std::string CertPem(X509* cert);

// A session CA as PEM text, made ahead of the proxy: where the proxy runs
// elsewhere (the network mode's sidecar, a Kubernetes proxy Pod), the box's
// bundle must hold the certificate before the proxy starts. The key goes only
// to that proxy, as the logins' values do (docs/logins.md).
struct SessionCaPem {
  std::string cert;  // for the box's trusted bundle
  std::string key;   // PKCS#8; the proxy's alone
  bool empty() const { return cert.empty() && key.empty(); }
};
// A new session CA (as the proxy makes at Start), as PEM.
Result<SessionCaPem> MakeSessionCaPem();

// ---------------------------------------------------------------- streams

// Blocking byte streams for a terminated connection: a plain socket, or TLS
// over one (the box's side with a session leaf, the origin's side verified
// against the host's CA bundle with its name checked).
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

// ---------------------------------------------------------------- the ClientHello

// Reads the server name from a TLS ClientHello without decrypting anything,
// so a tunnel opened for one host cannot be used to talk TLS to another.
enum class HelloState {
  kNeedMore,   // a prefix of a ClientHello: read more (up to the caller's bound)
  kNotTls,     // the client does not start with a TLS handshake record
  kNoSni,      // a complete ClientHello without server_name
  kSni,        // a complete ClientHello naming `server_name`
  kMalformed,  // a TLS handshake record that is not a sane ClientHello
};

struct HelloPeek {
  HelloState state = HelloState::kNeedMore;
  std::string server_name;
  std::string reason;  // for kMalformed
};

// `data` is everything the client sent so far; the ClientHello may span
// several records and TCP segments.
HelloPeek PeekClientHello(std::string_view data);

struct HelloRefusal {
  std::string code;    // X-Corral-Error: "sni-mismatch" or "bad-client-hello"
  std::string reason;
};

// Why a tunnel to `host` must not carry this first flight: a malformed
// ClientHello, or one naming another server. nullopt when it may pass, or
// while more bytes are needed to tell.
std::optional<HelloRefusal> JudgeHello(const HelloPeek& peek, const CanonicalHost& host);

}  // namespace corral::netfilter
