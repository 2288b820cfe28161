#include "netfilter/tls/tls.h"

#include <gtest/gtest.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace corral::netfilter {
namespace {

// OpenSSL's own verification of `leaf` against `ca` alone, for a TLS server.
int Verify(X509* ca, X509* leaf, const char* host = nullptr, const char* ip = nullptr) {
  Ossl<X509_STORE, X509_STORE_free> store(X509_STORE_new());
  X509_STORE_add_cert(store.get(), ca);
  Ossl<X509_STORE_CTX, X509_STORE_CTX_free> ctx(X509_STORE_CTX_new());
  X509_STORE_CTX_init(ctx.get(), store.get(), leaf, nullptr);
  X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
  X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER);
  if (host) X509_VERIFY_PARAM_set1_host(param, host, 0);
  if (ip) X509_VERIFY_PARAM_set1_ip_asc(param, ip);
  X509_verify_cert(ctx.get());
  return X509_STORE_CTX_get_error(ctx.get());
}

TEST(SessionCaTest, CaIsAShortLivedP256CaCertificate) {
  auto ca = SessionCa::Create();
  ASSERT_TRUE(ca.ok()) << ca.error().message;
  X509* cert = (*ca)->cert();
  EXPECT_EQ(X509_check_ca(cert), 1);
  EXPECT_TRUE(X509_get_key_usage(cert) & KU_KEY_CERT_SIGN);
  EVP_PKEY* key = X509_get0_pubkey(cert);
  EXPECT_EQ(EVP_PKEY_get_base_id(key), EVP_PKEY_EC);
  char curve[64] = {};
  EVP_PKEY_get_utf8_string_param(key, "group", curve, sizeof curve, nullptr);
  EXPECT_STREQ(curve, "prime256v1");
  int days = 0, seconds = 0;
  ASN1_TIME_diff(&days, &seconds, nullptr, X509_get0_notAfter(cert));
  EXPECT_LE(days, 7);
  EXPECT_GT(days * 86400 + seconds, 0);
  EXPECT_EQ((*ca)->pem().rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  EXPECT_EQ((*ca)->pem().find("PRIVATE KEY"), std::string::npos);
}

TEST(SessionCaTest, LeafVerifiesForItsNameOnly) {
  auto ca = SessionCa::Create();
  ASSERT_TRUE(ca.ok());
  auto leaf = (*ca)->Leaf("api.example.com");
  ASSERT_TRUE(leaf.ok()) << leaf.error().message;
  X509* cert = (*leaf)->cert.get();
  EXPECT_EQ(Verify((*ca)->cert(), cert, "api.example.com"), X509_V_OK);
  EXPECT_EQ(Verify((*ca)->cert(), cert, "other.example.com"), X509_V_ERR_HOSTNAME_MISMATCH);
  EXPECT_EQ(X509_check_ca(cert), 0);
  EXPECT_TRUE(X509_get_extended_key_usage(cert) & XKU_SSL_SERVER);
  EXPECT_EQ(X509_check_private_key(cert, (*leaf)->key.get()), 1);
}

TEST(SessionCaTest, IpLeafHasAnIpSan) {
  auto ca = SessionCa::Create();
  ASSERT_TRUE(ca.ok());
  for (const char* ip : {"127.0.0.2", "::1"}) {
    auto leaf = (*ca)->Leaf(ip);
    ASSERT_TRUE(leaf.ok()) << leaf.error().message;
    EXPECT_EQ(Verify((*ca)->cert(), (*leaf)->cert.get(), nullptr, ip), X509_V_OK) << ip;
  }
}

TEST(SessionCaTest, LeavesAreCachedAndAnotherCaIsNotTrusted) {
  auto ca = SessionCa::Create();
  auto other = SessionCa::Create();
  ASSERT_TRUE(ca.ok() && other.ok());
  auto a = (*ca)->Leaf("api.example.com");
  auto b = (*ca)->Leaf("api.example.com");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->get(), b->get());
  EXPECT_NE(Verify((*other)->cert(), (*a)->cert.get(), "api.example.com"), X509_V_OK);
}

TEST(SessionCaTest, MadeAheadItSignsLeavesTheSameCertificateVerifies) {
  auto pem = MakeSessionCaPem();
  ASSERT_TRUE(pem.ok()) << pem.error().message;
  EXPECT_EQ(pem->cert.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
  EXPECT_EQ(pem->key.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);
  EXPECT_EQ(pem->cert.find("PRIVATE"), std::string::npos);
  auto ca = SessionCa::FromPem(pem->cert, pem->key);
  ASSERT_TRUE(ca.ok()) << ca.error().message;
  EXPECT_EQ((*ca)->pem(), pem->cert);
  auto leaf = (*ca)->Leaf("api.example.com");
  ASSERT_TRUE(leaf.ok()) << leaf.error().message;
  // The certificate the box was given ahead verifies what the proxy signs.
  BioPtr bio(BIO_new_mem_buf(pem->cert.data(), static_cast<int>(pem->cert.size())));
  X509Ptr given(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ASSERT_TRUE(given);
  EXPECT_EQ(Verify(given.get(), (*leaf)->cert.get(), "api.example.com"), X509_V_OK);
}

TEST(SessionCaTest, FromPemRefusesAKeyThatIsNotTheCertificatesAndText) {
  auto one = MakeSessionCaPem();
  auto two = MakeSessionCaPem();
  ASSERT_TRUE(one.ok() && two.ok());
  auto mixed = SessionCa::FromPem(one->cert, two->key);
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message.find("not the certificate's"), std::string::npos);
  EXPECT_FALSE(SessionCa::FromPem("not pem", one->key).ok());
  EXPECT_FALSE(SessionCa::FromPem(one->cert, "").ok());
  // A leaf is no CA.
  auto ca = SessionCa::FromPem(one->cert, one->key);
  ASSERT_TRUE(ca.ok());
  auto leaf = (*ca)->Leaf("example.com");
  ASSERT_TRUE(leaf.ok());
  EXPECT_FALSE(SessionCa::FromPem(CertPem((*leaf)->cert.get()), one->key).ok());
}

}  // namespace
}  // namespace corral::netfilter
