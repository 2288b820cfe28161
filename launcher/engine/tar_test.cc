// ReadTar against tars made by GNU tar (testdata/, made with --format=gnu,
// pax and ustar from one folder) and against WriteTar's own.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

const std::string kDeep = std::string(60, 'd') + "/" + std::string(60, 'd');

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(CORRAL_SOURCE_DIR) + "/launcher/engine/testdata/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const TarEntry* Find(const std::vector<TarEntry>& entries, const std::string& path) {
  for (const auto& entry : entries) {
    if (entry.path == path) return &entry;
  }
  return nullptr;
}

void ExpectTheFolder(const std::vector<TarEntry>& entries, bool long_link) {
  const TarEntry* run = Find(entries, "./run.sh");
  const TarEntry* hard = Find(entries, "./hard");
  ASSERT_TRUE(run && hard);
  // tar stores the second name of a file as a hard link to the first.
  const TarEntry* file = hard->kind == TarEntry::kFile ? hard : run;
  const TarEntry* link = hard->kind == TarEntry::kFile ? run : hard;
  EXPECT_EQ(file->kind, TarEntry::kFile);
  EXPECT_EQ(file->content, "#!/bin/sh\necho hi\n");
  EXPECT_EQ(file->mode, 0751u);
  EXPECT_EQ(file->uid, 1000u);
  EXPECT_EQ(file->gid, 1000u);
  EXPECT_EQ(file->mtime, 1700000000);
  EXPECT_EQ(link->kind, TarEntry::kHardlink);
  EXPECT_EQ(link->content, file->path);
  const TarEntry* big = Find(entries, "./big");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->content, std::string(1000, 'z'));
  const TarEntry* deep = Find(entries, "./" + kDeep + "/long-file-name.txt");
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->content, "deep\n");
  const TarEntry* folder = Find(entries, "./" + kDeep + "/");
  ASSERT_TRUE(folder);
  EXPECT_EQ(folder->kind, TarEntry::kFolder);
  const TarEntry* short_link = Find(entries, "./short");
  ASSERT_TRUE(short_link);
  EXPECT_EQ(short_link->kind, TarEntry::kSymlink);
  EXPECT_EQ(short_link->content, "run.sh");
  if (long_link) {
    const TarEntry* longlink = Find(entries, "./longlink");
    ASSERT_TRUE(longlink);
    EXPECT_EQ(longlink->kind, TarEntry::kSymlink);
    EXPECT_EQ(longlink->content, kDeep + "/long-file-name.txt");
  }
}

TEST(ReadTar, GnuTarsLongNamesAndLinks) {
  auto entries = ReadTar(Fixture("gnu.tar"));
  ASSERT_TRUE(entries) << entries.error().message;
  ExpectTheFolder(*entries, /*long_link=*/true);
}

TEST(ReadTar, PaxPathsAndLinks) {
  auto entries = ReadTar(Fixture("pax.tar"));
  ASSERT_TRUE(entries) << entries.error().message;
  ExpectTheFolder(*entries, /*long_link=*/true);
  for (const auto& entry : *entries) {
    EXPECT_EQ(entry.path.find("PaxHeaders"), std::string::npos) << entry.path;
  }
}

TEST(ReadTar, UstarPrefixes) {
  auto entries = ReadTar(Fixture("ustar.tar"));
  ASSERT_TRUE(entries) << entries.error().message;
  ExpectTheFolder(*entries, /*long_link=*/false);  // ustar cannot hold the long link
}

TEST(ReadTar, WhatWriteTarWrote) {
  std::string long_path = std::string(120, 'a') + "/" + std::string(150, 'b') + "/file";
  std::vector<TarEntry> written = {
      {TarEntry::kFolder, "top", "", 0700, 1, 2, 5},
      {TarEntry::kFile, "top/x", std::string(700, 'x'), 0640, 1000, 1000, 1700000001},
      {TarEntry::kSymlink, "top/l", std::string(300, 'c'), 0777, 0, 0},
      {TarEntry::kFile, long_path, "long", 0600, 0, 0},
      {TarEntry::kHardlink, "top/h", "top/x", 0640, 0, 0},
  };
  auto tar = WriteTar(written, 42);
  ASSERT_TRUE(tar);
  auto read = ReadTar(*tar);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->size(), written.size());
  EXPECT_EQ((*read)[0].path, "top/");
  EXPECT_EQ((*read)[0].mode, 0700u);
  EXPECT_EQ((*read)[0].mtime, 5);
  EXPECT_EQ((*read)[1].content, std::string(700, 'x'));
  EXPECT_EQ((*read)[1].uid, 1000u);
  EXPECT_EQ((*read)[1].mtime, 1700000001);
  EXPECT_EQ((*read)[2].kind, TarEntry::kSymlink);
  EXPECT_EQ((*read)[2].content, std::string(300, 'c'));
  EXPECT_EQ((*read)[2].mtime, 42);
  EXPECT_EQ((*read)[3].path, long_path);
  EXPECT_EQ((*read)[3].content, "long");
  EXPECT_EQ((*read)[4].kind, TarEntry::kHardlink);
  EXPECT_EQ((*read)[4].content, "top/x");
  EXPECT_EQ(WriteTar({{TarEntry::kOther, "fifo", "", 0644, 0, 0}}, 0), std::nullopt);
}

TEST(ReadTar, RefusesBrokenStreams) {
  auto tar = *WriteTar({{TarEntry::kFile, "f", std::string(600, 'x'), 0644, 0, 0}}, 0);
  std::string bad_sum = tar;
  bad_sum[0] = 'g';
  EXPECT_FALSE(ReadTar(bad_sum));
  EXPECT_FALSE(ReadTar(tar.substr(0, 700)));  // the content is cut short
  EXPECT_FALSE(ReadTar(tar.substr(0, 300)));  // inside the header
  auto empty = ReadTar(std::string(1024, '\0'));
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace corral::launcher
