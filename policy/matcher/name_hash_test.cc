#include "policy/matcher/name_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace corral::policy {
namespace {

TEST(NameTable, FindsWhatWasAddedAndNothingElse) {
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back("name" + std::to_string(i));
  NameTable<int> table;
  for (int i = 0; i < 300; ++i) table.Add(names[i], i);  // grows several times
  for (int i = 0; i < 300; ++i) {
    const int* value = table.Find(names[i]);
    ASSERT_NE(value, nullptr) << names[i];
    EXPECT_EQ(*value, i);
  }
  EXPECT_EQ(table.Find("name300"), nullptr);
  EXPECT_EQ(table.Find("name"), nullptr);
  EXPECT_EQ(table.Find(""), nullptr);
  EXPECT_EQ(NameTable<int>().Find("git"), nullptr);
}

TEST(NameTable, ANameAddedTwiceKeepsItsFirstValue) {
  NameTable<int> table;
  table.Add("sh", 1);
  table.Add("sh", 2);
  ASSERT_NE(table.Find("sh"), nullptr);
  EXPECT_EQ(*table.Find("sh"), 1);
}

TEST(NameHash, EveryByteOfNamesOfEveryLengthCounts) {
  // Names up to 20 bytes long differing in one byte hash differently: each
  // length takes its own path (the overlapping loads of a short name).
  for (std::size_t length = 1; length <= 20; ++length) {
    std::set<std::size_t> hashes;
    std::string base(length, 'a');
    hashes.insert(NameHash{}(base));
    for (std::size_t at = 0; at < length; ++at) {
      std::string name = base;
      name[at] = 'b';
      hashes.insert(NameHash{}(name));
    }
    EXPECT_EQ(hashes.size(), length + 1) << "length " << length;
  }
  EXPECT_NE(NameHash{}("a"), NameHash{}("aa"));
  EXPECT_NE(NameHash{}(""), NameHash{}(std::string_view("\0", 1)));
}

}  // namespace
}  // namespace corral::policy
