#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace {

// The stripped-program cache keeps the newest copies of each program and
// leaves other programs' copies, and files that are not copies, alone.
TEST(PruneStripped, KeepsTheNewestCopiesOfOneProgram) {
  char pattern[] = "/tmp/corral-stripped-XXXXXX";
  std::string dir = ::mkdtemp(pattern);
  auto make = [&](const std::string& file, int age_s) {
    std::ofstream(dir + "/" + file) << file;
    std::filesystem::last_write_time(
        dir + "/" + file, std::filesystem::file_time_type::clock::now() - std::chrono::seconds(age_s));
  };
  for (int i = 0; i < 5; ++i) make("corral-shim-0000000" + std::to_string(i), 100 * i);
  make("corral-shell-00000000", 1000);
  make("corral-shim-00000009.tmp42", 1000);  // a copy being written
  PruneStripped(dir, "corral-shim", 3);
  std::set<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.insert(e.path().filename());
  EXPECT_EQ(left, (std::set<std::string>{"corral-shim-00000000", "corral-shim-00000001",
                                         "corral-shim-00000002", "corral-shell-00000000",
                                         "corral-shim-00000009.tmp42"}));
  std::filesystem::remove_all(dir);
}

TEST(AgentImageTag, NamesTheAgentAndItsVersion) {
  EXPECT_EQ(AgentImageTag("claude", "2.1.197"), "corral-agent-claude:2.1.197");
  // A tag cannot hold '+': semver build metadata keeps its place as '_'.
  EXPECT_EQ(AgentImageTag("pi", "1.0.0+build.7"), "corral-agent-pi:1.0.0_build.7");
}

TEST(VersionIn, TakesTheFirstVersionLookingWord) {
  EXPECT_EQ(VersionIn("2.1.197 (Claude Code)\n"), "2.1.197");
  EXPECT_EQ(VersionIn("codex-cli 0.171.0"), "0.171.0");
  EXPECT_EQ(VersionIn("gemini v0.9.1-beta.2, built today"), "0.9.1-beta.2");
  EXPECT_EQ(VersionIn("node 22 says 1.2"), "1.2");
  EXPECT_EQ(VersionIn("opencode 1.0.0+abc."), "1.0.0+abc");
}

TEST(VersionIn, FindsNoneInWordsWithoutOne) {
  EXPECT_EQ(VersionIn(""), "");
  EXPECT_EQ(VersionIn("latest"), "");
  EXPECT_EQ(VersionIn("version 22"), "");
  EXPECT_EQ(VersionIn("1.x"), "");
  EXPECT_EQ(VersionIn("Usage: agent [options]"), "");
}

TEST(CompareVersions, ComparesPartsAsNumbers) {
  EXPECT_LT(CompareVersions("0.9.0", "0.10.0"), 0);
  EXPECT_GT(CompareVersions("2.1.197", "2.1.98"), 0);
  EXPECT_EQ(CompareVersions("1.2.3", "1.2.3"), 0);
  EXPECT_LT(CompareVersions("1.2", "1.2.1"), 0);
}

TEST(CompareVersions, AReleaseIsNewerThanItsPreReleases) {
  EXPECT_GT(CompareVersions("1.2.0", "1.2.0-beta.1"), 0);
  EXPECT_LT(CompareVersions("1.2.0-beta.2", "1.2.0-beta.10"), 0);
  EXPECT_LT(CompareVersions("1.2.0-alpha", "1.2.0-beta"), 0);
  EXPECT_EQ(CompareVersions("1.0.0+a", "1.0.0_b"), 0);  // build metadata does not count
}

// Fake sources that record what was asked.
struct Fakes {
  std::optional<std::string> host;
  std::vector<std::string> built;
  std::string latest = "9.9.9";
  std::vector<std::string> asked;

  VersionSources Sources() {
    VersionSources s;
    s.host_output = [this](const std::string& binary) {
      asked.push_back("host " + binary);
      return host;
    };
    s.built = [this](const std::string& agent) -> Result<std::vector<std::string>> {
      asked.push_back("built " + agent);
      return built;
    };
    s.registry_latest = [this](const std::string& package) -> Result<std::string> {
      asked.push_back("registry " + package);
      return latest;
    };
    return s;
  }
};

Recipe Codex() {
  Recipe r;
  r.name = "codex";
  r.package = "@openai/codex";
  r.binary = "codex";
  return r;
}

// The host's `BINARY --version` is asked once per program identity: again
// only when the program changes (an update).
TEST(HostVersionSources, TheHostsAnswerIsKeptUntilTheProgramChanges) {
  char pattern[] = "/tmp/corral-version-XXXXXX";
  std::string dir = ::mkdtemp(pattern);
  std::string program = dir + "/bin/fakeagent";
  std::filesystem::create_directories(dir + "/bin");
  auto write_program = [&](const std::string& version) {
    std::ofstream(program) << "#!/bin/sh\necho run >> " << dir << "/runs\necho '" << version
                           << " (Fake Agent)'\n";
    std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  };
  write_program("1.2.3");
  std::string old_path = ::getenv("PATH") ? ::getenv("PATH") : "";
  std::string old_state = ::getenv("XDG_STATE_HOME") ? ::getenv("XDG_STATE_HOME") : "";
  ::setenv("PATH", (dir + "/bin:" + old_path).c_str(), 1);
  ::setenv("XDG_STATE_HOME", (dir + "/state").c_str(), 1);
  auto runs = [&] {
    std::ifstream in(dir + "/runs");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) ++n;
    return n;
  };
  VersionSources sources = HostVersionSources(nullptr);
  EXPECT_EQ(VersionIn(sources.host_output("fakeagent").value_or("")), "1.2.3");
  EXPECT_EQ(VersionIn(sources.host_output("fakeagent").value_or("")), "1.2.3");
  EXPECT_EQ(runs(), 1);
  write_program("1.2.40");  // a new size, a new mtime: asked again
  EXPECT_EQ(VersionIn(sources.host_output("fakeagent").value_or("")), "1.2.40");
  EXPECT_EQ(runs(), 2);
  EXPECT_FALSE(sources.host_output("no-such-agent-here").has_value());
  ::setenv("PATH", old_path.c_str(), 1);
  if (old_state.empty()) ::unsetenv("XDG_STATE_HOME");
  else ::setenv("XDG_STATE_HOME", old_state.c_str(), 1);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST(ChooseAgentVersion, AskedComesFirstAndAsksNothingElse) {
  Fakes fakes;
  fakes.host = "codex-cli 0.1.0";
  Recipe recipe = Codex();
  recipe.version = "0.2.0";
  auto chosen = ChooseAgentVersion(recipe, "0.3.0", fakes.Sources());
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->version, "0.3.0");
  EXPECT_TRUE(fakes.asked.empty());
}

