#include "launcher/box_user.h"

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

}  // namespace
}  // namespace corral::launcher
