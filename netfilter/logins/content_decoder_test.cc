#include <brotli/encode.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include "netfilter/logins/logins.h"

namespace corral::netfilter {
namespace {

// zlib with `window`: 15 + 16 gzip, 15 zlib (HTTP's deflate), -15 raw deflate.
std::string Deflate(std::string_view data, int window) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, window, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
std::string Gzip(std::string_view data) { return Deflate(data, 15 + 16); }

std::string Brotli(std::string_view data) {
  std::string out(BrotliEncoderMaxCompressedSize(data.size()) + 64, '\0');
  std::size_t size = out.size();
  EXPECT_TRUE(BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, data.size(),
                                    reinterpret_cast<const uint8_t*>(data.data()), &size,
                                    reinterpret_cast<uint8_t*>(out.data())));
  out.resize(size);
  return out;
}

// Decodes `encoded` fed `step` bytes at a time; every piece is checked
// against the limits' piece size.
Result<std::string> Decode(const std::vector<std::string>& codings, std::string_view encoded,
                           std::size_t step, DecodeLimits limits = {}) {
  auto decoder = ContentDecoder::Make(codings, limits);
  if (!decoder) return decoder.error();
  std::string out;
  std::size_t largest = 0;
  auto sink = [&](std::string_view piece) {
    largest = std::max(largest, piece.size());
    out.append(piece);
    return true;
  };
  for (std::size_t at = 0; at < encoded.size(); at += step) {
    if (auto fed = (*decoder)->Feed(encoded.substr(at, step), sink); !fed) return fed.error();
  }
  if (auto done = (*decoder)->Finish(sink); !done) return done.error();
  EXPECT_LE(largest, limits.piece);
  return out;
}

std::string Text() {
  std::string text;
  for (int i = 0; i < 3000; ++i)
    text += "{\"line\":" + std::to_string(i * 7919 % 1000) + ",\"key\":\"sk-real\"}\n";
  return text;
}

TEST(ContentDecoderTest, EachCodingFedWholeAndByteByByte) {
  const std::string text = Text();
  struct Case {
    std::string coding, encoded;
  };
  const Case cases[] = {{"gzip", Gzip(text)},
                        {"x-gzip", Gzip(text)},
                        {"GZip", Gzip(text)},
                        {"deflate", Deflate(text, 15)},
                        {"deflate", Deflate(text, -15)},  // raw, as some servers send
                        {"br", Brotli(text)}};
  for (const Case& c : cases) {
    for (std::size_t step : {c.encoded.size(), std::size_t{1}, std::size_t{1000}}) {
      auto got = Decode({c.coding}, c.encoded, step);
      ASSERT_TRUE(got.ok()) << c.coding << " " << step << ": " << got.error().message;
      EXPECT_EQ(*got, text) << c.coding << " " << step;
    }
  }
}

TEST(ContentDecoderTest, StackedCodingsAreUndoneLastFirst) {
  const std::string text = Text();
  auto got = Decode({"gzip", "br"}, Brotli(Gzip(text)), 100);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(*got, text);
  got = Decode({"br", "deflate"}, Deflate(Brotli(text), 15), 100);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(*got, text);
}

TEST(ContentDecoderTest, GzipMembersFollowOneAnother) {
  auto got = Decode({"gzip"}, Gzip("first ") + Gzip("second"), 3);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(*got, "first second");
}

TEST(ContentDecoderTest, EmptyBodyIsNoError) {
  for (std::string coding : {"gzip", "deflate", "br"}) {
    auto got = Decode({coding}, "", 1);
    ASSERT_TRUE(got.ok()) << coding << ": " << got.error().message;
    EXPECT_EQ(*got, "");
  }
}

TEST(ContentDecoderTest, TruncatedOrMalformedStreamsFail) {
  const std::string text = Text();
  for (auto [coding, encoded] : std::vector<std::pair<std::string, std::string>>{
           {"gzip", Gzip(text)}, {"deflate", Deflate(text, 15)}, {"br", Brotli(text)}}) {
    auto cut = Decode({coding}, encoded.substr(0, encoded.size() / 2), 64);
    ASSERT_FALSE(cut.ok()) << coding;
    EXPECT_NE(cut.error().message.find("ended early"), std::string::npos) << cut.error().message;
    std::string broken = encoded;
    for (std::size_t i = 10; i < 40; ++i) broken[i] = static_cast<char>(broken[i] ^ 0x5a);
    EXPECT_FALSE(Decode({coding}, broken, 64).ok()) << coding;
  }
  EXPECT_FALSE(Decode({"gzip"}, "this is not gzip at all", 64).ok());
}

TEST(ContentDecoderTest, UnknownCodingsAreRefusedByName) {
  for (std::string coding : {"zstd", "compress", "x-compress", "exi"}) {
    auto made = ContentDecoder::Make({"gzip", coding});
    ASSERT_FALSE(made.ok()) << coding;
    EXPECT_NE(made.error().message.find("'" + coding + "'"), std::string::npos)
        << made.error().message;
  }
  // Text the origin made up is not repeated: it could be a real value.
  auto made = ContentDecoder::Make({"sk-real-0123456789"});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message.find("sk-real"), std::string::npos) << made.error().message;
}

