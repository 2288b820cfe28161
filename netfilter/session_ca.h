// The session CA: made in memory when the proxy starts, its key never written
// anywhere; it signs one leaf certificate per login host, kept for reuse.
// All of netfilter/'s certificate making is here (verifying upstream
// certificates is OpenSSL's, set up in tls_stream.cc).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/base.h"
#include "netfilter/openssl_types.h"

namespace corral::netfilter {

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

}  // namespace corral::netfilter
