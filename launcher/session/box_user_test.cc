#include "launcher/session/session.h"

#include <gtest/gtest.h>

namespace corral::launcher {
namespace {

constexpr char kPasswd[] =
    "root:x:0:0:root:/root:/bin/bash\n"
    "node:x:1000:1000::/home/node:/bin/bash\n";

TEST(BoxUser, AddsAPasswdLineOnlyWhenTheUidHasNone) {
  EXPECT_EQ(WithPasswdLine(kPasswd, 1000, 1000, "/home/corral"), std::nullopt);
  EXPECT_EQ(WithPasswdLine(kPasswd, 1001, 1002, "/home/corral"),
            std::string(kPasswd) + "corral:x:1001:1002:corral box user:/home/corral:/bin/sh\n");
  // No newline at the end, a taken name, an empty file.
  EXPECT_EQ(WithPasswdLine("corral:x:5:5::/:/bin/sh", 7, 7, "/h"),
            "corral:x:5:5::/:/bin/sh\ncorral7:x:7:7:corral box user:/h:/bin/sh\n");
  EXPECT_EQ(WithPasswdLine("", 7, 7, "/h"), "corral:x:7:7:corral box user:/h:/bin/sh\n");
  // A uid that only appears as a gid or inside a name is not a line for it.
  EXPECT_NE(WithPasswdLine("u1000:x:5:1000::/:/bin/sh\n", 1000, 1000, "/h"), std::nullopt);
}

TEST(BoxUser, AddsAGroupLineOnlyWhenTheGidHasNone) {
  EXPECT_EQ(WithGroupLine("root:x:0:\nstaff:x:50:\n", 50), std::nullopt);
  EXPECT_EQ(WithGroupLine("root:x:0:\n", 50), "root:x:0:\ncorral:x:50:\n");
}

std::string Tar(const std::string& name, const std::string& content, char type = '0') {
  std::string header(512, '\0');
  header.replace(0, name.size(), name);
  char size[12];
  std::snprintf(size, sizeof size, "%011o", static_cast<unsigned>(content.size()));
  header.replace(124, 11, size);
  header[156] = type;
  std::string padded = content + std::string((512 - content.size() % 512) % 512, '\0');
  return header + padded + std::string(1024, '\0');
}

TEST(BoxUser, ReadsTheFirstFileOfATar) {
  EXPECT_EQ(FirstFileInTar(Tar("passwd", kPasswd)), kPasswd);
  EXPECT_EQ(FirstFileInTar(Tar("passwd", "")), "");
  EXPECT_EQ(FirstFileInTar(Tar("passwd", "x", '2')), std::nullopt);  // a symlink
  EXPECT_EQ(FirstFileInTar(Tar("passwd", "x").substr(0, 300)), std::nullopt);
  std::string lying = Tar("passwd", "x");
  lying.replace(124, 11, "77777777777");  // larger than the stream
  EXPECT_EQ(FirstFileInTar(lying), std::nullopt);
}

// The octal number in a tar header field.
unsigned long Octal(const std::string& header, std::size_t at, std::size_t width) {
  return std::stoul(header.substr(at, width), nullptr, 8);
}

TEST(BoxUser, OwnedFoldersTarGivesEachFolderToTheUser) {
  auto tar = OwnedFoldersTar({"/home/alice", "/src/app/node_modules"}, 1000, 1001, 1700000000);
  ASSERT_TRUE(tar);
  ASSERT_EQ(tar->size(), 2 * 512 + 1024u);
  std::string first = tar->substr(0, 512);
  EXPECT_EQ(std::string(first.c_str()), "home/alice/");
  EXPECT_EQ(Octal(first, 100, 7), 0755u);
  EXPECT_EQ(Octal(first, 108, 7), 1000u);
  EXPECT_EQ(Octal(first, 116, 7), 1001u);
  EXPECT_EQ(Octal(first, 136, 11), 1700000000u);
  EXPECT_EQ(first[156], '5');
  EXPECT_EQ(first.substr(257, 6), std::string("ustar\0", 6));
  unsigned sum = 0;
  for (std::size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(first[i]);
  EXPECT_EQ(Octal(first, 148, 6), sum);
  EXPECT_EQ(std::string(tar->c_str() + 512), "src/app/node_modules/");
  EXPECT_EQ(tar->substr(1024), std::string(1024, '\0'));
}

TEST(BoxUser, OwnedFoldersTarSplitsLongPathsAndPaxesLongerOnes) {
  std::string dir = "/" + std::string(80, 'a') + "/" + std::string(60, 'b');
  auto tar = OwnedFoldersTar({dir}, 1, 1, 0);
  ASSERT_TRUE(tar);
  EXPECT_EQ(std::string(tar->c_str()), std::string(60, 'b') + "/");
  EXPECT_EQ(std::string(tar->c_str() + 345), std::string(80, 'a'));
  // Too long for ustar: the path goes in a pax header, which the engines read.
  auto longer = OwnedFoldersTar({"/" + std::string(300, 'c')}, 1, 1, 0);
  ASSERT_TRUE(longer);
  EXPECT_EQ((*longer)[156], 'x');
  auto members = ReadTar(*longer);
  ASSERT_TRUE(members);
  ASSERT_EQ(members->size(), 1u);
  EXPECT_EQ((*members)[0].path, std::string(300, 'c') + "/");
  EXPECT_EQ(OwnedFoldersTar({"/"}, 1, 1, 0), std::nullopt);
}

}  // namespace
}  // namespace corral::launcher
