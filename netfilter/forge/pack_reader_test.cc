// The reader on packs real git made (testdata/packs/make_packs.sh). The
// expected commits are `git rev-list --parents` output, pasted as printed.
#include "netfilter/forge/pack_reader.h"

#include <gtest/gtest.h>

#include "netfilter/forge/pack_testing.h"

namespace corral::netfilter::forge {
namespace {

using pack_testing::FromRevList;
using pack_testing::ReadInPieces;
using pack_testing::ReadPack;
using pack_testing::ReadWhole;

// git rev-list --parents --all: root, "second", "side", the merge, "fifth".
constexpr char kSha1All[] = R"(
394abfcd8ef0d001262b9e246471d7590e1c2164 c258350d84ae06b10bc2285d86583d47e1868f8b
c258350d84ae06b10bc2285d86583d47e1868f8b 30cab50bf12ebdbf563002e599c4719e4c5f8df3 240ad745a01eb298cc05d5cd7778a85c2aaa2ac4
240ad745a01eb298cc05d5cd7778a85c2aaa2ac4 e2be4e1991699e3e5e7a36f4651cf3cf2f2d636f
30cab50bf12ebdbf563002e599c4719e4c5f8df3 e2be4e1991699e3e5e7a36f4651cf3cf2f2d636f
e2be4e1991699e3e5e7a36f4651cf3cf2f2d636f
)";
constexpr char kRoot[] = "e2be4e1991699e3e5e7a36f4651cf3cf2f2d636f";
constexpr char kSecond[] = "30cab50bf12ebdbf563002e599c4719e4c5f8df3";
constexpr char kSide[] = "240ad745a01eb298cc05d5cd7778a85c2aaa2ac4";
constexpr char kFifth[] = "394abfcd8ef0d001262b9e246471d7590e1c2164";
// The force push's commit: a child of the root beside the others.
constexpr char kRewrite[] = "8df823805db49cb8e0efa997aa07cd3557a86ddd";

// git rev-list --parents main ^c2 (the thin pack's commits).
constexpr char kSha1Thin[] = R"(
394abfcd8ef0d001262b9e246471d7590e1c2164 c258350d84ae06b10bc2285d86583d47e1868f8b
c258350d84ae06b10bc2285d86583d47e1868f8b 30cab50bf12ebdbf563002e599c4719e4c5f8df3 240ad745a01eb298cc05d5cd7778a85c2aaa2ac4
240ad745a01eb298cc05d5cd7778a85c2aaa2ac4 e2be4e1991699e3e5e7a36f4651cf3cf2f2d636f
)";

// The same history in a SHA-256 repository.
constexpr char kSha256All[] = R"(
1acf899fe1d84e84993affb1d7165078613068986eb3756aa486aea38bcdb5b2 ff1d65f53034879264c34992314e0e054c84d110f653fac72738924394fe74cb
ff1d65f53034879264c34992314e0e054c84d110f653fac72738924394fe74cb 193b56a68444d407ba3db7856794a481628d8442edb30588da178447ba334bd0 b2bbec7056bddfd4dba2c92c2cfbde516d8ac21d91aea602ec677586bd0ad744
b2bbec7056bddfd4dba2c92c2cfbde516d8ac21d91aea602ec677586bd0ad744 829782f32d1ee554817f4aefb9be2f3a97c915fcbbcbbe38db6dce24fb813966
193b56a68444d407ba3db7856794a481628d8442edb30588da178447ba334bd0 829782f32d1ee554817f4aefb9be2f3a97c915fcbbcbbe38db6dce24fb813966
829782f32d1ee554817f4aefb9be2f3a97c915fcbbcbbe38db6dce24fb813966
)";

