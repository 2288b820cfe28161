#include "netfilter/tls/tls.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "netfilter/rules/rules.h"

namespace corral::netfilter {
namespace {

constexpr long kBackdateSeconds = 3600;  // a box clock a little behind still accepts it

Result<PkeyPtr> NewP256Key() {
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Error(OsslError("cannot make an EC P-256 key"));
  return key;
}

bool SetRandomSerial(X509* cert) {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return false;
  bytes[0] &= 0x7f;  // positive
  bytes[0] |= 0x01;  // and not zero-padded
  Ossl<BIGNUM, BN_free> bn(BN_bin2bn(bytes, sizeof bytes, nullptr));
  return bn && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) != nullptr;
}

bool AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  Ossl<X509_EXTENSION, X509_EXTENSION_free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

// A certificate for `key`, named `common_name`, with its validity set and no
// extensions yet.
Result<X509Ptr> NewCert(EVP_PKEY* key, std::string_view common_name, X509* issuer,
                        std::chrono::hours validity) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), 2) != 1 || !SetRandomSerial(cert.get())) {
    return Error(OsslError("cannot make a certificate"));
  }
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                  static_cast<long>(std::chrono::duration_cast<std::chrono::seconds>(validity).count()));
  X509_NAME* name = X509_get_subject_name(cert.get());
  std::string cn(common_name.substr(0, 64));  // the CN's upper bound
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                             -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  if (X509_set_pubkey(cert.get(), key) != 1) return Error(OsslError("cannot set a certificate's key"));
  return cert;
}

}  // namespace

Result<std::unique_ptr<SessionCa>> SessionCa::Create(std::string_view common_name, std::chrono::hours validity) {
  std::unique_ptr<SessionCa> ca(new SessionCa());
  ca->validity_ = validity;
  auto key = NewP256Key();
  if (!key) return key.error().Context("session CA");
  auto leaf_key = NewP256Key();
  if (!leaf_key) return leaf_key.error().Context("session CA");
  auto cert = NewCert(key->get(), common_name, nullptr, validity);
  if (!cert) return cert.error().Context("session CA");
  X509* x = cert->get();
  bool ok = AddExtension(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
            AddExtension(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") &&
            AddExtension(x, x, NID_subject_key_identifier, "hash") &&
            X509_sign(x, key->get(), EVP_sha256()) > 0;
  if (!ok) return Error(OsslError("session CA: cannot sign its certificate"));
  ca->ca_ = {std::move(*cert), std::move(*key)};
  ca->leaf_key_ = std::move(*leaf_key);
  ca->pem_ = CertPem(ca->ca_.cert.get());
  if (ca->pem_.empty()) return Error(OsslError("session CA: cannot write its certificate as PEM"));
  return ca;
}

Result<std::unique_ptr<SessionCa>> SessionCa::FromPem(const std::string& cert,
                                                      const std::string& key,
                                                      std::chrono::hours validity) {
  BioPtr cert_bio(BIO_new_mem_buf(cert.data(), static_cast<int>(cert.size())));
  BioPtr key_bio(BIO_new_mem_buf(key.data(), static_cast<int>(key.size())));
  if (!cert_bio || !key_bio) return Error(OsslError("session CA: out of memory"));
  X509Ptr x(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  if (!x) return Error(OsslError("session CA: its certificate is not PEM"));
  PkeyPtr k(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!k) return Error(OsslError("session CA: its key is not a PEM private key"));
  if (X509_check_ca(x.get()) < 1) return Error("session CA: the certificate is not a CA's");
  if (X509_check_private_key(x.get(), k.get()) != 1) {
    return Error("session CA: the key is not the certificate's");
  }
  auto leaf_key = NewP256Key();
  if (!leaf_key) return leaf_key.error().Context("session CA");
  std::unique_ptr<SessionCa> ca(new SessionCa());
  ca->validity_ = validity;
  ca->ca_ = {std::move(x), std::move(k)};
  ca->leaf_key_ = std::move(*leaf_key);
  ca->pem_ = CertPem(ca->ca_.cert.get());
  if (ca->pem_.empty()) return Error(OsslError("session CA: cannot write its certificate as PEM"));
  return ca;
}

std::string SessionCa::KeyPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), ca_.key.get(), nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    return {};
  }
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

Result<SessionCaPem> MakeSessionCaPem() {
  auto ca = SessionCa::Create();
  if (!ca) return ca.error();
  SessionCaPem pem{(*ca)->pem(), (*ca)->KeyPem()};
  if (pem.key.empty()) return Error(OsslError("session CA: cannot write its key as PEM"));
  return pem;
}

Result<std::shared_ptr<const KeyedCert>> SessionCa::Leaf(const std::string& host) {
  std::lock_guard lock(mutex_);
  if (auto it = leaves_.find(host); it != leaves_.end()) return it->second;
  auto cert = NewCert(leaf_key_.get(), host, ca_.cert.get(), validity_);
  if (!cert) return cert.error().Context("leaf certificate for " + host);
  X509* x = cert->get();
  std::string san = (ParseIpStrict(host) ? "IP:" : "DNS:") + host;
  bool ok = AddExtension(x, ca_.cert.get(), NID_basic_constraints, "critical,CA:FALSE") &&
            AddExtension(x, ca_.cert.get(), NID_key_usage, "critical,digitalSignature") &&
            AddExtension(x, ca_.cert.get(), NID_ext_key_usage, "serverAuth") &&
            AddExtension(x, ca_.cert.get(), NID_subject_alt_name, san.c_str()) &&
            AddExtension(x, ca_.cert.get(), NID_subject_key_identifier, "hash") &&
            AddExtension(x, ca_.cert.get(), NID_authority_key_identifier, "keyid:always") &&
            X509_sign(x, ca_.key.get(), EVP_sha256()) > 0;
  if (!ok) return Error(OsslError("leaf certificate for " + host));
  auto leaf = std::make_shared<KeyedCert>();
  leaf->cert = std::move(*cert);
  EVP_PKEY_up_ref(leaf_key_.get());
  leaf->key.reset(leaf_key_.get());
  leaves_.emplace(host, leaf);
  return std::shared_ptr<const KeyedCert>(leaf);
}

std::string CertPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return {};
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace corral::netfilter
