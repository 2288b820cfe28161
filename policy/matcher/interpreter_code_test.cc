// What interpreter code starts: the calls found, their literal programs,
// and code that computes what it runs.
#include "policy/matcher/interpreter_code.h"

#include <gtest/gtest.h>

namespace corral::policy {
namespace {

using Strings = std::vector<std::string>;

TEST(InterpreterCode, CodeWithoutProgramStartingCallsRunsNothing) {
  for (auto [language, code] : std::vector<std::pair<Language, std::string>>{
           {Language::kPython, "print('aws s3 ls')"},
           {Language::kPython, "import json, os; print(os.getcwd(), 'kubectl')"},
           {Language::kPython, "import re; re.compile('aws')"},
           {Language::kNode, "console.log(/aws/.exec('aws'))"},
           {Language::kPerl, "print \"aws\\n\""},
           {Language::kAwk, "BEGIN { print \"aws\" } /x/ { print $1 }"},
           {Language::kRuby, "puts 'aws'"}}) {
    CodeReport report = AnalyzeInterpreterCode(language, code);
    EXPECT_FALSE(report.runs_programs) << code;
  }
}

TEST(InterpreterCode, LiteralProgramsAreCollected) {
  CodeReport r = AnalyzeInterpreterCode(Language::kPython,
                                        "import os, subprocess\nos.system('ls -la')\n"
                                        "subprocess.run(['git', 'status'])\n"
                                        "os.spawnlp(os.P_WAIT, 'make', 'make')");
  EXPECT_TRUE(r.runs_programs);
  EXPECT_FALSE(r.dynamic) << r.why;
  EXPECT_EQ(r.commands, (Strings{"ls -la", "make"}));
  ASSERT_EQ(r.argvs.size(), 2u);
  EXPECT_EQ(r.argvs[0], (Strings{"git", "status"}));

  r = AnalyzeInterpreterCode(Language::kNode,
                             "const cp = require('child_process'); cp.execSync(`ls`); "
                             "cp.spawnSync('git', ['log'])");
  EXPECT_FALSE(r.dynamic) << r.why;
  EXPECT_EQ(r.commands, (Strings{"ls", "git"}));

  r = AnalyzeInterpreterCode(Language::kPerl, "system('a', 'b'); `c d`; open(F, '-|', 'e f')");
  EXPECT_FALSE(r.dynamic) << r.why;
  EXPECT_EQ(r.commands, (Strings{"a", "c d", "e f"}));

  r = AnalyzeInterpreterCode(Language::kAwk, "BEGIN { \"x\" | getline; print 1 | \"y\" }");
  EXPECT_EQ(r.commands, (Strings{"x", "y"}));
}

TEST(InterpreterCode, ComputedProgramsAndApisAreDynamic) {
  for (auto [language, code] : std::vector<std::pair<Language, std::string>>{
           {Language::kPython, "import os; os.system('a' + 'ws')"},
           {Language::kPython, "import os; n = 'x'; os.execvp(n, [n])"},
           {Language::kPython, "import subprocess as s; s.call([chr(97) + 'ws'])"},
           {Language::kPython, "__import__('os').system('ls')"},
           {Language::kPython, "import os; getattr(os, 'system')('ls')"},
           {Language::kPython, "from subprocess import run as r"},
           {Language::kPython, "import os; f = os.system; f('ls')"},
           {Language::kPython, "import os; os.system(f'{x}')"},
           {Language::kNode, "require('child_' + 'process').execSync('ls')"},
           {Language::kNode, "const {spawnSync: s} = require('child_process')"},
           {Language::kNode, "require('child_process').execSync(`${x}`)"},
           {Language::kPerl, "system(\"a\" . \"ws\")"},
           {Language::kPerl, "$x = 'ls'; `$x`"},
           {Language::kPerl, "exec { $x } 'y'"},
           {Language::kRuby, "system(\"#{x}\")"},
           {Language::kAwk, "BEGIN { c = \"ls\"; system(c) }"},
           {Language::kAwk, "BEGIN { c | getline }"},
           {Language::kLua, "os.execute(x)"}}) {
    CodeReport report = AnalyzeInterpreterCode(language, code);
    EXPECT_TRUE(report.runs_programs) << code;
    EXPECT_TRUE(report.dynamic) << code;
  }
}

TEST(InterpreterCode, StringsAreKeptForListedWords) {
  CodeReport r = AnalyzeInterpreterCode(Language::kPython, "print('a b'); x = \"\"\"c\"\"\"");
  EXPECT_EQ(r.strings, (Strings{"a b", "c"}));
}

}  // namespace
}  // namespace corral::policy
