// Reads interpreter code (python -c, node -e, perl, ruby, php, awk, lua)
// for the programs it starts: calls of the APIs that start programs
// (os.system, subprocess.run, child_process.spawn, system, exec, popen,
// backquotes, awk pipes) with their literal arguments, and code that builds
// what it runs at run time. Code that calls none of them starts no program,
// whatever its strings say. Private to policy/matcher/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/matcher/command_util.h"

namespace corral::policy {

struct CodeReport {
  // Some call starts a program, or the code can reach one by a name it
  // computes (getattr, eval, __import__, an API passed around by name).
  bool runs_programs = false;
  // The program or the API is only known at run time.
  bool dynamic = false;
  std::string why;  // what made it dynamic, for the reason shown
  // Literal command lines given to a program-starting call (shell text).
  std::vector<std::string> commands;
  // Literal argument lists given to one ([prog, arg, ...]).
  std::vector<std::vector<std::string>> argvs;
  // Every string literal's text, in order (listed words in them count only
  // when the code starts programs).
  std::vector<std::string> strings;
};

CodeReport AnalyzeInterpreterCode(Language language, std::string_view code);

}  // namespace corral::policy