// Twelve commits with long messages; `git verify-pack -v` lists eleven of
// them as deltas against the newest, in both packs.
constexpr char kDeltasAll[] = R"(
7615de3c60153c20a9ee297a76884917d40908a9 532b5b5f11e27acb1b1621be9b86596ec1fdc5aa
532b5b5f11e27acb1b1621be9b86596ec1fdc5aa 0524e2372e68b10c49dc0d775fc330427ec39bb5
0524e2372e68b10c49dc0d775fc330427ec39bb5 40d4baea6a1e963ffd4c444ff5be6c1e467bf942
40d4baea6a1e963ffd4c444ff5be6c1e467bf942 b00f494a7a17b875515f482db2e1843fd31fa7b9
b00f494a7a17b875515f482db2e1843fd31fa7b9 5b7a0ce5a7e85a15985314e780ad383ba82c42c4
5b7a0ce5a7e85a15985314e780ad383ba82c42c4 6f30302e8033ff8d2ef7776ad4bcc24dc7b859a6
6f30302e8033ff8d2ef7776ad4bcc24dc7b859a6 338b9d0fb9ef26601d358b92810995416927f8f4
338b9d0fb9ef26601d358b92810995416927f8f4 975554bbc5ad3039c688839a3aae84fed66b5bb2
975554bbc5ad3039c688839a3aae84fed66b5bb2 61b586ead51ef44732b4d6ba63093882f6c8a3bf
61b586ead51ef44732b4d6ba63093882f6c8a3bf 2c22faada80e92cafc221de1cf2a93c9c64f450d
2c22faada80e92cafc221de1cf2a93c9c64f450d 6e0b40fc29aced62c54493bea957716e548f3ae3
6e0b40fc29aced62c54493bea957716e548f3ae3
)";

TEST(PackReaderTest, FullPackWithOffsetDeltas) {
  auto outcome = ReadWhole(ReadPack("full_ofs.pack"));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_TRUE(outcome.done);
  EXPECT_EQ(outcome.commits, FromRevList(kSha1All));
}

TEST(PackReaderTest, FullPackWithRefDeltas) {
  auto outcome = ReadWhole(ReadPack("full_ref.pack"));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, FromRevList(kSha1All));
}

TEST(PackReaderTest, ThinPackHoldsOnlyTheNewCommits) {
  // Its blobs are deltas against blobs the receiver has, not in the pack.
  auto outcome = ReadWhole(ReadPack("thin.pack"));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, FromRevList(kSha1Thin));
}

TEST(PackReaderTest, Sha256Repository) {
  auto outcome = ReadWhole(ReadPack("sha256.pack"), ObjectFormat::kSha256);
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, FromRevList(kSha256All));
}

TEST(PackReaderTest, CommitsSentAsDeltasOfCommits) {
  for (const char* name : {"commit_deltas_ofs.pack", "commit_deltas_ref.pack"}) {
    auto outcome = ReadWhole(ReadPack(name));
    ASSERT_TRUE(outcome.ok) << name << ": " << outcome.error;
    EXPECT_EQ(outcome.commits, FromRevList(kDeltasAll)) << name;
    EXPECT_EQ(Descends(outcome.commits, "7615de3c60153c20a9ee297a76884917d40908a9",
                       "6e0b40fc29aced62c54493bea957716e548f3ae3"),
              Ancestry::kDescends);
  }
}

TEST(PackReaderTest, EmptyPack) {
  auto outcome = ReadWhole(ReadPack("empty.pack"));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_TRUE(outcome.done);
  EXPECT_TRUE(outcome.commits.empty());
}

// `git push` of main over smart HTTP, captured at the server: the request's
// command was "30cab50b… 394abfcd… refs/heads/main".
TEST(PackReaderTest, CapturedFastForwardPushDescends) {
  auto outcome = ReadWhole(ReadPack("push_fast_forward.pack"));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, FromRevList(kSha1Thin));
  EXPECT_EQ(Descends(outcome.commits, kFifth, kSecond), Ancestry::kDescends);
}

