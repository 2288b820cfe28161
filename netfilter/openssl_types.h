// Owning handles for the OpenSSL objects netfilter/ uses, and the error text
// OpenSSL queued for the last failure.
#pragma once

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>

namespace corral::netfilter {

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

}  // namespace corral::netfilter
