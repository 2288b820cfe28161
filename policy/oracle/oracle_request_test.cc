#include "policy/oracle/oracle_request.h"

#include <gtest/gtest.h>

namespace corral::policy {
namespace {

using Kind = OracleRequest::Kind;

struct Case {
  const char* line;
  Kind kind;
  const char* command = "";
  const char* shell = "";
  const char* cwd = "";
};

// Each line read as the oracle reads it; the usual ones directly, the rest
// through nlohmann::json, with the same result for the same meaning.
TEST(OracleRequestTest, ReadsEverySpellingAsNlohmannWould) {
  const Case cases[] = {
      {R"({"v":1,"shell":"bash","command":"ls -la","cwd":"/p"})", Kind::kCommand, "ls -la", "bash",
       "/p"},
      {R"(  { "v" : 1 , "command" : "ls" }  )", Kind::kCommand, "ls"},
      {R"({"command":"a\"b\\c\/d\n\t","v":1})", Kind::kCommand, "a\"b\\c/d\n\t"},
      {R"({"v":1,"command":"a\u0077s s3 ls"})", Kind::kCommand, "aws s3 ls"},
      {"{\"v\":1,\"command\":\"echo \xc3\xa9\"}", Kind::kCommand, "echo \xc3\xa9"},
      {R"({"v":1,"command":"ls","command":"aws"})", Kind::kCommand, "aws"},  // the last counts
      {R"({"v":1.0,"command":"ls"})", Kind::kCommand, "ls"},
      {R"({"v":1,"command":"ls","extra":[1,{"x":2}]})", Kind::kCommand, "ls"},
      {R"({"v":1,"shell":7,"cwd":null,"command":"ls"})", Kind::kCommand, "ls"},
      {R"({"ask":"watching"})", Kind::kWatching},
      {R"({"v":1,"ask":"watching","command":"ls"})", Kind::kWatching},
      {R"({"v":2,"command":"ls"})", Kind::kInvalid},
      {R"({"v":10,"command":"ls"})", Kind::kInvalid},
      {R"({"v":"1","command":"ls"})", Kind::kInvalid},
      {R"({"v":[1],"command":"ls"})", Kind::kInvalid},
      {R"({"command":"ls"})", Kind::kInvalid},
      {R"({"v":1,"command":7})", Kind::kInvalid},
      {R"({"v":1,"command":"ls",})", Kind::kInvalid},
      {R"({"v":1 "command":"ls"})", Kind::kInvalid},
      {R"({"v":1,"command":"ls"} x)", Kind::kInvalid},
      {"{\"v\":1,\"command\":\"tab\there\"}", Kind::kInvalid},  // a raw control character
      {"{\"v\":1,\"command\":\"\xff\"}", Kind::kInvalid},        // not UTF-8
      {"[]", Kind::kInvalid},
      {"", Kind::kInvalid},
      {"{", Kind::kInvalid},
  };
  for (const Case& c : cases) {
    OracleRequest request = ReadOracleRequest(c.line);
    EXPECT_EQ(request.kind, c.kind) << c.line;
    if (c.kind != Kind::kCommand) continue;
    EXPECT_EQ(request.command, c.command) << c.line;
    EXPECT_EQ(request.shell, c.shell) << c.line;
    EXPECT_EQ(request.cwd, c.cwd) << c.line;
    EXPECT_TRUE(request.program.is_null()) << c.line;
  }
}

TEST(OracleRequestTest, KeepsTheProgramAsSent) {
  EXPECT_EQ(ReadOracleRequest(R"({"v":1,"command":"aws","program":"/usr/bin/aws"})").program,
            "/usr/bin/aws");
  EXPECT_EQ(ReadOracleRequest(R"({"v":1,"command":"aws","program":{"x":1}})").program,
            nlohmann::json({{"x", 1}}));
}

}  // namespace
}  // namespace corral::policy
