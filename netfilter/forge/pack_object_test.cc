// Delta application and commit parents, on bytes worked out by hand from
// gitformat-pack; object ids checked against `git hash-object`.
#include "netfilter/forge/pack_object.h"

#include <gtest/gtest.h>

#include "netfilter/forge/pack_testing.h"

namespace corral::netfilter::forge {
namespace {

using pack_testing::Copy;
using pack_testing::DeltaSize;
using pack_testing::Insert;

constexpr char kTreeLine[] = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n";
constexpr char kParent1[] = "a2ba419581acc3c7b12bd7cc7cab0221c32a3c44";
constexpr char kParent2[] = "ddd1a0469db36b8ba5330d653e0b753fe60e596a";

TEST(ObjectIdTest, MatchesGitHashObject) {
  Hasher sha1(ObjectFormat::kSha1);
  ASSERT_TRUE(sha1.ok());
  EXPECT_EQ(ObjectId(sha1, "blob", ""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
  EXPECT_EQ(ObjectId(sha1, "blob", "hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(ObjectId(sha1, "tree", ""), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
  Hasher sha256(ObjectFormat::kSha256);
  // git hash-object --object-format=sha256 of an empty blob.
  EXPECT_EQ(ObjectId(sha256, "blob", ""),
            "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813");
}

TEST(ApplyDeltaTest, CopiesAndInserts) {
  std::string delta =
      DeltaSize(11) + DeltaSize(14) + Copy(6, 5) + Insert(", ") + Copy(0, 5) + Insert("!!");
  auto result = ApplyDelta("hello world", delta, 100);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(*result, "world, hello!!");
}

TEST(ApplyDeltaTest, SizeZeroMeans64KiB) {
  std::string base(0x10000 + 3, 'b');
  base[0] = 'a';
  auto result = ApplyDelta(base, DeltaSize(base.size()) + DeltaSize(0x10000) + "\x80", 1 << 20);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->size(), 0x10000u);
  EXPECT_EQ((*result)[0], 'a');
}

TEST(ApplyDeltaTest, RefusesWhatItCannotApplyExactly) {
  std::string head = DeltaSize(5) + DeltaSize(5);
  std::string_view base = "hello";
  EXPECT_FALSE(ApplyDelta(base, head + Copy(1, 5), 100).ok());                // past the base
  EXPECT_FALSE(ApplyDelta(base, head + Copy(6, 1), 100).ok());                // starts past it
  EXPECT_FALSE(ApplyDelta(base, head + Copy(0, 4), 100).ok());                // result too short
  EXPECT_FALSE(ApplyDelta(base, head + Copy(0, 5) + Insert("x"), 100).ok());  // too long
  EXPECT_FALSE(ApplyDelta(base, head + std::string(1, '\0'), 100).ok());      // reserved 0
  EXPECT_FALSE(ApplyDelta(base, head + '\x03' + "ab", 100).ok());             // insert cut short
  EXPECT_FALSE(ApplyDelta(base, head + "\x91", 100).ok());                    // copy cut short
  EXPECT_FALSE(ApplyDelta(base, DeltaSize(4) + DeltaSize(5) + Copy(0, 5), 100).ok());
  EXPECT_FALSE(ApplyDelta(base, head + Copy(0, 5), 4).ok());  // over max
  EXPECT_FALSE(ApplyDelta(base, "", 100).ok());
  EXPECT_FALSE(ApplyDelta(base, "\x85", 100).ok());  // size cut short
  EXPECT_FALSE(ApplyDelta(base, std::string(11, '\xff') + "\x01" + DeltaSize(5), 100).ok());
  EXPECT_TRUE(ApplyDelta(base, head + Copy(0, 5), 5).ok());
}

TEST(ParseParentsTest, NoneOneOrTwo) {
  std::string people = "author A <a@example.com> 0 +0000\n\nmessage\nparent is text here\n";
  auto root = ParseParents(std::string(kTreeLine) + people, ObjectFormat::kSha1);
  ASSERT_TRUE(root.ok()) << root.error().message;
  EXPECT_TRUE(root->empty());
  auto merge = ParseParents(
      std::string(kTreeLine) + "parent " + kParent1 + "\nparent " + kParent2 + "\n" + people,
      ObjectFormat::kSha1);
  ASSERT_TRUE(merge.ok()) << merge.error().message;
  EXPECT_EQ(*merge, (std::vector<std::string>{kParent1, kParent2}));
}

TEST(ParseParentsTest, Sha256IdsAreLonger) {
  std::string tree = "tree " + std::string(64, 'a') + "\n";
  auto parents =
      ParseParents(tree + "parent " + std::string(64, 'B') + "\n\n", ObjectFormat::kSha256);
  ASSERT_TRUE(parents.ok()) << parents.error().message;
  EXPECT_EQ(*parents, (std::vector<std::string>{std::string(64, 'b')}));
  EXPECT_FALSE(ParseParents(std::string(kTreeLine) + "\n", ObjectFormat::kSha256).ok());
  EXPECT_FALSE(ParseParents(tree + "\n", ObjectFormat::kSha1).ok());
}

TEST(ParseParentsTest, MalformedHeadersAreErrors) {
  std::string tree = kTreeLine;
  std::string parent = std::string("parent ") + kParent1 + "\n";
  const std::vector<std::string> bads = {
      "",
      "tree",
      parent + tree,
      "tree 4b825dc642cb6eb9a060e54bf8d69288fbee490\n",    // 39 digits
      "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904 \n",  // a space after
      "tree 4b825dc642cb6eb9a060e54bf8d69288fbee490g\n",
      "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904",  // no line end
      tree + "parent " + std::string(kParent1).substr(1) + "\n",
      tree + "parent " + kParent1 + "0\n",
      tree + "parent \n",
      tree + "author x\n" + parent + "\n",    // git would not read it as a parent
      tree + parent + "author x\n" + parent,  // nor this one
      tree + "parent " + kParent1,            // no line end
  };
  for (const std::string& bad : bads) {
    EXPECT_FALSE(ParseParents(bad, ObjectFormat::kSha1).ok()) << bad;
  }
  // After the empty line, "parent" is message text.
  auto message = ParseParents(tree + "author x\n\n" + parent, ObjectFormat::kSha1);
  ASSERT_TRUE(message.ok());
  EXPECT_TRUE(message->empty());
}

}  // namespace
}  // namespace corral::netfilter::forge
