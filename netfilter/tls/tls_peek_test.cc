#include "netfilter/tls/tls.h"

#include <gtest/gtest.h>

namespace corral::netfilter {
namespace {

void Put16(std::string& s, std::size_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v & 0xff));
}

std::string ServerNameExtension(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& n : names) {
    list.push_back(0);
    Put16(list, n.size());
    list += n;
  }
  std::string ext;
  Put16(ext, 0);  // server_name
  Put16(ext, list.size() + 2);
  Put16(ext, list.size());
  return ext + list;
}

// A ClientHello body with the given extensions block content.
std::string Hello(const std::string& extensions) {
  std::string body;
  Put16(body, 0x0303);
  body += std::string(32, 'r');
  body.push_back(0);  // session id
  Put16(body, 2);
  Put16(body, 0x1301);
  body.push_back(1);
  body.push_back(0);
  Put16(body, extensions.size());
  body += extensions;
  std::string hs;
  hs.push_back(1);
  hs.push_back(0);
  Put16(hs, body.size());
  return hs + body;
}

// Wraps handshake bytes in records of at most `max_record` bytes each.
std::string Records(const std::string& handshake, std::size_t max_record = 16384) {
  std::string out;
  for (std::size_t pos = 0; pos < handshake.size(); pos += max_record) {
    std::string part = handshake.substr(pos, max_record);
    out.push_back(22);
    out.push_back(3);
    out.push_back(1);
    Put16(out, part.size());
    out += part;
  }
  return out;
}

std::string Padding(std::size_t n) {
  std::string ext;
  Put16(ext, 21);
  Put16(ext, n);
  return ext + std::string(n, '\0');
}

TEST(TlsPeek, FindsServerName) {
  auto peek = PeekClientHello(Records(Hello(Padding(10) + ServerNameExtension({"example.com"}))));
  EXPECT_EQ(peek.state, HelloState::kSni);
  EXPECT_EQ(peek.server_name, "example.com");
}

TEST(TlsPeek, SplitOverSegmentsAndRecords) {
  std::string data = Records(Hello(Padding(3000) + ServerNameExtension({"a.example"})), 100);
  for (std::size_t cut = 0; cut < data.size(); cut += 37) {
    EXPECT_EQ(PeekClientHello(std::string_view(data).substr(0, cut)).state, HelloState::kNeedMore) << cut;
  }
  auto peek = PeekClientHello(data);
  EXPECT_EQ(peek.state, HelloState::kSni);
  EXPECT_EQ(peek.server_name, "a.example");
}

// However TCP cuts the first flight, a prefix waits for more: even a
// segment holding only the 5-byte record header.
TEST(TlsPeek, EveryPrefixNeedsMore) {
  std::string data = Records(Hello(Padding(40) + ServerNameExtension({"a.example"})), 50);
  for (std::size_t cut = 0; cut < data.size(); ++cut) {
    EXPECT_EQ(PeekClientHello(std::string_view(data).substr(0, cut)).state, HelloState::kNeedMore) << cut;
  }
  EXPECT_EQ(PeekClientHello(data).state, HelloState::kSni);
}

TEST(TlsPeek, ServerNameMustBeAscii) {
  EXPECT_EQ(PeekClientHello(Records(Hello(ServerNameExtension({"a\xe3\x80\x82" "example"})))).state,
            HelloState::kMalformed);
  EXPECT_EQ(PeekClientHello(Records(Hello(ServerNameExtension({"\xef\xbd\x81.example"})))).state,
            HelloState::kMalformed);
}

TEST(TlsPeek, NoSniAndNotTls) {
  EXPECT_EQ(PeekClientHello(Records(Hello(Padding(4)))).state, HelloState::kNoSni);
  EXPECT_EQ(PeekClientHello("SSH-2.0-OpenSSH_9.2\r\n").state, HelloState::kNotTls);
  EXPECT_EQ(PeekClientHello("GET / HTTP/1.1\r\n").state, HelloState::kNotTls);
  EXPECT_EQ(PeekClientHello("").state, HelloState::kNeedMore);
}

TEST(TlsPeek, MalformedHellos) {
  EXPECT_EQ(PeekClientHello(Records(Hello(ServerNameExtension({"a.com"}) + ServerNameExtension({"b.com"})))).state,
            HelloState::kMalformed);
  EXPECT_EQ(PeekClientHello(Records(Hello(ServerNameExtension({"a.com", "b.com"})))).state,
            HelloState::kMalformed);
  std::string hello = Hello(ServerNameExtension({"a.com"}));
  hello[0] = 2;  // ServerHello
  EXPECT_EQ(PeekClientHello(Records(hello)).state, HelloState::kMalformed);
  std::string truncated = Hello(ServerNameExtension({"a.com"}));
  truncated[3] = static_cast<char>(truncated[3] - 3);  // handshake shorter than its content
  EXPECT_EQ(PeekClientHello(Records(truncated)).state, HelloState::kMalformed);
  std::string alert = Records(Hello(""));
  alert[0] = 21;
  EXPECT_EQ(PeekClientHello(alert).state, HelloState::kNotTls);
  std::string mixed = Records(Hello(Padding(300) + ServerNameExtension({"a.com"})), 100);
  mixed[105] = 23;  // second record is application data
  EXPECT_EQ(PeekClientHello(mixed).state, HelloState::kMalformed);
}

TEST(TlsPeek, JudgedAgainstTheConnectHost) {
  CanonicalHost host = *Canonicalize("a.com");
  auto judge = [&](std::string_view flight) { return JudgeHello(PeekClientHello(flight), host); };
  EXPECT_FALSE(judge(Records(Hello(ServerNameExtension({"A.com."})))));  // the same host, spelled otherwise
  EXPECT_FALSE(judge(Records(Hello(Padding(4)))));                        // no name to compare
  EXPECT_FALSE(judge("SSH-2.0-OpenSSH_9.2\r\n"));                          // not TLS: not judged
  EXPECT_FALSE(judge(Records(Hello(ServerNameExtension({"b.com"}))).substr(0, 20)));  // needs more
  EXPECT_EQ(judge(Records(Hello(ServerNameExtension({"b.com"}))))->code, "sni-mismatch");
  std::string hello = Hello(ServerNameExtension({"a.com"}));
  hello[0] = 2;  // ServerHello
  EXPECT_EQ(judge(Records(hello))->code, "bad-client-hello");
}

}  // namespace
}  // namespace corral::netfilter