// `git push --force` of a rewritten main: "394abfcd… 8df82380… refs/heads/main".
TEST(PackReaderTest, CapturedForcePushIsNotProven) {
  auto outcome = ReadWhole(ReadPack("push_force.pack"));
  ASSERT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(outcome.commits, FromRevList(std::string(kRewrite) + " " + kRoot));
  EXPECT_EQ(Descends(outcome.commits, kRewrite, kFifth), Ancestry::kNotProven);
}

TEST(PackReaderTest, AnySplitReadsTheSame) {
  for (const char* name : {"full_ofs.pack", "full_ref.pack", "thin.pack", "commit_deltas_ofs.pack",
                           "commit_deltas_ref.pack", "empty.pack", "push_force.pack"}) {
    std::string pack = ReadPack(name);
    auto whole = ReadWhole(pack);
    ASSERT_TRUE(whole.ok) << name;
    for (std::size_t piece : {1, 2, 3, 7, 12, 13, 64, 1000}) {
      auto split = ReadInPieces(pack, piece);
      EXPECT_TRUE(split.ok) << name << " in pieces of " << piece << ": " << split.error;
      EXPECT_EQ(split.commits, whole.commits) << name << " in pieces of " << piece;
    }
  }
  auto sha256 = ReadInPieces(ReadPack("sha256.pack"), 1, ObjectFormat::kSha256);
  ASSERT_TRUE(sha256.ok) << sha256.error;
  EXPECT_EQ(sha256.commits, FromRevList(kSha256All));
}

TEST(DescendsTest, WalksBothParentsOfAMerge) {
  CommitGraph all = FromRevList(kSha1All);
  EXPECT_EQ(Descends(all, kFifth, kSide), Ancestry::kDescends);    // second parent's line
  EXPECT_EQ(Descends(all, kFifth, kSecond), Ancestry::kDescends);  // first parent's line
  EXPECT_EQ(Descends(all, kFifth, kRoot), Ancestry::kDescends);
  EXPECT_EQ(Descends(all, kSide, kSecond), Ancestry::kNotProven);  // siblings
  EXPECT_EQ(Descends(all, kRoot, kFifth), Ancestry::kNotProven);   // backwards
}

TEST(DescendsTest, OldCommitOutsideThePackIsReachedAsAParent) {
  // The thin pack lacks the root, yet "side" names it as its parent.
  CommitGraph thin = FromRevList(kSha1Thin);
  EXPECT_EQ(Descends(thin, kFifth, kRoot), Ancestry::kDescends);
  EXPECT_EQ(Descends(thin, kFifth, kRewrite), Ancestry::kNotProven);
}

TEST(DescendsTest, NewCommitNotInThePackIsNotProven) {
  CommitGraph all = FromRevList(kSha1All);
  EXPECT_EQ(Descends(all, kRewrite, kRoot), Ancestry::kNotProven);
  EXPECT_EQ(Descends({}, kFifth, kSecond), Ancestry::kNotProven);
}

TEST(DescendsTest, SameCommitAndEmptyIds) {
  EXPECT_EQ(Descends({}, kFifth, kFifth), Ancestry::kDescends);
  EXPECT_EQ(Descends({}, "", ""), Ancestry::kNotProven);
  EXPECT_EQ(Descends(FromRevList(kSha1All), kFifth, ""), Ancestry::kNotProven);
}

TEST(DescendsTest, CycleOfMadeUpCommitsEnds) {
  CommitGraph cycle = {{"aa", {"bb"}}, {"bb", {"cc", "aa"}}, {"cc", {"aa", "bb"}}};
  EXPECT_EQ(Descends(cycle, "aa", "dd"), Ancestry::kNotProven);
  EXPECT_EQ(Descends(cycle, "aa", "cc"), Ancestry::kDescends);
  CommitGraph self = {{"aa", {"aa"}}};
  EXPECT_EQ(Descends(self, "aa", "bb"), Ancestry::kNotProven);
}

}  // namespace
}  // namespace corral::netfilter::forge
