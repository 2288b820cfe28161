#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "netfilter/logins/logins.h"

namespace corral::netfilter {
namespace {

const char* kRealKey = "sk-ant-api03-Abc_def-0123456789xyzXYZ-AA";

int Class(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (std::isdigit(u)) return 1;
  if (std::islower(u)) return 2;
  if (std::isupper(u)) return 3;
  if (c == '-' || c == '_') return 4;
  return 100 + c;
}

TEST(StandIn, KeepsThePrefixTheLengthAndEachPositionsClass) {
  for (std::string value : {std::string(kRealKey), std::string("sk-proj-AAAAbbbb1111____"),
                            std::string("ghp_0123456789abcdefABCDEF"),
                            std::string("eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl")}) {
    std::string stand_in = MakeStandIn(value);
    ASSERT_EQ(stand_in.size(), value.size()) << value;
    EXPECT_NE(stand_in, value);
    std::string prefix = LoginValuePrefix(value);
    EXPECT_EQ(stand_in.substr(0, prefix.size()), prefix);
    for (std::size_t i = 0; i < value.size(); ++i) {
      EXPECT_EQ(Class(stand_in[i]), Class(value[i])) << value << " at " << i;
    }
  }
  EXPECT_EQ(LoginValuePrefix(kRealKey), "sk-ant-api03-");
  EXPECT_EQ(LoginValuePrefix("sk-proj-abc"), "sk-proj-");
  EXPECT_EQ(LoginValuePrefix("ghp_abc"), "ghp_");
  EXPECT_EQ(LoginValuePrefix("sk-scripted-model"), "sk-");
  EXPECT_EQ(LoginValuePrefix("plainvalue"), "");
}

TEST(StandIn, IsUniqueEachTimeAndNeverHoldsTheValuesBody) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) seen.insert(MakeStandIn(kRealKey));
  EXPECT_EQ(seen.size(), 200u);
  for (const std::string& s : seen) {
    EXPECT_EQ(s.find("0123456789xyzXYZ"), std::string::npos);
  }
}

TEST(StandIn, AValueTooShortToStandInForGetsNone) {
  EXPECT_EQ(MakeStandIn("sk-1234567"), "");  // 7 random positions after "sk-"
  EXPECT_EQ(MakeStandIn("sk-12345678").size(), 11u);
}

// An agent reads a JWT's claims (Codex: the account and plan in its
// id_token): they stay, and only the signature is made anew.
TEST(StandIn, AJwtKeepsItsHeaderAndClaimsAndGetsANewSignature) {
  std::string jwt = "eyJhbGciOiJSUzI1NiJ9.eyJlbWFpbCI6ImFAYi5jIn0.SIGNATUREsignature0123456789-_abcdefXYZ";
  std::string stand_in = MakeStandIn(jwt);
  ASSERT_EQ(stand_in.size(), jwt.size());
  std::size_t signature = jwt.rfind('.') + 1;
  EXPECT_EQ(stand_in.substr(0, signature), jwt.substr(0, signature));
  int same = 0;
  for (std::size_t i = signature; i < jwt.size(); ++i) same += stand_in[i] == jwt[i];
  EXPECT_LT(same, 10) << stand_in;  // ~1 in 20 by chance per position
  // Unsigned ("alg":"none"): nothing secret to stand in for.
  EXPECT_EQ(MakeStandIn("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."), "");
}

}  // namespace
}  // namespace corral::netfilter
