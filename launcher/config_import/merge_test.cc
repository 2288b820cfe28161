// Merging into the user's config: lists merged into what corral uses now,
// values already set kept and reported, the old file backed up, and the
// result read back through corral's own loader.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

namespace fs = std::filesystem;
using V = std::vector<std::string>;

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/corral-import-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    config_ = dir_ + "/cfg/corral/config.yaml";
  }
  void TearDown() override { fs::remove_all(dir_); }

  void WriteConfig(const std::string& text) {
    fs::create_directories(fs::path(config_).parent_path());
    std::ofstream(config_) << text;
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static Translation Github() {
    Translation t;
    t.Append("network.allowed_domains", {"github.com", "*.github.com", "pypi.org"}, "a");
    t.Append("filesystem.deny_read", {".env"}, "b");
    return t;
  }
  V Loaded(const std::string& key) {
    auto policy = LoadFileOnly(config_);
    EXPECT_TRUE(policy) << policy.error().message;
    return policy ? policy->settings.at(key).value.get<V>() : V{};
  }
  const KeyOutcome* Outcome(const MergeResult& m, const std::string& key) {
    for (const auto& o : m.outcomes) {
      if (o.key == key) return &o;
    }
    ADD_FAILURE() << "no outcome for " << key;
    return nullptr;
  }

  std::string dir_, config_;
};

TEST_F(MergeTest, ANewConfigGetsCorralsDefaultListsPlusTheImportedEntries) {
  auto merge = PlanMerge(Github(), config_);
  ASSERT_TRUE(merge) << merge.error().message;
  // pypi.org is in corral's default list, .env in the default deny_read.
  EXPECT_EQ(Outcome(*merge, "network.allowed_domains")->kind, KeyOutcome::kNew);
  EXPECT_EQ(Outcome(*merge, "filesystem.deny_read")->kind, KeyOutcome::kAlreadySet);
  ASSERT_TRUE(merge->changed);
  ASSERT_TRUE(WriteMerge(*merge)) << merge->merged_text;
  EXPECT_TRUE(merge->backup_path.empty());
  V domains = Loaded("network.allowed_domains");
  EXPECT_EQ(domains.front(), "registry.npmjs.org");  // the default list, kept
  EXPECT_EQ(domains.size(), 14u);
  EXPECT_EQ(domains.back(), "*.github.com");
  EXPECT_EQ(std::count(domains.begin(), domains.end(), "pypi.org"), 1);
  struct stat st {};
  ASSERT_EQ(::stat(config_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(MergeTest, ListsAreMergedAndValuesAlreadySetAreKept) {
  WriteConfig("# mine\nlevel: unattended\nnetwork:\n  allowed_domains: [example.com, github.com]\n"
              "limits:\n  pids: 300\n");
  Translation t = Github();
  t.Set("level", "always", "sandbox_mode");
  t.Set("agents.ask_first", true, "approval_policy");
  auto merge = PlanMerge(t, config_);
  ASSERT_TRUE(merge) << merge.error().message;
  EXPECT_EQ(Outcome(*merge, "network.allowed_domains")->kind, KeyOutcome::kAdded);
  EXPECT_EQ(Outcome(*merge, "level")->kind, KeyOutcome::kKeptExisting);
  EXPECT_NE(Outcome(*merge, "level")->detail.find("already set to \"unattended\""),
            std::string::npos);
  EXPECT_EQ(Outcome(*merge, "agents.ask_first")->kind, KeyOutcome::kNew);
  EXPECT_TRUE(merge->conflicts);
  std::string before = Read(config_);
  ASSERT_TRUE(WriteMerge(*merge));
  EXPECT_EQ(merge->backup_path, config_ + ".bak");
  EXPECT_EQ(Read(merge->backup_path), before);
  EXPECT_EQ(Loaded("network.allowed_domains"),
            (V{"example.com", "github.com", "*.github.com", "pypi.org"}));
  auto policy = LoadFileOnly(config_);
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->settings.at("level").value, "unattended");
  EXPECT_EQ(policy->settings.at("agents.ask_first").value, true);
  EXPECT_EQ(policy->settings.at("limits.pids").value, 300);  // untouched keys survive
}

TEST_F(MergeTest, AnOlderBackupIsNeverOverwritten) {
  WriteConfig("level: always\n");
  std::ofstream(config_ + ".bak") << "older\n";
  auto merge = PlanMerge(Github(), config_);
  ASSERT_TRUE(merge);
  ASSERT_TRUE(WriteMerge(*merge));
  EXPECT_EQ(merge->backup_path, config_ + ".bak.1");
  EXPECT_EQ(Read(config_ + ".bak"), "older\n");
}

TEST_F(MergeTest, NothingToWriteWhenEverythingIsThere) {
  WriteConfig("network:\n  allowed_domains: [github.com, \"*.github.com\", pypi.org]\n");
  auto merge = PlanMerge(Github(), config_);
  ASSERT_TRUE(merge);
  EXPECT_FALSE(merge->changed);
  EXPECT_FALSE(merge->conflicts);
}

TEST_F(MergeTest, AConfigCorralCannotReadIsRefused) {
  WriteConfig("levle: always\n");
  auto merge = PlanMerge(Github(), config_);
  ASSERT_FALSE(merge);
  EXPECT_NE(merge.error().message.find("cannot merge into " + config_), std::string::npos);
  EXPECT_NE(merge.error().message.find("unknown key 'levle'"), std::string::npos);
}

TEST_F(MergeTest, AJsonConfigIsRefusedRatherThanRewrittenAsYaml) {
  config_ = dir_ + "/config.json";
  std::ofstream(config_) << "{\"level\": \"always\"}\n";
  auto merge = PlanMerge(Github(), config_);
  ASSERT_FALSE(merge);
  EXPECT_NE(merge.error().message.find("is JSON"), std::string::npos);
}

}  // namespace
}  // namespace corral::config_import
