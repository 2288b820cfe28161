#include "netfilter/forge/pkt_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "netfilter/forge/testdata/captured_git.h"

namespace corral::netfilter::forge {
namespace {

template <std::size_t N>
std::string_view Bytes(const char (&literal)[N]) {
  return {literal, N - 1};
}

TEST(ReadPktTest, ReadsALineAndLeavesWhatFollows) {
  Pkt pkt = ReadPkt("0006a\n0000");
  EXPECT_EQ(pkt.kind, PktKind::kLine);
  EXPECT_EQ(pkt.payload, "a\n");
  EXPECT_EQ(pkt.size, 6u);
}

TEST(ReadPktTest, LengthIsHexInEitherCase) {
  Pkt lower = ReadPkt("000aabcdef");
  Pkt upper = ReadPkt("000Aabcdef");
  EXPECT_EQ(lower.kind, PktKind::kLine);
  EXPECT_EQ(upper.kind, PktKind::kLine);
  EXPECT_EQ(lower.payload, "abcdef");
  EXPECT_EQ(upper.payload, "abcdef");
  EXPECT_EQ(ReadPkt("001F# service=git-receive-pack\n").payload, "# service=git-receive-pack\n");
}

TEST(ReadPktTest, SpecialPackets) {
  EXPECT_EQ(ReadPkt("0000").kind, PktKind::kFlush);
  EXPECT_EQ(ReadPkt("0001").kind, PktKind::kDelim);
  EXPECT_EQ(ReadPkt("0002").kind, PktKind::kResponseEnd);
  EXPECT_EQ(ReadPkt("0000rest").size, 4u);
  Pkt empty = ReadPkt("0004");  // an empty line, not a flush
  EXPECT_EQ(empty.kind, PktKind::kLine);
  EXPECT_EQ(empty.payload, "");
}

TEST(ReadPktTest, BadLengthsAreErrors) {
  for (std::string_view bad :
       {"0003", "0003abc", "fff1", "ffff", "00g0", " 004", "+004", "0x10", "-001"}) {
    SCOPED_TRACE(bad);
    Pkt pkt = ReadPkt(bad);
    EXPECT_EQ(pkt.kind, PktKind::kError);
    EXPECT_FALSE(pkt.error.empty());
    EXPECT_EQ(pkt.size, 0u);
  }
  // A bad digit is seen before the other digits arrive.
  EXPECT_EQ(ReadPkt("0z").kind, PktKind::kError);
  EXPECT_EQ(ReadPkt(std::string_view("\0", 1)).kind, PktKind::kError);
}

TEST(ReadPktTest, NeedMoreSaysHowMuch) {
  EXPECT_EQ(ReadPkt("").kind, PktKind::kNeedMore);
  EXPECT_EQ(ReadPkt("").size, 4u);
  EXPECT_EQ(ReadPkt("00").size, 4u);
  Pkt cut = ReadPkt("0009abc");
  EXPECT_EQ(cut.kind, PktKind::kNeedMore);
  EXPECT_EQ(cut.size, 9u);
  Pkt largest = ReadPkt("fff0");  // 65520 is the largest allowed
  EXPECT_EQ(largest.kind, PktKind::kNeedMore);
  EXPECT_EQ(largest.size, 65520u);
  std::string whole = "fff0" + std::string(65516, 'x');
  EXPECT_EQ(ReadPkt(whole).kind, PktKind::kLine);
  EXPECT_EQ(ReadPkt(whole).payload.size(), 65516u);
}

TEST(PktReaderTest, WalksARealAdvertisement) {
  PktReader reader(Bytes(testdata::kReceivePackAd));
  std::vector<PktKind> kinds;
  std::vector<std::string> lines;
  for (;;) {
    Pkt pkt = reader.Next();
    if (pkt.kind == PktKind::kNeedMore || pkt.kind == PktKind::kError) break;
    kinds.push_back(pkt.kind);
    if (pkt.kind == PktKind::kLine) lines.emplace_back(pkt.payload.substr(0, 10));
  }
  std::vector<PktKind> expected = {PktKind::kLine, PktKind::kFlush, PktKind::kLine,
                                   PktKind::kLine, PktKind::kLine,  PktKind::kFlush};
  EXPECT_EQ(kinds, expected);
  EXPECT_EQ(lines,
            (std::vector<std::string>{"# service=", "5844eff1c2", "5844eff1c2", "5844eff1c2"}));
  EXPECT_EQ(reader.offset(), sizeof(testdata::kReceivePackAd) - 1);
  EXPECT_TRUE(reader.rest().empty());
}

TEST(PktReaderTest, StaysPutOnACutPacket) {
  PktReader reader("0005a000");
  EXPECT_EQ(reader.Next().kind, PktKind::kLine);
  EXPECT_EQ(reader.offset(), 5u);
  EXPECT_EQ(reader.Next().kind, PktKind::kNeedMore);
  EXPECT_EQ(reader.offset(), 5u);
  EXPECT_EQ(reader.rest(), "000");
}

TEST(PktLineTest, Encodes) {
  EXPECT_EQ(PktLine("a\n"), "0006a\n");
  EXPECT_EQ(PktLine(""), "0004");
  EXPECT_EQ(PktLine("unpack ok\n"), "000eunpack ok\n");  // as git-http-backend sent it
  EXPECT_EQ(PktLine(std::string(0xab, 'x')).substr(0, 4), "00af");
  EXPECT_EQ(kFlushPkt, "0000");
  EXPECT_EQ(kDelimPkt, "0001");
}

TEST(PktLineTest, LongestPayloadAndCut) {
  std::string longest = PktLine(std::string(65516, 'y'));
  EXPECT_EQ(longest.substr(0, 4), "fff0");
  EXPECT_EQ(longest.size(), 65520u);
  std::string cut = PktLine(std::string(70000, 'y'));
  EXPECT_EQ(cut.substr(0, 4), "fff0");
  EXPECT_EQ(cut.size(), 65520u);
}

TEST(PktLineTest, RoundTrips) {
  for (const std::string& payload :
       std::vector<std::string>{"", "x", "ng refs/heads/main reason\n", std::string(1000, 0)}) {
    std::string framed = PktLine(payload);
    Pkt pkt = ReadPkt(framed);
    EXPECT_EQ(pkt.kind, PktKind::kLine);
    EXPECT_EQ(pkt.payload, payload);
    EXPECT_EQ(pkt.size, framed.size());
  }
}

}  // namespace
}  // namespace corral::netfilter::forge
