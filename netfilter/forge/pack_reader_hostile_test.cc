// The reader on packs that are damaged or built by hand to lie. Each must be
// an error (never a crash, a hang or a large allocation), except the few
// well-formed ones, whose commit ids come from `git hash-object -t commit`.
#include <gtest/gtest.h>

#include "netfilter/forge/pack_reader.h"
#include "netfilter/forge/pack_testing.h"

namespace corral::netfilter::forge {
namespace {

using namespace pack_testing;

constexpr char kTree[] = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n";
constexpr char kPeople[] =
    "author A <a@example.com> 0 +0000\ncommitter A <a@example.com> 0 +0000\n";
constexpr char kA[] = "a2ba419581acc3c7b12bd7cc7cab0221c32a3c44";  // root, message "first"
constexpr char kB[] = "ddd1a0469db36b8ba5330d653e0b753fe60e596a";  // parent A, "second"
constexpr char kC[] = "a47ff9f6f1f0bc00e2bab87c3a1083c583a788fe";  // parent A, "third"

std::string CommitA() { return std::string(kTree) + kPeople + "\nfirst\n"; }
std::string CommitWithParentA(const std::string& message) {
  return std::string(kTree) + "parent " + kA + "\n" + kPeople + "\n" + message;
}

TEST(PackReaderHostileTest, EveryFlippedByteIsAnError) {
  std::string pack = ReadPack("full_ofs.pack");
  for (std::size_t at = 0; at < pack.size(); ++at) {
    std::string bad = pack;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    EXPECT_FALSE(ReadWhole(bad).ok) << "byte " << at;
  }
}

TEST(PackReaderHostileTest, ChecksumMismatchIsNamed) {
  std::string pack = ReadPack("thin.pack");
  pack.back() = static_cast<char>(pack.back() ^ 0x80);
  auto outcome = ReadWhole(pack);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.error.find("checksum"), std::string::npos) << outcome.error;
}

TEST(PackReaderHostileTest, EveryTruncationFailsAtFinish) {
  std::string pack = ReadPack("full_ref.pack");
  for (std::size_t size = 0; size < pack.size(); ++size) {
    PackReader reader;
    ASSERT_TRUE(reader.Feed(std::string_view(pack).substr(0, size)).ok()) << size;
    EXPECT_FALSE(reader.done());
    EXPECT_FALSE(reader.Finish().ok()) << size;
  }
}

TEST(PackReaderHostileTest, BytesAfterTheTrailer) {
  std::string pack = ReadPack("push_force.pack");
  EXPECT_FALSE(ReadWhole(pack + "0").ok);
  PackReader reader;
  ASSERT_TRUE(reader.Feed(pack).ok());
  EXPECT_TRUE(reader.done());
  EXPECT_TRUE(reader.Feed("").ok());
  EXPECT_FALSE(reader.Feed("0000").ok());
  EXPECT_FALSE(reader.done());
  EXPECT_FALSE(reader.Finish().ok());
}

TEST(PackReaderHostileTest, FailureSticks) {
  std::string pack = ReadPack("push_force.pack");
  PackReader reader;
  EXPECT_FALSE(reader.Feed("JUNK, NOT A PACK").ok());
  EXPECT_FALSE(reader.Feed(pack).ok());
  EXPECT_FALSE(reader.Finish().ok());
  EXPECT_TRUE(reader.commits().empty());
}

TEST(PackReaderHostileTest, WrongObjectFormat) {
  EXPECT_FALSE(ReadWhole(ReadPack("full_ofs.pack"), ObjectFormat::kSha256).ok);
  EXPECT_FALSE(ReadWhole(ReadPack("sha256.pack"), ObjectFormat::kSha1).ok);
}

TEST(PackReaderHostileTest, HeaderSignatureAndVersion) {
  std::string objects = Object(kCommitType, CommitA());
  EXPECT_TRUE(ReadWhole(Seal(objects, 1, 2)).ok);
  EXPECT_TRUE(ReadWhole(Seal(objects, 1, 3)).ok);
  EXPECT_FALSE(ReadWhole(Seal(objects, 1, 4)).ok);
  EXPECT_FALSE(ReadWhole(Seal(objects, 1, 1)).ok);
  std::string pack = Seal(objects, 1);
  pack[0] = 'Q';
  EXPECT_FALSE(ReadWhole(pack).ok);
}

TEST(PackReaderHostileTest, InvalidObjectTypes) {
  for (int type : {0, 5}) {
    EXPECT_FALSE(ReadWhole(Seal(ObjectHeader(type, 4) + Deflate("abcd"), 1)).ok) << type;
  }
}

TEST(PackReaderHostileTest, ObjectCountLargerOrSmallerThanTheObjects) {
  std::string objects = Object(kCommitType, CommitA()) + Object(kBlobType, "hello\n");
  EXPECT_TRUE(ReadWhole(Seal(objects, 2)).ok);
  EXPECT_FALSE(ReadWhole(Seal(objects, 0xffffffff)).ok);
  EXPECT_FALSE(ReadWhole(Seal(objects, 3)).ok);
  EXPECT_FALSE(ReadWhole(Seal(objects, 1)).ok);
}

TEST(PackReaderHostileTest, HugeClaimedSizesAreRefusedNotAllocated) {
  // A commit claiming 1 TiB is over any budget before a byte of it arrives.
  auto commit = ReadWhole(Seal(ObjectHeader(kCommitType, uint64_t{1} << 40) + Deflate("x"), 1));
  EXPECT_FALSE(commit.ok);
  EXPECT_NE(commit.error.find("larger than"), std::string::npos) << commit.error;
  // A blob may be large, but must then inflate to what it claims.
  EXPECT_FALSE(ReadWhole(Seal(ObjectHeader(kBlobType, uint64_t{1} << 40) + Deflate("x"), 1)).ok);
  // Sizes past 64 bits overflow.
  std::string endless = "\xb0" + std::string(12, '\xff') + "\x01";
  EXPECT_FALSE(ReadWhole(Seal(endless + Deflate("x"), 1)).ok);
}

TEST(PackReaderHostileTest, SizeHeaderMustMatchTheInflatedLength) {
  std::string content = CommitA();
  for (std::size_t claimed : {content.size() - 1, content.size() + 1, std::size_t{0}}) {
    std::string pack = Seal(ObjectHeader(kCommitType, claimed) + Deflate(content), 1);
    EXPECT_FALSE(ReadWhole(pack).ok) << claimed;
  }
  EXPECT_FALSE(ReadWhole(Seal(ObjectHeader(kBlobType, 5) + Deflate("hello\n"), 1)).ok);
  EXPECT_FALSE(ReadWhole(Seal(ObjectHeader(kBlobType, 7) + Deflate("hello\n"), 1)).ok);
}

TEST(PackReaderHostileTest, CommitDeltaChainIsRebuilt) {
  std::string a = CommitA(), b = CommitWithParentA("second\n"), c = CommitWithParentA("third\n");
  std::size_t shared = a.size() - 6;  // all of A but "first\n"
  std::string b_from_a = DeltaSize(a.size()) + DeltaSize(b.size()) + Copy(0, 46) +
                         Insert(std::string("parent ") + kA + "\n") + Copy(46, shared - 46) +
                         Insert("second\n");
  std::string c_from_b =
      DeltaSize(b.size()) + DeltaSize(c.size()) + Copy(0, b.size() - 7) + Insert("third\n");
  std::string object_b = RefDelta(kA, b_from_a);
  std::string objects = Object(kCommitType, a) + object_b + OfsDelta(object_b.size(), c_from_b);
  for (std::size_t piece : {1, 5, 1000}) {
    auto outcome = ReadInPieces(Seal(objects, 3), piece);
    ASSERT_TRUE(outcome.ok) << outcome.error;
    EXPECT_EQ(outcome.commits, (CommitGraph{{kA, {}}, {kB, {kA}}, {kC, {kA}}}));
  }
}

TEST(PackReaderHostileTest, DeltaOfABlobOrAMissingBaseIsNotKept) {
  std::string blob = Object(kBlobType, "hello\n");
  std::string delta = DeltaSize(6) + DeltaSize(6) + Copy(0, 5) + Insert("!");
  std::string objects = blob + OfsDelta(blob.size(), delta) +
                        RefDelta("ce013625030ba8dba906f756967f9e9ca394464a", delta) +  // the blob
                        RefDelta(kB, delta) + Object(kCommitType, CommitA());
  auto outcome = ReadWhole(Seal(objects, 5));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, (CommitGraph{{kA, {}}}));
}

