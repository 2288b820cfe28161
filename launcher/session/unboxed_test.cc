#include <gtest/gtest.h>

#include <algorithm>

#include "launcher/launcher.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

using policy::Level;

TEST(DecideBox, LevelAlwaysAndOffIgnoreEverythingElse) {
  int asked = 0;
  auto watching = [&] { return ++asked, true; };
  EXPECT_TRUE(DecideBox(Level::kAlways, false, true, watching).boxed);
  EXPECT_FALSE(DecideBox(Level::kOff, true, false, watching).boxed);
  EXPECT_EQ(asked, 0);
}

TEST(DecideBox, UnattendedBoxesBackgroundRunsWithoutAskingPresence) {
  int asked = 0;
  auto watching = [&] { return ++asked, true; };
  BoxDecision headless = DecideBox(Level::kUnattended, true, true, watching);
  EXPECT_TRUE(headless.boxed);
  EXPECT_EQ(headless.why, "started headless");
  EXPECT_TRUE(DecideBox(Level::kUnattended, false, false, watching).boxed);
  EXPECT_EQ(asked, 0);
}

TEST(DecideBox, UnattendedAtATerminalFollowsPresence) {
  EXPECT_FALSE(DecideBox(Level::kUnattended, false, true, [] { return true; }).boxed);
  BoxDecision away = DecideBox(Level::kUnattended, false, true, [] { return false; });
  EXPECT_TRUE(away.boxed);
  EXPECT_EQ(away.why, "nobody is watching");
  EXPECT_TRUE(DecideBox(Level::kUnattended, false, true, nullptr).boxed);
}

std::string Get(const std::vector<std::string>& env, const std::string& name) {
  std::string found;
  int count = 0;
  for (const auto& line : env) {
    if (line.rfind(name + "=", 0) == 0) {
      found = line.substr(name.size() + 1);
      ++count;
    }
  }
  EXPECT_LE(count, 1) << name << " is set twice";
  return found;
}

TEST(UnboxedEnvironment, PutsTheShimFirstAndKeepsTheRest) {
  std::vector<std::string> env = UnboxedEnvironment(
      {"PATH=/usr/bin:/bin", "SHELL=/usr/bin/zsh", "HOME=/home/u", "CLAUDE_CODE_SHELL=/bin/sh"},
      "/run/user/1/corral/sessions/abc", "abc");
  EXPECT_EQ(Get(env, "PATH"), "/run/user/1/corral/sessions/abc/bin:/usr/bin:/bin");
  EXPECT_EQ(Get(env, "SHELL"), "/run/user/1/corral/sessions/abc/bin/zsh");
  EXPECT_EQ(Get(env, "CLAUDE_CODE_SHELL"), "/run/user/1/corral/sessions/abc/bin/zsh");
  EXPECT_EQ(Get(env, "HOME"), "/home/u");
  EXPECT_EQ(Get(env, "CORRAL_ORACLE_SOCKET"), "/run/user/1/corral/sessions/abc/oracle.sock");
  EXPECT_EQ(Get(env, "CORRAL_DENY_LIST_FILE"), "/run/user/1/corral/sessions/abc/deny-list");
}

TEST(UnboxedEnvironment, MakeAndNpmRunTheirShellsThroughTheFront) {
  std::vector<std::string> env = UnboxedEnvironment({"MAKEFLAGS=-j8"}, "/s", "id");
  EXPECT_EQ(Get(env, "MAKEFLAGS"), "-j8 SHELL=/s/bin/bash");  // the user's flags kept
  EXPECT_EQ(Get(env, "npm_config_script_shell"), "/s/bin/sh");
  EXPECT_EQ(Get(UnboxedEnvironment({}, "/s", "id"), "MAKEFLAGS"), "SHELL=/s/bin/bash");
}

TEST(UnboxedEnvironment, AnUnknownLoginShellBecomesBash) {
  std::vector<std::string> env = UnboxedEnvironment({"SHELL=/usr/bin/fish"}, "/s", "id");
  EXPECT_EQ(Get(env, "SHELL"), "/s/bin/bash");
  EXPECT_EQ(Get(env, "PATH"), "/s/bin");
}

TEST(ProxyEnvironment, EveryCommonClientPointsAtTheBridge) {
  std::vector<std::string> env = ProxyEnvironment();
  for (const char* name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
                           "npm_config_proxy", "npm_config_https_proxy", "YARN_HTTP_PROXY",
                           "YARN_HTTPS_PROXY", "PIP_PROXY"}) {
    EXPECT_EQ(Get(env, name), "http://127.0.0.1:3128") << name;
  }
  EXPECT_EQ(Get(env, "NODE_USE_ENV_PROXY"), "1");
  EXPECT_NE(Get(env, "NO_PROXY").find("127.0.0.1"), std::string::npos);
  EXPECT_NE(Get(env, "GIT_SSH_COMMAND").find("ProxyCommand='/run/corral/bin/corral-shim connect %h %p'"),
            std::string::npos);
}

TEST(BlockedLine, SaysHowManyAndWhereToLook) {
  EXPECT_EQ(BlockedLine(0, {}), "");
  EXPECT_EQ(BlockedLine(1, {}), "Had 1 command blocked while you were away: corral inbox");
  EXPECT_EQ(BlockedLine(2, {}), "Had 2 commands blocked while you were away: corral inbox");
}

TEST(BlockedLine, NamesTheRefusedCommandsNotTheAgentsWrapper) {
  RefusedWhileAway refused;
  policy::InboxItem wrapped;
  wrapped.command = "source /h/.claude/shell-snapshots/s.sh && eval 'aws s3 ls' \\< /dev/null";
  wrapped.refused = "aws s3 ls";
  refused.Add(wrapped);
  refused.Add(wrapped);  // named once
  policy::InboxItem undetermined;
  undetermined.command = "$X run\nmore";
  refused.Add(undetermined);
  EXPECT_EQ(BlockedLine(3, refused.Named()),
            "Had 3 commands blocked while you were away (`aws s3 ls`, `$X run\xe2\x80\xa6`, ...): "
            "corral inbox");
  for (const char* more : {"b", "c", "d"}) {
    policy::InboxItem item;
    item.refused = more;
    refused.Add(item);
  }
  EXPECT_EQ(refused.Named().size(), RefusedWhileAway::kNamed);
  EXPECT_EQ(BlockedLine(3, refused.Named()),
            "Had 3 commands blocked while you were away (`aws s3 ls`, `$X run\xe2\x80\xa6`, `b`): "
            "corral inbox");
}

}  // namespace
}  // namespace corral::launcher
