#include "netfilter/logins/logins.h"

#include <gtest/gtest.h>

namespace corral::netfilter {
namespace {

TokenEndpoint Endpoint() {
  TokenEndpoint endpoint{"sub", {"auth.test:443"}, "/oauth/token", {}};
  endpoint.fields.push_back({"access_token", {"access", {"api.test:443"}, "Authorization", "Bearer ", "", "", false}});
  endpoint.fields.push_back({"refresh_token", {"refresh", {"auth.test:443"}, "", "", "", "", true}});
  return endpoint;
}

std::shared_ptr<const LoginTable> Table(std::vector<Login> logins = {}) { return *LoginTable::Make(std::move(logins)); }

TEST(CaptureTokens, NewTokensGetStandInsAndLoginsAndTheHostTheRealOnes) {
  std::string body = R"({"access_token":"sk-ant-oat01-AAAAaaaa0000","refresh_token":"sk-ant-ort01-BBBBbbbb1111","expires_in":3600})";
  auto captured = CaptureTokens(Endpoint(), *Table(), body);
  ASSERT_TRUE(captured.ok()) << captured.error().message;
  ASSERT_EQ(captured->logins.size(), 2u);
  EXPECT_EQ(body.find("AAAAaaaa0000"), std::string::npos) << body;
  EXPECT_EQ(body.find("BBBBbbbb1111"), std::string::npos) << body;
  EXPECT_NE(body.find(captured->logins[0].stand_in), std::string::npos) << body;
  EXPECT_EQ(captured->logins[0].value, "sk-ant-oat01-AAAAaaaa0000");
  EXPECT_EQ(captured->logins[0].hosts, std::vector<std::string>{"api.test:443"});
  EXPECT_EQ(captured->logins[0].header, "Authorization");
  EXPECT_TRUE(captured->logins[1].in_body);
  EXPECT_EQ(captured->update.tokens.at("refresh_token"), "sk-ant-ort01-BBBBbbbb1111");
  EXPECT_EQ(captured->update.expires_in, 3600);
}

// Some servers give the same refresh token back: it keeps its stand-in, and
// the proxy does not hold it twice.
TEST(CaptureTokens, ATokenAlreadyHeldKeepsItsStandIn) {
  auto held = Table({{"refresh", {"auth.test:443"}, "", "", "sk-ant-ort01-BBBBbbbb1111", "sk-ant-ort01-CCCCcccc2222", true}});
  std::string body = R"({"refresh_token":"sk-ant-ort01-BBBBbbbb1111"})";
  auto captured = CaptureTokens(Endpoint(), *held, body);
  ASSERT_TRUE(captured.ok());
  EXPECT_TRUE(captured->logins.empty());
  EXPECT_EQ(body, R"({"refresh_token":"sk-ant-ort01-CCCCcccc2222"})");
}

TEST(CaptureTokens, AnErrorAnswerIsLeftAsItIs) {
  std::string body = R"({"error":"invalid_grant"})";
  auto captured = CaptureTokens(Endpoint(), *Table(), body);
  ASSERT_TRUE(captured.ok());
  EXPECT_TRUE(captured->update.tokens.empty());
  EXPECT_EQ(body, R"({"error":"invalid_grant"})");
  std::string html = "<html>502</html>";
  EXPECT_TRUE(CaptureTokens(Endpoint(), *Table(), html).ok());
}

TEST(CaptureTokens, ATokenItCannotReplaceInPlaceFails) {
  std::string escaped = R"({"access_token":"sk-ant-oat01-AAAA\u0061aaa0000"})";
  EXPECT_FALSE(CaptureTokens(Endpoint(), *Table(), escaped).ok());
  std::string short_token = R"({"access_token":"abc"})";
  EXPECT_FALSE(CaptureTokens(Endpoint(), *Table(), short_token).ok());
}

TEST(TokenEndpoints, MatchesAPostToItsHostAndPathOnly) {
  auto endpoints = TokenEndpoints::Make({Endpoint()});
  ASSERT_TRUE(endpoints.ok());
  auto auth = *ParseAuthority("auth.test:443", std::nullopt);
  auto api = *ParseAuthority("api.test:443", std::nullopt);
  auto other = *ParseAuthority("other.test:443", std::nullopt);
  EXPECT_NE((*endpoints)->For(auth.host, 443, "POST", "/oauth/token?x=1"), nullptr);
  EXPECT_EQ((*endpoints)->For(auth.host, 443, "GET", "/oauth/token"), nullptr);
  EXPECT_EQ((*endpoints)->For(auth.host, 443, "POST", "/oauth/token/x"), nullptr);
  EXPECT_EQ((*endpoints)->For(api.host, 443, "POST", "/oauth/token"), nullptr);
  EXPECT_TRUE((*endpoints)->Covers(auth.host, 443));
  EXPECT_TRUE((*endpoints)->Covers(api.host, 443));  // where its tokens go
  EXPECT_FALSE((*endpoints)->Covers(other.host, 443));
  EXPECT_FALSE((*endpoints)->Covers(auth.host, 8443));
}

TEST(TokenEndpoints, BadEndpointsAreRefusedWithTheirName) {
  TokenEndpoint bad = Endpoint();
  bad.path = "oauth/token";
  auto made = TokenEndpoints::Make({bad});
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().message.find("'sub'"), std::string::npos) << made.error().message;
  bad = Endpoint();
  bad.hosts = {"auth.test"};
  EXPECT_FALSE(TokenEndpoints::Make({bad}).ok());
}

}  // namespace
}  // namespace corral::netfilter
