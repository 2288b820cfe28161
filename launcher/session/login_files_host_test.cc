#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "launcher/plan/plan.h"
#include "launcher/session/session.h"
#include "launcher/test_util.h"

namespace corral::launcher {
namespace {

using testing::TempTree;

LoginFile ClaudeFile(const std::string& path) {
  LoginFile file{path, {}, {"https://platform.claude.com/v1/oauth/token"}, "/claudeAiOauth/expiresAt", ""};
  BoxLogin access{"access", "Authorization", "Bearer ", {"api.anthropic.com:443"}, "", ""};
  BoxLogin refresh{"refresh", "", "", {"platform.claude.com:443"}, "", ""};
  refresh.in_body = true;
  file.tokens = {{"/claudeAiOauth/accessToken", "access_token", access},
                 {"/claudeAiOauth/refreshToken", "refresh_token", refresh}};
  return file;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(KeepTokens, TheNewTokensAndTheirExpiryGoInTheHostsFileAndTheRestStays) {
  TempTree tree;
  std::string path = tree.Dir("home/.claude") + "/.credentials.json";
  std::ofstream(path) << R"({"claudeAiOauth":{"accessToken":"old-a","refreshToken":"old-r","expiresAt":1,"scopes":["user:inference"]},"other":true})";
  netfilter::TokenUpdate update{path, {{"access_token", "new-access"}, {"refresh_token", "new-refresh"}}, 3600};
  auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  ASSERT_TRUE(KeepTokens(ClaudeFile(path), update).ok());
  auto json = ReadJson(path);
  EXPECT_EQ(json["claudeAiOauth"]["accessToken"], "new-access");
  EXPECT_EQ(json["claudeAiOauth"]["refreshToken"], "new-refresh");
  EXPECT_EQ(json["claudeAiOauth"]["scopes"][0], "user:inference");
  EXPECT_EQ(json["other"], true);
  int64_t expires = json["claudeAiOauth"]["expiresAt"];
  EXPECT_GE(expires, before + 3600 * 1000);
  EXPECT_LT(expires, before + 3700 * 1000);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// A login made in the box, with no file on the host yet.
TEST(KeepTokens, AMissingFileIsMade) {
  TempTree tree;
  std::string path = tree.Dir("home") + "/.claude/.credentials.json";
  ASSERT_TRUE(KeepTokens(ClaudeFile(path), {path, {{"access_token", "a-new"}}, std::nullopt}).ok());
  auto json = ReadJson(path);
  EXPECT_EQ(json["claudeAiOauth"]["accessToken"], "a-new");
  EXPECT_FALSE(json["claudeAiOauth"].contains("expiresAt"));
}

TEST(KeepTokens, AFileThatIsNotJsonIsLeftAsItIs) {
  TempTree tree;
  std::string path = tree.Dir("home") + "/creds.json";
  std::ofstream(path) << "not json";
  auto kept = KeepTokens(ClaudeFile(path), {path, {{"access_token", "a-new"}}, std::nullopt});
  ASSERT_FALSE(kept.ok());
  EXPECT_NE(kept.error().message.find(path), std::string::npos);
  EXPECT_EQ(ReadLoginFile(path), "not json");
}

TEST(FileLoginValue, TheValueAsTheProxyStartsOrAnErrorWhenItChanged) {
  TempTree tree;
  std::string path = tree.Dir("home") + "/creds.json";
  std::ofstream(path) << R"({"claudeAiOauth":{"accessToken":"real-value-123"}})";
  BoxLogin login{"access", "Authorization", "Bearer ", {"api.anthropic.com:443"}, "", "fake-value-456"};
  login.file = path;
  login.pointer = "/claudeAiOauth/accessToken";
  auto value = FileLoginValue(login);
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, "real-value-123");
  std::ofstream(path) << R"({"claudeAiOauth":{"accessToken":"a-value-of-another-length"}})";
  EXPECT_FALSE(FileLoginValue(login).ok());
  ::unlink(path.c_str());
  EXPECT_FALSE(FileLoginValue(login).ok());
}

TEST(TokenEndpoints, ThePlansLoginFilesBecomeTheProxysEndpoints) {
  SessionPlan plan;
  plan.login_files = {ClaudeFile("/home/u/.claude/.credentials.json")};
  auto endpoints = TokenEndpoints(plan);
  ASSERT_EQ(endpoints.size(), 1u);
  EXPECT_EQ(endpoints[0].name, "/home/u/.claude/.credentials.json");
  EXPECT_EQ(endpoints[0].hosts, std::vector<std::string>{"platform.claude.com:443"});
  EXPECT_EQ(endpoints[0].path, "/v1/oauth/token");
  ASSERT_EQ(endpoints[0].fields.size(), 2u);
  EXPECT_EQ(endpoints[0].fields[1].field, "refresh_token");
  EXPECT_TRUE(endpoints[0].fields[1].login.in_body);
  EXPECT_EQ(endpoints[0].fields[0].login.hosts, std::vector<std::string>{"api.anthropic.com:443"});
}

}  // namespace
}  // namespace corral::launcher
