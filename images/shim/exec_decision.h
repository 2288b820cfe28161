// What the exec check decides about one execve (docs/exec-check.md, "What
// happens"), from facts the supervisor gathered: pure, so it is tested
// without a kernel. Private to the shim.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/matcher/matcher.h"

namespace corral::shim {

// One file an exec names.
struct FileFacts {
  std::string given;      // as the process wrote it ("" for fexecve)
  std::string resolved;   // symbolic links followed
  std::string listed_as;  // the listed program this file is (same file or same bytes), or ""
};

struct ExecFacts {
  FileFacts program;
  std::vector<std::string> argv;
  // An interpreter running a file (`python3 /usr/bin/aws`, or the file on its
  // standard input): that file and its index in argv (for standard input,
  // the index after which its arguments are).
  std::optional<FileFacts> script;
  std::size_t script_index = 0;
  // An interpreter given a module (`python3 -m awscli`) or code text (`-c`,
  // `-e`): its family, the module and its index, the code, and the listed
  // programs whose files the code names by path.
  std::string family = "";
  std::optional<std::string> module = std::nullopt;
  std::size_t module_index = 0;
  std::optional<std::string> code = std::nullopt;
  std::vector<std::string> named_in_code = {};
};

struct ExecVerdict {
  bool refuse = false;
  std::string entry;    // the list line that matched
  std::string command;  // the exec as shell text, as the matcher read it
};

// Refuses the program when the matcher finds it listed with its arguments,
// trying it under each of its names; an interpreter when its script is a
// listed program, its module is a listed program's (a table per program:
// aws is python's awscli, ...), or its code names one's module or file. What it would start in turn (a
// wrapper's or a shell's arguments: `env aws`, `sh -c 'aws'`, `"$@"`) is
// decided at that program's own exec, not here.
ExecVerdict DecideExec(const policy::Matcher& matcher, const ExecFacts& facts);

// The interpreters whose script operand the check reads, known by what
// their files are as well as by name; the first name of a file is the one
// it is known by: busybox before sh, since a multi-call binary is what
// argv[0] names (busybox's cat is no shell).
const std::vector<std::string>& InterpreterNames();

// What an interpreter is given to run (indexes in argv).
struct InterpreterInput {
  std::string_view family;                    // python, node, ... ("" for a shell)
  std::optional<std::size_t> script;          // a file
  std::optional<std::size_t> module;          // -m MODULE
  std::optional<std::size_t> code;            // -c CODE, -e CODE, --eval=CODE
  std::optional<std::size_t> standard_input;  // its program on stdin, arguments after this index
  std::string attached = "";                  // the value written into its option (-mawscli)

  // The module's name or the code's text.
  std::string Value(const std::vector<std::string>& argv, std::size_t index) const {
    return attached.empty() ? argv[index] : attached;
  }
};

// What an interpreter (a shell, busybox, python, perl, ruby, node, php, lua,
// the dynamic loader, whose operand is the program it runs) is given by
// `argv`; `name` is the program's file name (python3.11, bash,
// ld-linux-x86-64.so.2). nullopt when it is not an interpreter.
std::optional<InterpreterInput> InterpreterInputOf(std::string_view name,
                                                   const std::vector<std::string>& argv);

// A script's `#!` line as the kernel reads it (its first 256 bytes): the
// interpreter, and at most one argument (the rest of the line, blanks
// inside kept). nullopt when `head` has none, or names no interpreter.
struct Shebang {
  std::string interpreter;
  std::optional<std::string> argument;
};
std::optional<Shebang> ParseShebang(std::string_view head);

// The argument vector the kernel gives the interpreter of `shebang` for an
// exec of `file` (the path as the exec named it) with `argv`.
std::vector<std::string> ShebangArgv(const Shebang& shebang, const std::string& file,
                                     const std::vector<std::string>& argv);

// Words as shell text that the shell reads back as the same words.
std::string ShellWords(std::string_view program, const std::vector<std::string>& argv,
                       std::size_t args_from);

}  // namespace corral::shim