// A bomb: output comes in bounded pieces, and past the limit it stops,
// however small the input, even a bomb inside a bomb.
TEST(ContentDecoderTest, BombsStopAtTheLimitInBoundedPieces) {
  const std::string zeros(24 << 20, '\0');
  const std::string gzip_bomb = Gzip(zeros), br_bomb = Brotli(zeros);
  ASSERT_LT(gzip_bomb.size(), 40u << 10);
  DecodeLimits limits{4 << 20, 16 << 10};
  for (auto [codings, encoded] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"gzip"}, gzip_bomb}, {{"br"}, br_bomb}, {{"gzip", "gzip"}, Gzip(gzip_bomb)}}) {
    auto decoder = ContentDecoder::Make(codings, limits);
    ASSERT_TRUE(decoder.ok());
    std::size_t got = 0, largest = 0;
    auto fed = (*decoder)->Feed(encoded, [&](std::string_view piece) {
      got += piece.size();
      largest = std::max(largest, piece.size());
      return true;
    });
    ASSERT_FALSE(fed.ok()) << codings.back();
    EXPECT_NE(fed.error().message.find("more than 4 MiB"), std::string::npos)
        << fed.error().message;
    EXPECT_LE(got, limits.max_total);
    EXPECT_LE(largest, limits.piece);
    EXPECT_FALSE(
        (*decoder)->Feed("more", [](std::string_view) { return true; }).ok());  // it stays failed
  }
}

TEST(ContentDecoderTest, AStoppedSinkStopsTheDecoding) {
  auto decoder = ContentDecoder::Make({"gzip"}, {1 << 30, 1024});
  ASSERT_TRUE(decoder.ok());
  int pieces = 0;
  auto fed = (*decoder)->Feed(Gzip(std::string(100000, 'a')),
                              [&](std::string_view) { return ++pieces < 3; });
  EXPECT_FALSE(fed.ok());
  EXPECT_EQ(pieces, 3);
}

TEST(ContentDecoderTest, BodyCodingsInTheOrderApplied) {
  ResponseHead res;
  res.headers = {{"Content-Type", "text/plain"},
                 {"Content-Encoding", " GZIP ,br"},
                 {"content-encoding", "identity"},
                 {"Content-Encoding", "x-gzip"}};
  res.transfer_codings = {"deflate"};
  EXPECT_EQ(BodyCodings(res), (std::vector<std::string>{"gzip", "br", "x-gzip", "deflate"}));
  res.headers = {{"Content-Encoding", "identity"}};
  res.transfer_codings.clear();
  EXPECT_TRUE(BodyCodings(res).empty());
}

TEST(ContentDecoderTest, DecodedHeadIsChunkedWithoutTheCodings) {
  ResponseHead res;
  res.body = BodyKind::kLength;
  res.content_length = 120;
  res.headers = {{"Content-Type", "application/json"},
                 {"content-encoding", "gzip"},
                 {"Content-Length", "120"},
                 {"ETag", "W/\"1\""}};
  res.transfer_codings = {"br"};
  ResponseHead sent = DecodedHead(res);
  EXPECT_EQ(sent.body, BodyKind::kChunked);
  EXPECT_TRUE(sent.transfer_codings.empty());
  ASSERT_EQ(sent.headers.size(), 2u);
  EXPECT_EQ(sent.headers[0].name, "Content-Type");
  EXPECT_EQ(sent.headers[1].name, "ETag");
  std::string head = ClientResponseHead(sent, false, 1, false, false);
  EXPECT_NE(head.find("Transfer-Encoding: chunked\r\n"), std::string::npos) << head;
  EXPECT_EQ(head.find("ncoding: gzip"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
}

TEST(ReadableAcceptEncodingTest, KeepsOnlyWhatTheProxyDecodes) {
  EXPECT_EQ(ReadableAcceptEncoding("gzip, deflate, br, zstd"), "gzip, deflate, br");
  EXPECT_EQ(ReadableAcceptEncoding("br;q=1.0, zstd;q=0.9,gzip;q=0.8"), "br;q=1.0, gzip;q=0.8");
  EXPECT_EQ(ReadableAcceptEncoding("zstd"), "identity");
  EXPECT_EQ(ReadableAcceptEncoding("*"), "identity");
  EXPECT_EQ(ReadableAcceptEncoding("identity;q=1, *;q=0"), "identity;q=1");
  EXPECT_EQ(ReadableAcceptEncoding("X-GZIP, compress"), "X-GZIP");
  EXPECT_EQ(ReadableAcceptEncoding(""), "identity");
}

}  // namespace
}  // namespace corral::netfilter