TEST(PackReaderHostileTest, DeltaCopyingOutOfBoundsIsAnError) {
  std::string a = CommitA();
  std::string commit = Object(kCommitType, a);
  for (std::string bad : {Copy(1, static_cast<uint32_t>(a.size())),         // past the end
                          Copy(static_cast<uint32_t>(a.size()) + 1, 1),     // starts past it
                          Copy(0xffffffff, 0xffffff), Copy(0, 0x10000)}) {  // 0 means 64 KiB
    std::string delta = DeltaSize(a.size()) + DeltaSize(a.size()) + bad;
    EXPECT_FALSE(ReadWhole(Seal(commit + OfsDelta(commit.size(), delta), 2)).ok);
    EXPECT_FALSE(ReadWhole(Seal(commit + RefDelta(kA, delta), 2)).ok);
  }
  std::string wrong_base_size = DeltaSize(a.size() + 1) + DeltaSize(a.size()) + Copy(0, a.size());
  EXPECT_FALSE(ReadWhole(Seal(commit + RefDelta(kA, wrong_base_size), 2)).ok);
}

TEST(PackReaderHostileTest, OffsetDeltaMustNameAnEarlierObject) {
  std::string commit = Object(kCommitType, CommitA());
  std::string delta = DeltaSize(CommitA().size()) + DeltaSize(1) + Insert("x");
  EXPECT_FALSE(ReadWhole(Seal(commit + OfsDelta(commit.size() + 1, delta), 2)).ok);  // mid-object
  EXPECT_FALSE(ReadWhole(Seal(commit + OfsDelta(commit.size() - 1, delta), 2)).ok);
  EXPECT_FALSE(ReadWhole(Seal(commit + OfsDelta(commit.size() + 12, delta), 2)).ok);  // the header
  EXPECT_FALSE(ReadWhole(Seal(commit + OfsDelta(1000000, delta), 2)).ok);
  EXPECT_FALSE(ReadWhole(Seal(commit + OfsDelta(0, delta), 2)).ok);  // itself
  std::string overflow = ObjectHeader(kOfsType, 1) + std::string(10, '\xff') + "\x01";
  EXPECT_FALSE(ReadWhole(Seal(commit + overflow + Deflate("x"), 2)).ok);
}