TEST(ChooseAgentVersion, ThePinComesBeforeTheHost) {
  Fakes fakes;
  fakes.host = "codex-cli 0.1.0";
  Recipe recipe = Codex();
  recipe.version = "0.2.0";
  auto chosen = ChooseAgentVersion(recipe, "", fakes.Sources());
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->version, "0.2.0");
  EXPECT_EQ(chosen->from, "the recipe");
}

TEST(ChooseAgentVersion, TheHostsOwnComesBeforeImagesAndTheRegistry) {
  Fakes fakes;
  fakes.host = "codex-cli 0.171.0\n";
  fakes.built = {"0.200.0"};
  auto chosen = ChooseAgentVersion(Codex(), "", fakes.Sources());
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->version, "0.171.0");
  EXPECT_EQ(chosen->from, "this host's codex");
  EXPECT_EQ(fakes.asked, std::vector<std::string>{"host codex"});
}

TEST(ChooseAgentVersion, TheNewestBuiltWhenTheHostHasNoneUsable) {
  Fakes fakes;
  fakes.host = "no version here";  // runs, but says nothing version-like
  fakes.built = {"0.9.0", "latest", "0.10.0", "0.10.0-beta.1"};
  auto chosen = ChooseAgentVersion(Codex(), "", fakes.Sources());
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->version, "0.10.0");
  EXPECT_EQ(fakes.asked, (std::vector<std::string>{"host codex", "built codex"}));
}

TEST(ChooseAgentVersion, TheRegistryLast) {
  Fakes fakes;
  auto chosen = ChooseAgentVersion(Codex(), "", fakes.Sources());
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->version, "9.9.9");
  EXPECT_EQ(fakes.asked,
            (std::vector<std::string>{"host codex", "built codex", "registry @openai/codex"}));
}

TEST(ChooseAgentVersion, NoEngineSkipsTheBuiltImages) {
  Fakes fakes;
  VersionSources sources = fakes.Sources();
  sources.built = nullptr;
  auto chosen = ChooseAgentVersion(Codex(), "", sources);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(fakes.asked, (std::vector<std::string>{"host codex", "registry @openai/codex"}));
}

TEST(ChooseAgentVersion, ARegistryFailureSaysWhatToDo) {
  Fakes fakes;
  VersionSources sources = fakes.Sources();
  sources.registry_latest = [](const std::string&) -> Result<std::string> {
    return Error("npm is not installed on this host");
  };
  auto chosen = ChooseAgentVersion(Codex(), "", sources);
  ASSERT_FALSE(chosen);
  EXPECT_NE(chosen.error().message.find("--version"), std::string::npos);
  EXPECT_NE(chosen.error().message.find("npm is not installed"), std::string::npos);
}

TEST(ChooseAgentVersion, AnInstallerWithNoVersionTakesItsLatest) {
  Fakes fakes;
  Recipe cursor;
  cursor.name = "cursor";
  cursor.installer = "curl -fsS https://cursor.com/install | bash";
  cursor.binary = "cursor-agent";
  auto chosen = ChooseAgentVersion(cursor, "", fakes.Sources());
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->version, "latest");
  EXPECT_EQ(fakes.asked, (std::vector<std::string>{"host cursor-agent", "built cursor"}));
}

TEST(ShortTag, DropsTheRegistryPodmanAdds) {
  EXPECT_EQ(ShortTag("docker.io/library/corral-agent-claude:2.1.197"),
            "corral-agent-claude:2.1.197");
  EXPECT_EQ(ShortTag("localhost/corral-debian:bookworm"), "corral-debian:bookworm");
  EXPECT_EQ(ShortTag("corral:0.1.0"), "corral:0.1.0");
  EXPECT_EQ(ShortTag("quay.io/x/y:1"), "quay.io/x/y:1");
}

// The Dockerfiles compiled into corral are the tree's own, byte for byte.
TEST(AgentImageFiles, AreImagesAgentAsBuilt) {
  // Not __FILE__: under ccache (CCACHE_BASEDIR) it is relative to the build.
  std::filesystem::path folder = std::filesystem::path(CORRAL_SOURCE_DIR) / "images/agent";
  auto files = AgentImageFiles();
  ASSERT_EQ(files.size(), 3u);
  for (const char* name : {"Dockerfile", "Dockerfile.tools", "divert-shells"}) {
    std::ifstream in(folder / name, std::ios::binary);
    ASSERT_TRUE(in) << name;
    std::ostringstream text;
    text << in.rdbuf();
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const auto& file) { return file.first == name; });
    ASSERT_NE(it, files.end()) << name;
    EXPECT_EQ(it->second, text.str()) << name;
  }
}

}  // namespace
}  // namespace corral::launcher
