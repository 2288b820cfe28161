#include "launcher/engine/engine.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace corral::launcher {
namespace {

IgnoreRules Rules(std::string_view text) {
  auto rules = IgnoreRules::Parse(text);
  EXPECT_TRUE(rules.ok()) << (rules.ok() ? "" : rules.error().message);
  return rules.ok() ? std::move(*rules) : IgnoreRules();
}

// The examples of Docker's .dockerignore documentation.
TEST(IgnoreRules, DocumentedExamples) {
  IgnoreRules rules = Rules("# comment\n*/temp*\n*/*/temp*\ntemp?\n");
  EXPECT_TRUE(rules.Excludes("somedir/temporary.txt"));
  EXPECT_TRUE(rules.Excludes("somedir/temp"));
  EXPECT_TRUE(rules.Excludes("somedir/subdir/temporary.txt"));
  EXPECT_TRUE(rules.Excludes("tempa"));
  EXPECT_FALSE(rules.Excludes("temp"));
  EXPECT_FALSE(rules.Excludes("temporary.txt"));
  EXPECT_FALSE(rules.Excludes("# comment"));

  IgnoreRules go = Rules("**/*.go\n");
  EXPECT_TRUE(go.Excludes("main.go"));
  EXPECT_TRUE(go.Excludes("cmd/tool/main.go"));
  EXPECT_FALSE(go.Excludes("main.gox"));
}

TEST(IgnoreRules, TheLastMatchingLineDecides) {
  IgnoreRules readme = Rules("*.md\n!README.md\n");
  EXPECT_TRUE(readme.Excludes("CHANGES.md"));
  EXPECT_FALSE(readme.Excludes("README.md"));
  EXPECT_TRUE(readme.has_exceptions());

  IgnoreRules secret = Rules("*.md\n!README*.md\nREADME-secret.md\n");
  EXPECT_TRUE(secret.Excludes("README-secret.md"));
  EXPECT_FALSE(secret.Excludes("README-public.md"));

  IgnoreRules all_readmes = Rules("*.md\nREADME-secret.md\n!README*.md\n");
  EXPECT_FALSE(all_readmes.Excludes("README-secret.md"));

  IgnoreRules only = Rules("*\n!src\n!Makefile\n");
  EXPECT_FALSE(only.Excludes("src/main.c"));
  EXPECT_FALSE(only.Excludes("Makefile"));
  EXPECT_TRUE(only.Excludes(".env"));
}

TEST(IgnoreRules, AFolderPatternCoversEverythingInIt) {
  IgnoreRules rules = Rules("node_modules\n.git/\n/secrets/\n");
  EXPECT_TRUE(rules.Excludes("node_modules"));
  EXPECT_TRUE(rules.Excludes("node_modules/left-pad/index.js"));
  EXPECT_TRUE(rules.Excludes(".git/config"));
  EXPECT_TRUE(rules.Excludes("secrets/key.pem"));
  EXPECT_FALSE(rules.Excludes("web/node_modules/x.js"));  // anchored at the root, as Docker is
  EXPECT_FALSE(rules.Excludes("node_modules2"));

  IgnoreRules keep = Rules("vendor\n!vendor/keep\n");
  EXPECT_TRUE(keep.Excludes("vendor/drop/a.c"));
  EXPECT_FALSE(keep.Excludes("vendor/keep/a.c"));
}

TEST(IgnoreRules, GlobSyntax) {
  IgnoreRules rules = Rules("a?c\n[0-9]x\n[^a-y]z\nlit\\*\n./dot/../clean\n**/deep/**\n");
  EXPECT_TRUE(rules.Excludes("abc"));
  EXPECT_FALSE(rules.Excludes("a/c"));  // ? stops at /
  EXPECT_TRUE(rules.Excludes("7x"));
  EXPECT_FALSE(rules.Excludes("ax"));
  EXPECT_TRUE(rules.Excludes("zz"));
  EXPECT_FALSE(rules.Excludes("bz"));
  EXPECT_TRUE(rules.Excludes("lit*"));
  EXPECT_FALSE(rules.Excludes("literal"));
  EXPECT_TRUE(rules.Excludes("clean"));
  EXPECT_TRUE(rules.Excludes("deep/x"));
  EXPECT_TRUE(rules.Excludes("a/b/deep/c/d"));
  EXPECT_FALSE(rules.Excludes("deeper/x"));
}

TEST(IgnoreRules, LinesDockerRefusesAreErrors) {
  EXPECT_FALSE(IgnoreRules::Parse("ok\n!\n").ok());
  EXPECT_FALSE(IgnoreRules::Parse("[abc\n").ok());
  EXPECT_FALSE(IgnoreRules::Parse("[z-a]\n").ok());
  auto bad = IgnoreRules::Parse("x\n\n[oops\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("line 3"), std::string::npos) << bad.error().message;
}

TEST(IgnoreRules, LongPathsStayQuick) {
  IgnoreRules rules = Rules("**/*a*a*a*a*a*a*a*a*b\n");
  std::string path;
  for (int i = 0; i < 200; ++i) path += "aaaaaaaaaa/";
  path += std::string(2000, 'a');
  EXPECT_FALSE(rules.Excludes(path));
}

class ContextEntriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("corral-context-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    for (const char* folder : {"src", "node_modules/pkg", "empty"}) {
      std::filesystem::create_directories(dir_ / folder);
    }
    for (const char* file : {"Dockerfile", "src/main.c", ".env", "node_modules/pkg/index.js"}) {
      std::ofstream(dir_ / file) << "x\n";
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST_F(ContextEntriesTest, WithoutAnIgnoreFileEverythingIsPacked) {
  auto entries = ContextEntries(dir_.string());
  ASSERT_TRUE(entries.ok());
  EXPECT_TRUE(entries->empty());  // tar packs the whole folder
}

TEST_F(ContextEntriesTest, IgnoredEntriesAreLeftOutButTheDockerfileStays) {
  std::ofstream(dir_ / ".dockerignore") << ".env\nnode_modules\nDockerfile\n.dockerignore\n";
  auto entries = ContextEntries(dir_.string());
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  std::vector<std::string> sorted = *entries;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{".", "./.dockerignore", "./Dockerfile", "./empty",
                                              "./src", "./src/main.c"}));
  EXPECT_EQ(entries->front(), ".");
}

TEST_F(ContextEntriesTest, ContainerignoreIsReadWhenThereIsNoDockerignore) {
  std::ofstream(dir_ / ".containerignore") << "src\n";
  auto entries = ContextEntries(dir_.string());
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(std::count(entries->begin(), entries->end(), "./src/main.c"), 0);
  EXPECT_EQ(std::count(entries->begin(), entries->end(), "./.env"), 1);
}

TEST_F(ContextEntriesTest, ABadIgnoreFileNamesItselfAndTheLine) {
  std::ofstream(dir_ / ".dockerignore") << "ok\n[broken\n";
  auto entries = ContextEntries(dir_.string());
  ASSERT_FALSE(entries.ok());
  EXPECT_NE(entries.error().message.find(".dockerignore"), std::string::npos);
  EXPECT_NE(entries.error().message.find("line 2"), std::string::npos);
}

}  // namespace
}  // namespace corral::launcher
