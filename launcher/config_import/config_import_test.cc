// The importers against files of the tools' documented shapes (testdata/):
// sandbox-runtime's README examples, reference 002's sandbox.json, Codex's
// docs/config.md; malformed ones give file:line:column and the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "launcher/config_import/config_import.h"

namespace corral::config_import {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ImportOptions FakeMachine() {
  ImportOptions options;
  options.home = "/home/me";
  options.exists = [](const std::string& path) { return path.find("/Users/") != 0; };
  return options;
}

Result<Translation> Import(const std::string& name) {
  std::string path = std::string(CORRAL_TESTDATA) + "/" + name;
  std::string text = Read(path);
  EXPECT_FALSE(text.empty()) << path;
  return Translate(path, text, DetectFormat(path, text), FakeMachine());
}

std::vector<std::string> List(const Translation& t, const std::string& key) {
  const Assignment* a = t.Find(key);
  return a ? a->value.get<std::vector<std::string>>() : std::vector<std::string>{};
}

// The note about `setting` (its name and value as shown), or nullptr.
const Note* NoteFor(const Translation& t, const std::string& setting) {
  for (const Note& note : t.notes) {
    if (note.setting == setting) return &note;
  }
  return nullptr;
}

NoteKind KindOf(const Translation& t, const std::string& setting) {
  const Note* note = NoteFor(t, setting);
  EXPECT_NE(note, nullptr) << "no note for " << setting;
  return note ? note->kind : NoteKind::kNoMeaning;
}

using V = std::vector<std::string>;

TEST(DetectFormat, ByNameThenByContents) {
  EXPECT_EQ(DetectFormat("/home/me/.srt-settings.json", "{}"), Format::kSrt);
  EXPECT_EQ(DetectFormat("/x/sandbox.json", "{}"), Format::kSandboxJson);
  EXPECT_EQ(DetectFormat("/home/me/.codex/config.toml", "{"), Format::kCodex);
  EXPECT_EQ(DetectFormat("/x/settings", R"({"filesystem": {"allowRead": []}})"),
            Format::kSandboxJson);
  EXPECT_EQ(DetectFormat("/x/settings", R"({"filesystem": {"denyRead": []}})"), Format::kSrt);
  EXPECT_EQ(DetectFormat("/x/settings", "sandbox_mode = \"read-only\"\n"), Format::kCodex);
  EXPECT_EQ(ParseFormat("sandbox-json"), Format::kSandboxJson);
  EXPECT_FALSE(ParseFormat("json").has_value());
}

TEST(ImportSrt, TheReadmesCompleteExample) {
  auto t = Import("complete.srt-settings.json");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(List(*t, "network.allowed_domains"),
            (V{"github.com", "*.github.com", "lfs.github.com", "api.github.com", "npmjs.org",
               "*.npmjs.org"}));
  EXPECT_EQ(List(*t, "network.denied_domains"), V{"malicious.com"});
  EXPECT_EQ(t->assignments.size(), 2u);
  // A host socket, and paths the project cannot keep read-only, are lost.
  EXPECT_EQ(KindOf(*t, "network.allowUnixSockets \"/var/run/docker.sock\""),
            NoteKind::kNotTranslated);
  EXPECT_EQ(KindOf(*t, "filesystem.denyWrite \".env\""), NoteKind::kNotTranslated);
  EXPECT_EQ(NoteFor(*t, "filesystem.denyWrite \".env\"")->where, "line 18");
  EXPECT_EQ(KindOf(*t, "filesystem.denyWrite \"config/production.json\""),
            NoteKind::kNotTranslated);
  // What corral's box already does, or srt's own machinery.
  EXPECT_EQ(KindOf(*t, "filesystem.denyRead \"~/.ssh\""), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "filesystem.allowWrite \".\""), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "filesystem.allowWrite \"src/\""), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "filesystem.allowWrite \"/tmp\""), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "network.allowLocalBinding = false"), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "enableWeakerNestedSandbox = false"), NoteKind::kNoMeaning);
  auto ignore = std::find_if(t->notes.begin(), t->notes.end(), [](const Note& n) {
    return n.setting.starts_with("ignoreViolations = ");
  });
  ASSERT_NE(ignore, t->notes.end());
  EXPECT_EQ(ignore->kind, NoteKind::kNoMeaning);
  EXPECT_FALSE(t->Complete());
}

