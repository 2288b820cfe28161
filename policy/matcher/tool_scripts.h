// The little languages of programs that run commands: sed scripts (e, s///e),
// makefiles (recipes, $(shell), SHELL), m4 (syscmd), Vim's Ex commands (!,
// system(), 'shell'), Tcl (spawn, exec, system). Each reader returns the
// shell command lines the text runs, and whether it runs something the text
// does not give. Pure functions; private to policy/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace corral::policy {

struct ScriptCommands {
  std::vector<std::string> shell;     // command lines run by a shell
  std::vector<std::string> programs;  // program values ('shell' option, make's SHELL)
  // Interpreter code a Vim command runs (:python3 ..., :lua ...), with its
  // language as a program name.
  std::vector<std::pair<std::string, std::string>> code;
  bool unknown = false;  // runs text built at run time (sed's e on the input)
  std::string why;
};

// A sed script (-e/-f/first operand): `e COMMAND`, `e` (runs the pattern
// space: unknown), `s/RE/REPL/e` (the result runs: REPL, and unknown unless
// RE takes the whole line).
ScriptCommands SedScriptCommands(std::string_view script);

// Makefile text: recipe lines, `target: ; recipe`, $(shell ...), and
// SHELL = PROGRAM. Make references in recipes stand for unknown words.
ScriptCommands MakefileCommands(std::string_view text);

// m4 input: the arguments of syscmd/esyscmd.
ScriptCommands M4Commands(std::string_view text);

// Vim Ex commands (-c, +, --cmd, a sourced script, stdin in -es mode).
ScriptCommands VimCommands(std::string_view text);

// Tcl (expect -c, tclsh): spawn/exec/open | run programs, system runs
// shell code.
ScriptCommands TclCommands(std::string_view text);

}  // namespace corral::policy
