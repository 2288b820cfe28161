// HideValues on base64 text: a real value base64-encoded inside a response
// (an echoed Basic header, a token in base64'd JSON) reaches the box as its
// stand-in's encoding, at every byte alignment, in both alphabets, however
// the stream is cut.
#include <gtest/gtest.h>

#include <algorithm>

#include "netfilter/logins/logins.h"

namespace corral::netfilter {
namespace {

// '>' and '?' put '+' and '/' in the base64 text, so the URL-safe forms differ.
const std::string kReal = "ghp_R3alT0ken>?9876543210zyxw";
const std::string kFake = "ghp_F4keS7and>?0123456789abcd";

std::shared_ptr<const LoginTable> Table() {
  Login git{"GH_TOKEN", {"git.test:443"}, "Authorization", "Basic ", kReal, kFake};
  git.basic = true;
  auto table = LoginTable::Make({git});
  EXPECT_TRUE(table.ok()) << table.error().message;
  return *table;
}

std::string Hide(std::string_view text) {
  StreamReplacer hide = HideValues(*Table());
  std::string out;
  hide.Feed(text, out);
  hide.Finish(out);
  return out;
}

// The test's own encoder, bit by bit (not the proxy's EncodeBase64).
std::string Encode(std::string_view bytes, bool url_safe, bool pad) {
  std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  alphabet += url_safe ? "-_" : "+/";
  std::string out;
  std::size_t bits = bytes.size() * 8;
  for (std::size_t at = 0; at < bits; at += 6) {
    int v = 0;
    for (std::size_t b = at; b < at + 6; ++b) {
      int bit = b < bits ? (static_cast<uint8_t>(bytes[b / 8]) >> (7 - b % 8)) & 1 : 0;
      v = v * 2 + bit;
    }
    out += alphabet[v];
  }
  while (pad && out.size() % 4 != 0) out += '=';
  return out;
}

// What the box must get for `before + kReal + after` encoded: each character
// whose 6 bits all lie in the value taken from the stand-in's encoding, the
// others (the neighbours' bits, and the one or two that mix both) as they were.
std::string Expected(const std::string& before, const std::string& after, bool url_safe, bool pad) {
  std::string real = Encode(before + kReal + after, url_safe, pad);
  std::string fake = Encode(before + kFake + after, url_safe, pad);
  std::size_t lo = 8 * before.size(), hi = lo + 8 * kReal.size();
  for (std::size_t k = 0; k < real.size(); ++k) {
    if (6 * k >= lo && 6 * k + 6 <= hi) real[k] = fake[k];
  }
  return real;
}

// Literals from Python's base64 module (tests in the comments): the proxy's
// answer to an endpoint that echoes git's Basic credentials, at each
// alignment of the token in the encoded "user:token".
TEST(HideValuesBase64Test, EchoedBasicHeaderAtEachAlignment) {
  struct Case {
    std::string user;
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      // base64.b64encode(b"x-access-token:" + real): the token at alignment 0
      {"x-access-token:", "eC1hY2Nlc3MtdG9rZW46Z2hwX1IzYWxUMGtlbj4/OTg3NjU0MzIxMHp5eHc=",
       "eC1hY2Nlc3MtdG9rZW46Z2hwX0Y0a2VTN2FuZD4/MDEyMzQ1Njc4OWFiY2c="},
      // b"abc:" + real: alignment 1 ("m", of ':' and the token's first 4 bits, stays)
      {"abc:", "YWJjOmdocF9SM2FsVDBrZW4+Pzk4NzY1NDMyMTB6eXh3",
       "YWJjOmdocF9GNGtlUzdhbmQ+PzAxMjM0NTY3ODlhYmNk"},
      // b"x:" + real: alignment 2 (the last "w", of the token's last 2 bits, stays)
      {"x:", "eDpnaHBfUjNhbFQwa2VuPj85ODc2NTQzMjEwenl4dw==",
       "eDpnaHBfRjRrZVM3YW5kPj8wMTIzNDU2Nzg5YWJjZw=="},
  };
  for (const Case& c : cases) {
    std::string head =
        std::string("HTTP/1.1 200 OK\r\nX-Echo: Authorization: Basic ") + c.in + "\r\n\r\n";
    std::string want =
        std::string("HTTP/1.1 200 OK\r\nX-Echo: Authorization: Basic ") + c.out + "\r\n\r\n";
    EXPECT_EQ(Hide(head), want) << c.in;
    // The test's own encoder and rule agree with Python's.
    EXPECT_EQ(Encode(c.user + kReal, false, true), c.in) << c.user;
    EXPECT_EQ(Expected(c.user, "", false, true), c.out) << c.user;
  }
}

TEST(HideValuesBase64Test, UrlSafeAlphabet) {
  // base64.urlsafe_b64encode(b"abc:" + real).rstrip(b"=")
  EXPECT_EQ(Hide("token=YWJjOmdocF9SM2FsVDBrZW4-Pzk4NzY1NDMyMTB6eXh3&x=1"),
            "token=YWJjOmdocF9GNGtlUzdhbmQ-PzAxMjM0NTY3ODlhYmNk&x=1");
  // base64.urlsafe_b64encode(b"xy:" + real).rstrip(b"=")
  EXPECT_EQ(Hide("\"eHk6Z2hwX1IzYWxUMGtlbj4_OTg3NjU0MzIxMHp5eHc\""),
            "\"eHk6Z2hwX0Y0a2VTN2FuZD4_MDEyMzQ1Njc4OWFiY2c\"");
}

// base64.b64encode(b'{"token":"' + real + b'","scope":"repo"}'), inside JSON.
const std::string kJsonIn =
    "{\"data\":\"eyJ0b2tlbiI6ImdocF9SM2FsVDBrZW4+Pzk4NzY1NDMyMTB6eXh3Iiwic2NvcGUiOiJyZXBvIn0=\"}";
const std::string kJsonOut =
    "{\"data\":\"eyJ0b2tlbiI6ImdocF9GNGtlUzdhbmQ+PzAxMjM0NTY3ODlhYmNkIiwic2NvcGUiOiJyZXBvIn0=\"}";

TEST(HideValuesBase64Test, TokenInsideBase64dJson) { EXPECT_EQ(Hide(kJsonIn), kJsonOut); }

TEST(HideValuesBase64Test, SplitAcrossChunksAtEveryCut) {
  auto table = Table();
  for (std::size_t cut = 0; cut <= kJsonIn.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= kJsonIn.size(); ++cut2) {
      StreamReplacer hide = HideValues(*table);
      std::string out;
      hide.Feed(kJsonIn.substr(0, cut), out);
      hide.Feed(kJsonIn.substr(cut, cut2 - cut), out);
      hide.Feed(kJsonIn.substr(cut2), out);
      hide.Finish(out);
      ASSERT_EQ(out, kJsonOut) << cut << " " << cut2;
    }
  }
}

// Every alignment, neighbours of every length and byte value, both
// alphabets, padded or not: the box gets exactly the expected text.
TEST(HideValuesBase64Test, EveryAlignmentAndNeighbour) {
  const std::string bytes = std::string("\x00\xff\x7f\x80 a:", 7);
  for (std::size_t before_size = 0; before_size <= 6; ++before_size) {
    for (std::size_t after_size = 0; after_size <= 4; ++after_size) {
      for (std::size_t seed = 0; seed < bytes.size(); ++seed) {
        std::string before, after;
        for (std::size_t i = 0; i < before_size; ++i) before += bytes[(seed + i) % bytes.size()];
        for (std::size_t i = 0; i < after_size; ++i)
          after += bytes[(seed + 3 * i + 1) % bytes.size()];
        for (bool url_safe : {false, true}) {
          for (bool pad : {false, true}) {
            std::string text = Encode(before + kReal + after, url_safe, pad);
            std::string want = Expected(before, after, url_safe, pad);
            std::string got = Hide("[" + text + "]");
            ASSERT_EQ(got, "[" + want + "]")
                << before_size << " " << after_size << " " << seed << " " << url_safe << pad;
          }
        }
      }
    }
  }
}

TEST(HideValuesBase64Test, OtherBase64AndTheRawValue) {
  std::string other = Encode("nothing secret here, just text", false, true);
  EXPECT_EQ(Hide(other), other);
  EXPECT_EQ(Hide("raw " + kReal + " raw"), "raw " + kFake + " raw");  // as before
}

// StreamReplacer's one-pass search against the plain definition: at each
// position, the first pair (in order) whose pattern begins there, then on
// past it. No pattern holds another (LoginTable::Make refuses overlapping
// values), but some share their first bytes; random text, random cuts.
TEST(StreamReplacerSearchTest, MatchesTheNaiveDefinition) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  const Pairs short_ones = {{"abcd", "WXYZ"}, {"abdc", "1234"}, {"bcab", "QQQQ"}, {"dd", "!!"}};
  const Pairs long_ones = {{"abcdab", "WXYZWX"}, {"abcdba", "123456"}, {"dcbadcba", "eeeeeeee"}};
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
  for (const Pairs& pairs : {short_ones, long_ones}) {
    auto naive = [&](const std::string& text) {
      std::string out;
      for (std::size_t i = 0; i < text.size();) {
        auto it = std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) {
          return std::string_view(text).substr(i).starts_with(p.first);
        });
        if (it == pairs.end()) {
          out += text[i++];
        } else {
          out += it->second;
          i += it->first.size();
        }
      }
      return out;
    };
    for (int round = 0; round < 3000; ++round) {
      std::string text;
      for (std::size_t n = next() % 60; n > 0; --n) text += "abcd"[next() % 4];
      StreamReplacer r(pairs);
      std::string out;
      for (std::size_t at = 0; at < text.size();) {
        std::size_t take = 1 + next() % 9;
        r.Feed(std::string_view(text).substr(at, take), out);
        at += take;
      }
      r.Finish(out);
      ASSERT_EQ(out, naive(text)) << text;
    }
  }
}

}  // namespace
}  // namespace corral::netfilter
