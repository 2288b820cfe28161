#include "netfilter/logins/logins.h"

#include <gtest/gtest.h>

#include "netfilter/http/http.h"

namespace corral::netfilter {
namespace {

Login ApiKey() {
  return {"api-key", {"api.test:443"}, "x-api-key", "", "sk-real-0123456789", "sk-fake-0123456789"};
}
Login Bearer() {
  return {"oauth", {"api.test:443", "[::1]:8080"}, "Authorization", "Bearer ", "tok-REAL-abcdefgh",
          "tok-FAKE-abcdefgh"};
}

std::shared_ptr<const LoginTable> Table() {
  auto table = LoginTable::Make({ApiKey(), Bearer(), {"git", {"git.test:443"}, "Authorization", "Basic ",
                                                      "gitREAL123456", "gitFAKE123456"}});
  EXPECT_TRUE(table.ok()) << table.error().message;
  return *table;
}

RequestHead Head(std::string text) {
  auto parsed = ParseRequest(text, 65536, RequestForm::kOrigin);
  EXPECT_EQ(parsed.state, ParseState::kDone) << parsed.error.reason;
  return parsed.head;
}

CanonicalHost Host(std::string_view name) { return *Canonicalize(name); }

TEST(LoginTableTest, RefusesBadLogins) {
  Login bad = ApiKey();
  bad.stand_in = "short";
  EXPECT_FALSE(LoginTable::Make({bad}).ok());
  bad = ApiKey();
  bad.stand_in += "x";
  EXPECT_NE(LoginTable::Make({bad}).error().message.find("as long as"), std::string::npos);
  bad = ApiKey();
  bad.hosts = {"api.test"};  // no port
  EXPECT_FALSE(LoginTable::Make({bad}).ok());
  Login twin = Bearer();
  twin.stand_in = ApiKey().stand_in.substr(0, twin.value.size());
  EXPECT_FALSE(LoginTable::Make({ApiKey(), twin}).ok());
}

TEST(LoginTableTest, HostsMatchByCanonicalNameAndPort) {
  auto table = Table();
  EXPECT_EQ(table->For(Host("API.test."), 443).size(), 2u);
  EXPECT_EQ(table->For(Host("api.test"), 8443).size(), 0u);
  EXPECT_EQ(table->For(Host("[::1]"), 8080).size(), 1u);
  EXPECT_EQ(table->For(Host("other.test"), 443).size(), 0u);
}

TEST(ApplyLoginsTest, ReplacesTheStandInInItsHeader) {
  auto table = Table();
  RequestHead head = Head("POST /v1 HTTP/1.1\r\nHost: api.test\r\nx-api-key: sk-fake-0123456789\r\n"
                          "authorization: bearer tok-FAKE-abcdefgh\r\n\r\n");
  HeadVerdict v = ApplyLogins(*table, table->For(Host("api.test"), 443), head);
  ASSERT_FALSE(v.refused) << *v.refused;
  EXPECT_EQ(v.added, (std::vector<std::string>{"api-key", "oauth"}));
  EXPECT_EQ(head.headers[1].value, "sk-real-0123456789");
  EXPECT_EQ(head.headers[2].value, "bearer tok-REAL-abcdefgh");
}

TEST(ApplyLoginsTest, OwnStandInsElsewhereGoAsTheyAreForeignOnesAreRefused) {
  auto table = Table();
  auto mine = table->For(Host("api.test"), 443);
  for (std::string head_text : {
           "GET /?key=sk-fake-0123456789 HTTP/1.1\r\nHost: api.test\r\n\r\n",       // in the URL
           "GET / HTTP/1.1\r\nHost: api.test\r\nx-other: sk-fake-0123456789\r\n\r\n",  // another header
           "GET / HTTP/1.1\r\nHost: api.test\r\nx-api-key: v=sk-fake-0123456789\r\n\r\n",  // not alone
       }) {
    RequestHead head = Head(head_text);
    const std::string before = head.target + head.headers.back().value;
    HeadVerdict v = ApplyLogins(*table, mine, head);
    EXPECT_FALSE(v.refused) << head_text;
    EXPECT_TRUE(v.added.empty()) << head_text;
    EXPECT_EQ(head.target + head.headers.back().value, before) << "left as it is: " << head_text;
  }
  // git's stand-in belongs to another host.
  RequestHead git = Head("GET / HTTP/1.1\r\nHost: api.test\r\nAuthorization: Basic gitFAKE123456\r\n\r\n");
  HeadVerdict foreign = ApplyLogins(*table, mine, git);
  ASSERT_TRUE(foreign.refused);
  EXPECT_TRUE(foreign.added.empty());
  RequestHead plain = Head("GET / HTTP/1.1\r\nHost: other.test\r\nx-api-key: sk-fake-0123456789\r\n\r\n");
  HeadVerdict v = ApplyLogins(*table, {}, plain);
  ASSERT_TRUE(v.refused);
  EXPECT_EQ(v.refused_login->name, "api-key");
  EXPECT_EQ(v.refused->find("sk-"), std::string::npos);  // names the login, never a value
}

// git over HTTPS: the token is the password of Basic credentials, with
// whatever user name the credential helper gives.
TEST(ApplyLoginsTest, BasicCredentialsGetTheRealPasswordAndKeepTheUser) {
  const std::string real = "ghp_REALtoken0123456789", fake = "ghp_FAKEtoken9876543210";
  Login git{"GH_TOKEN", {"git.test:443"}, "Authorization", "Basic ", real, fake};
  git.basic = true;
  Login api{"GH_TOKEN", {"api.git.test:443"}, "Authorization", "token ", real, fake};
  Login bearer{"GH_TOKEN", {"api.git.test:443"}, "Authorization", "Bearer ", real, fake};
  auto table = LoginTable::Make({git, api, bearer});  // one secret in three forms
  ASSERT_TRUE(table.ok()) << table.error().message;
  const LoginTable& t = **table;
  auto mine = t.For(Host("git.test"), 443);
  RequestHead head = Head("GET /r.git/info/refs HTTP/1.1\r\nHost: git.test\r\nAuthorization: Basic " +
                          EncodeBase64("x-access-token:" + fake) + "\r\n\r\n");
  HeadVerdict verdict = ApplyLogins(t, mine, head);
  EXPECT_FALSE(verdict.refused);
  EXPECT_EQ(verdict.added, std::vector<std::string>{"GH_TOKEN"});
  EXPECT_EQ(head.headers[1].value, "Basic " + EncodeBase64("x-access-token:" + real));
  // Only the password: a stand-in as the user name is not a login.
  head = Head("GET / HTTP/1.1\r\nHost: git.test\r\nAuthorization: Basic " + EncodeBase64(fake + ":x") +
              "\r\n\r\n");
  EXPECT_TRUE(ApplyLogins(t, mine, head).added.empty());
  // gh's `token` and others' `Bearer` to the API, each in its form.
  auto api_mine = t.For(Host("api.git.test"), 443);
  for (std::string form : {"token ", "Bearer "}) {
    head = Head("GET /user HTTP/1.1\r\nHost: api.git.test\r\nAuthorization: " + form + fake + "\r\n\r\n");
    verdict = ApplyLogins(t, api_mine, head);
    EXPECT_FALSE(verdict.refused) << form;
    EXPECT_EQ(head.headers[1].value, form + real);
  }
  // To another host, even base64-encoded, the stand-in is refused.
  head = Head("GET / HTTP/1.1\r\nHost: other.test\r\nAuthorization: Basic " + EncodeBase64("u:" + fake) +
              "\r\n\r\n");
  verdict = ApplyLogins(t, {}, head);
  ASSERT_TRUE(verdict.refused);
  EXPECT_EQ(verdict.refused->find(real), std::string::npos);
}

TEST(StreamReplacerTest, ReplacesAcrossEveryCut) {
  const std::string text = "a sk-real-0123456789 b sk-real-0123456789sk-real-0123456789 sk-real-012 end";
  const std::string want = "a sk-fake-0123456789 b sk-fake-0123456789sk-fake-0123456789 sk-real-012 end";
  auto table = Table();
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= text.size(); cut2 += 7) {
      StreamReplacer r = HideValues(*table);
      std::string out;
      r.Feed(text.substr(0, cut), out);
      r.Feed(text.substr(cut, cut2 - cut), out);
      r.Feed(text.substr(cut2), out);
      r.Finish(out);
      ASSERT_EQ(out, want) << cut << " " << cut2;
    }
  }
}

TEST(StreamReplacerTest, HoldsOnlyWhatCouldBeginASecret) {
  auto table = Table();
  StreamReplacer r = HideValues(*table);
  std::string out;
  r.Feed("data: {\"x\":1}\n\n", out);
  EXPECT_EQ(out, "data: {\"x\":1}\n\n");  // an SSE event goes on at once
  out.clear();
  r.Feed("data: sk-re", out);
  EXPECT_EQ(out, "data: ");
  EXPECT_EQ(r.held(), 5u);
  EXPECT_FALSE(r.matched());
}

TEST(StreamReplacerTest, FindsAStandInSplitAcrossReads) {
  auto table = Table();
  StreamReplacer scan = FindStandIns(*table);
  std::string out;
  scan.Feed("{\"k\":\"sk-fake-01", out);
  EXPECT_FALSE(scan.matched());
  EXPECT_EQ(out, "{\"k\":\"");  // the start of the stand-in is not passed on yet
  scan.Feed("23456789\"}", out);
  EXPECT_TRUE(scan.matched());
}

}  // namespace
}  // namespace corral::netfilter