TEST(PackReaderHostileTest, ParentsAreReadAsGitReadsThem) {
  // git rev-list --parents 2ba2e521… printed the parent in lower case.
  std::string upper = std::string(kTree) + "parent " +
                      "A2BA419581ACC3C7B12BD7CC7CAB0221C32A3C44\n" + kPeople + "\nupper\n";
  auto outcome = ReadWhole(Seal(Object(kCommitType, upper), 1));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, (CommitGraph{{"2ba2e521952895a7724a359ddf082405afa8c500", {kA}}}));
  // git takes no parent from a "parent" line after "author" (rev-list
  // printed none for such a commit), so it is refused, not believed.
  std::string late = std::string(kTree) + "author A <a@example.com> 0 +0000\nparent " + kA +
                     "\ncommitter A <a@example.com> 0 +0000\n\nlate\n";
  EXPECT_FALSE(ReadWhole(Seal(Object(kCommitType, late), 1)).ok);
  std::string short_parent = std::string(kTree) + "parent a2ba41\n" + kPeople + "\nx\n";
  EXPECT_FALSE(ReadWhole(Seal(Object(kCommitType, short_parent), 1)).ok);
  EXPECT_FALSE(ReadWhole(Seal(Object(kCommitType, "no tree\n"), 1)).ok);
}

TEST(PackReaderHostileTest, KeptBytesAreCapped) {
  std::string pack = ReadPack("commit_deltas_ofs.pack");  // 12 commits of ~4 KiB
  EXPECT_TRUE(ReadWhole(pack, ObjectFormat::kSha1, 1 << 20).ok);
  auto outcome = ReadWhole(pack, ObjectFormat::kSha1, 16 << 10);
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.error.find("corral"), std::string::npos) << outcome.error;
}

TEST(PackReaderHostileTest, KeptObjectThatInflatesTooFar) {
  // 4 MiB of one letter deflates to about 4 KiB: a ratio no commit needs.
  std::string bomb = std::string(kTree) + kPeople + "\n" + std::string(4 << 20, 'a');
  auto outcome = ReadWhole(Seal(Object(kCommitType, bomb), 1));
  EXPECT_FALSE(outcome.ok);
  EXPECT_NE(outcome.error.find("inflates too far"), std::string::npos) << outcome.error;
  // The same bytes as a blob are skipped, not kept, and pass.
  EXPECT_TRUE(ReadWhole(Seal(Object(kBlobType, bomb), 1)).ok);
}

}  // namespace
}  // namespace corral::netfilter::forge
