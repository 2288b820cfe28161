// The little languages' readers on their own: which shell commands a sed
// script, makefile, m4 input, Vim command or Tcl script runs.
#include "policy/matcher/tool_scripts.h"

#include <gtest/gtest.h>

namespace corral::policy {
namespace {

using Strings = std::vector<std::string>;

TEST(SedScript, ExecCommandsAndFlags) {
  EXPECT_EQ(SedScriptCommands("1e ls -l").shell, (Strings{"ls -l"}));
  EXPECT_EQ(SedScriptCommands("s/x/y/; /a/,/b/ { e date\n}").shell, (Strings{"date"}));
  EXPECT_EQ(SedScriptCommands("s/.*/echo &/e").shell, (Strings{"echo $__"}));
  EXPECT_FALSE(SedScriptCommands("s/.*/ls/e").unknown);
  EXPECT_TRUE(SedScriptCommands("s/x/ls/e").unknown);  // the rest of the line runs too
  EXPECT_TRUE(SedScriptCommands("e").unknown);          // the pattern space runs
  // e inside text, regexes, labels and file names is not a command.
  for (const char* script : {"s/e/f/g", "/e/d", "1i e x", "a\\\ne x", "y/e/f/", ":e", "b e",
                             "w e.txt", "s/a/b/w e", "# e x", "s|e|x|"}) {
    ScriptCommands c = SedScriptCommands(script);
    EXPECT_TRUE(c.shell.empty() && !c.unknown) << script;
  }
}

TEST(Makefile, RecipesShellFunctionsAndShell) {
  ScriptCommands c = MakefileCommands(
      "CC := cc\nSHELL = /bin/bash\nV != git describe\nall: x.o ; @echo $(CC) $$HOME\n"
      "x.o: x.c\n\t-$(CC) -c x.c \\\n\t  -o x.o\n\n# t:\n\tnot a recipe\nY = $(shell date)\n");
  EXPECT_EQ(c.programs, (Strings{"/bin/bash"}));
  EXPECT_EQ(c.shell, (Strings{"date", "git describe", "echo $__ $HOME", "$__ -c x.c  \t  -o x.o",
                              "not a recipe"}));
  EXPECT_TRUE(MakefileCommands(".RECIPEPREFIX = >\nx:\n> ls\n").unknown);
}

TEST(M4, Syscmd) {
  EXPECT_EQ(M4Commands("define(x, y)syscmd(`ls -l')esyscmd(date)").shell,
            (Strings{"ls -l", "date"}));
  EXPECT_TRUE(M4Commands("define(s, defn(`syscmd'))s(ls)").unknown);
  EXPECT_TRUE(M4Commands("define(x, aws)x").shell.empty());
}

TEST(Vim, ShellEscapesFunctionsAndOptions) {
  EXPECT_EQ(VimCommands("!ls | cat").shell, (Strings{"ls | cat"}));
  EXPECT_EQ(VimCommands(":%!sort").shell, (Strings{"sort"}));
  EXPECT_EQ(VimCommands("r !date").shell, (Strings{"date"}));
  EXPECT_EQ(VimCommands("w !wc").shell, (Strings{"wc"}));
  EXPECT_TRUE(VimCommands("w! x.txt | q!").shell.empty());
  EXPECT_EQ(VimCommands("call system('ls')").shell, (Strings{"ls"}));
  EXPECT_EQ(VimCommands("g/x/!date").shell, (Strings{"date"}));
  EXPECT_EQ(VimCommands("set shell=zsh").programs, (Strings{"zsh"}));
  EXPECT_EQ(VimCommands("py3 import os").code.size(), 1u);
  EXPECT_TRUE(VimCommands("call system(g:x)").unknown);
  EXPECT_TRUE(VimCommands("shell").unknown);
  EXPECT_TRUE(VimCommands("normal :!ls\r").unknown);
  for (const char* command : {"normal! gg", "%s/a/b/g", "wq", "set number", "q!"}) {
    ScriptCommands c = VimCommands(command);
    EXPECT_TRUE(c.shell.empty() && !c.unknown) << command;
  }
}

TEST(Tcl, SpawnExecSystemOpen) {
  EXPECT_EQ(TclCommands("spawn -noecho ssh h; expect eof").shell, (Strings{"'ssh' 'h'"}));
  EXPECT_EQ(TclCommands("set x [exec ls -l | wc]").shell, (Strings{"'ls' '-l'", "'wc'"}));
  EXPECT_EQ(TclCommands("system echo hi").shell, (Strings{"echo hi"}));
  EXPECT_EQ(TclCommands("set f [open \"|date\"]").shell, (Strings{"'date'"}));
  EXPECT_EQ(TclCommands("if {1} { exec ls }").shell, (Strings{"'ls'"}));
  EXPECT_TRUE(TclCommands("spawn $prog").unknown);
  EXPECT_TRUE(TclCommands("puts spawn").shell.empty());
}

}  // namespace
}  // namespace corral::policy