TEST(ImportSrt, TheGitHubRecipeTranslatesCompletely) {
  auto t = Import("github.srt-settings.json");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(List(*t, "network.allowed_domains"),
            (V{"github.com", "*.github.com", "lfs.github.com", "api.github.com"}));
  // A name without '/' is masked at any depth in corral; "secrets/" is the folder.
  EXPECT_EQ(List(*t, "filesystem.deny_read"), (V{".env", "secrets"}));
  EXPECT_EQ(t->Find("network.denied_domains"), nullptr);
  EXPECT_TRUE(t->Complete()) << RenderNotes(*t);
}

TEST(ImportSrt, UnknownAndUnsayableSettingsAreReportedNotGuessed) {
  auto t = Import("unknown_keys.srt-settings.json");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->assignments.empty());
  EXPECT_EQ(KindOf(*t, "network.allowedDomain"), NoteKind::kUnknown);  // a typo, not guessed
  EXPECT_EQ(KindOf(*t, "sandboxMode"), NoteKind::kUnknown);
  EXPECT_EQ(KindOf(*t, "network.deniedDomains \"*\""), NoteKind::kNotTranslated);
  EXPECT_EQ(KindOf(*t, "network.httpProxyPort = 8080"), NoteKind::kNotTranslated);
  EXPECT_EQ(KindOf(*t, "filesystem.denyRead \"src/**/*.key\""), NoteKind::kNotTranslated);
  EXPECT_EQ(NoteFor(*t, "sandboxMode")->where, "line 8");
}

TEST(ImportSrt, MalformedJsonNamesFileLineAndColumn) {
  auto t = Import("missing_comma.srt-settings.json");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("missing_comma.srt-settings.json:4:"), std::string::npos)
      << t.error().message;
  EXPECT_NE(t.error().message.find("not valid JSON"), std::string::npos);
}

TEST(ImportSrt, AKeyOfTheWrongTypeNamesItsLineAndKey) {
  auto t = Import("wrong_type.srt-settings.json");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("wrong_type.srt-settings.json:8:5: filesystem.allowWrite: "
                                   "expected a list of strings"),
            std::string::npos)
      << t.error().message;
}

TEST(ImportSrt, EmptyAllowedDomainsIsReportedNotWrittenAsEmpty) {
  ImportOptions options = FakeMachine();
  auto t = Translate("/x/.srt-settings.json", R"({"network": {"allowedDomains": []}})",
                     Format::kSrt, options);
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->assignments.empty());
  EXPECT_EQ(KindOf(*t, "network.allowedDomains = []"), NoteKind::kNotTranslated);
}

TEST(ImportSrt, TopLevelMustBeAnObject) {
  auto t = Translate("/x/s.json", "[1]", Format::kSrt, FakeMachine());
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("/x/s.json:1:1: the settings must be a JSON object"),
            std::string::npos);
}

TEST(ImportSandboxJson, ReferenceShape) {
  auto t = Import("sandbox.json");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->format, Format::kSandboxJson);
  EXPECT_EQ(List(*t, "network.allowed_domains"), (V{"pypi.org", "api.example.com"}));
  EXPECT_EQ(List(*t, "network.denied_domains"), V{"tracker.example.com"});
  EXPECT_EQ(List(*t, "filesystem.extra_readonly"), V{"/home/me/datasets"});
  EXPECT_EQ(List(*t, "filesystem.extra_writable"), V{"/home/me/.cache/pip"});
  EXPECT_EQ(List(*t, "filesystem.deny_read"), V{".env.local"});
  // Hidden inside a folder the import mounts: corral cannot hide part of a mount.
  EXPECT_EQ(KindOf(*t, "filesystem.denyRead \"~/datasets/private\""), NoteKind::kNotTranslated);
  EXPECT_EQ(KindOf(*t, "filesystem.denyWrite \".git/hooks\""), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "filesystem.allowGitConfig = false"), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "network.allowAllUnixSockets = false"), NoteKind::kNoMeaning);
}

TEST(ImportSandboxJson, HomeAndMissingFoldersAreNotMounted) {
  auto t = Translate("/x/sandbox.json",
                     R"({"filesystem": {"allowWrite": ["~", "/Users/me/x", "../up", "~bob/x"],
                                        "allowRead": ["/"]}})",
                     Format::kSandboxJson, FakeMachine());
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->assignments.empty());
  for (const char* setting :
       {"filesystem.allowWrite \"~\"", "filesystem.allowWrite \"/Users/me/x\"",
        "filesystem.allowWrite \"../up\"", "filesystem.allowWrite \"~bob/x\"",
        "filesystem.allowRead \"/\""}) {
    EXPECT_EQ(KindOf(*t, setting), NoteKind::kNotTranslated) << setting;
  }
}

TEST(ImportCodex, TheDocumentedConfig) {
  auto t = Import("config.toml");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_NE(t->Find("level"), nullptr);
  EXPECT_EQ(t->Find("level")->value, "always");
  ASSERT_NE(t->Find("agents.ask_first"), nullptr);
  EXPECT_EQ(t->Find("agents.ask_first")->value, true);  // on-request: Codex asked first
  EXPECT_EQ(List(*t, "filesystem.extra_writable"), V{"/home/me/.cargo"});
  EXPECT_EQ(KindOf(*t, "sandbox_workspace_write.writable_roots \"/Users/YOU/.pyenv/shims\""),
            NoteKind::kNotTranslated);  // missing here: a session would not start
  EXPECT_EQ(KindOf(*t, "sandbox_workspace_write.network_access = false"),
            NoteKind::kNotTranslated);
  EXPECT_EQ(KindOf(*t, "profiles.ci"), NoteKind::kNotTranslated);
  EXPECT_EQ(KindOf(*t, "model"), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "mcp_servers"), NoteKind::kNoMeaning);
  EXPECT_EQ(KindOf(*t, "sandbox_workspace_write.exclude_slash_tmp"), NoteKind::kNoMeaning);
  EXPECT_EQ(NoteFor(*t, "model")->where, "line 2");
}

TEST(ImportCodex, WorkspaceWriteWithoutApprovalsTranslatesCompletely) {
  auto t = Import("workspace.toml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->Find("level")->value, "always");
  EXPECT_EQ(t->Find("agents.ask_first")->value, false);
  EXPECT_EQ(List(*t, "filesystem.extra_writable"), V{"/home/me/.cargo"});
  EXPECT_TRUE(t->Complete()) << RenderNotes(*t);
}

TEST(ImportCodex, FullAccessAndReadOnlyAreSaidToDiffer) {
  auto full = Translate("/x/config.toml", "sandbox_mode = \"danger-full-access\"\n",
                        Format::kCodex, FakeMachine());
  ASSERT_TRUE(full);
  EXPECT_EQ(full->Find("level"), nullptr);  // never turns corral's box off by itself
  EXPECT_EQ(KindOf(*full, "sandbox_mode = \"danger-full-access\""), NoteKind::kNotTranslated);
  auto read_only = Translate("/x/config.toml", "sandbox_mode = \"read-only\"\n", Format::kCodex,
                             FakeMachine());
  ASSERT_TRUE(read_only);
  EXPECT_EQ(read_only->Find("level")->value, "always");
  EXPECT_EQ(KindOf(*read_only, "sandbox_mode = \"read-only\""), NoteKind::kNotTranslated);
}

TEST(ImportCodex, UnknownKeysAndValuesAreReported) {
  auto t = Import("unknown.toml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_TRUE(t->assignments.empty());
  EXPECT_EQ(KindOf(*t, "sandbox_mode = \"full-auto\""), NoteKind::kUnknown);
  EXPECT_EQ(KindOf(*t, "sandbox_modes"), NoteKind::kUnknown);
  EXPECT_EQ(KindOf(*t, "sandbox_workspace_write.network_acess"), NoteKind::kUnknown);
}

TEST(ImportCodex, MalformedTomlNamesFileAndLine) {
  auto t = Import("unterminated.toml");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("unterminated.toml:2:"), std::string::npos)
      << t.error().message;
  EXPECT_NE(t.error().message.find("not valid TOML"), std::string::npos);
}

TEST(ImportCodex, AKeyOfTheWrongTypeNamesItsLineAndKey) {
  auto t = Import("wrong_type.toml");
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find(
                "wrong_type.toml:4:18: sandbox_workspace_write.writable_roots: expected a list"),
            std::string::npos)
      << t.error().message;
}

TEST(Render, NotesSayKindSettingLineAndWhy) {
  Translation t;
  t.Add(NoteKind::kUnknown, "sandboxMode", "line 8", "left out");
  EXPECT_EQ(RenderNotes(t), "# unknown: sandboxMode (line 8): left out\n");
  t.Append("network.allowed_domains", {"*.github.com"}, "x");
  t.Set("level", "always", "y");
  // '*' starts a YAML alias: it must come out quoted to read back as text.
  EXPECT_EQ(RenderYaml(t.assignments),
            "network:\n  allowed_domains:\n    - \"*.github.com\"\nlevel: always\n");
}

}  // namespace
}  // namespace corral::config_import
