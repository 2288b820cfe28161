// What particular programs do with their arguments: the handlers the walker
// (command_walker.h) calls for a program it resolved. A handler asks the walk
// only through Walk (walk.h): the words and texts the line gives, findings,
// nested commands and code. Private to policy/matcher/.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/matcher/tool_scripts.h"
#include "policy/matcher/walk.h"

namespace corral::policy {

// key=value pairs of a git config file, keys as git compares them
// ("alias.x", "remote.origin.push").
std::vector<std::pair<std::string, std::string>> GitConfigPairs(std::string_view text);

// The walker calls Dispatch, HandleGit, GitConfigText and ScanInlineCode;
// the handlers' files call one another one way only: dispatch -> the rest,
// tools -> shells, code -> scripts.

// The handler for the program `name` (git aside), if it has one
// (command_dispatch.cc).
void Dispatch(Walk& walk, std::string_view name, std::span<const Arg> args,
              const CommandCtx& ctx);

// Shells given code or standard input, eval, source, wrappers, echo
// (command_shells.cc).
void HandleShell(Walk& walk, std::string_view name, std::span<const Arg> args,
                 const CommandCtx& ctx);
void ReadsStdin(Walk& walk, std::string_view name, const CommandCtx& ctx);
void StdinShell(Walk& walk, std::string_view name, const CommandCtx& ctx);
void HandleEval(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleSource(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void RunStartupFile(Walk& walk, std::string_view file, const Arg& word, const CommandCtx& ctx);
void RunWrapper(Walk& walk, std::string_view name, std::span<const Arg> args,
                const CommandCtx& ctx);
void RecordEcho(Walk& walk, std::string_view name, std::span<const Arg> args,
                const CommandCtx& ctx);

// env, xargs, find -exec, parallel, ssh (command_tools.cc).
void HandleEnv(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleXargs(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleFind(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx,
                std::string_view action_flag);
void HandleParallel(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleRemoteShell(Walk& walk, std::string_view name, std::span<const Arg> args,
                       const CommandCtx& ctx);

// Interpreters given code (command_code.cc).
void HandleInlineCode(Walk& walk, std::string_view name, std::span<const Arg> args,
                      const CommandCtx& ctx);
// Interpreter code (inline, from stdin or a file written in the line).
void ScanInlineCode(Walk& walk, std::string_view name, const Arg& code, const CommandCtx& ctx);
void ListedInStrings(Walk& walk, std::string_view name, const Arg& code,
                     const std::vector<std::string>& strings);

// git (command_git.cc).
void HandleGit(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleGitAlias(Walk& walk, const Arg& value_word, std::string_view value,
                    const CommandCtx& ctx);
// One configuration value as git would use it; `persistent`: written to a
// config file, so it applies to every later git command.
void GitConfigValue(Walk& walk, const Arg& word, std::string_view key, std::string_view value,
                    std::size_t value_offset, bool persistent, const CommandCtx& ctx);
void GitConfigText(Walk& walk, const Arg& word, std::string_view text, const CommandCtx& ctx);
// A repository URL in `word` from byte `offset`: ext::CMD runs CMD.
void GitTransport(Walk& walk, const Arg& word, std::size_t offset, const CommandCtx& ctx);
void GitConfigFromEnvironment(Walk& walk, const Arg& word, const CommandCtx& ctx,
                              std::vector<Arg>* pushes);
void RunGitHooks(Walk& walk, const Arg& word, const CommandCtx& ctx);

// Programs that run commands from options or little languages
// (command_runners.cc, command_scripts.cc).
void HandleMake(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void MakeText(Walk& walk, std::string_view text, const Arg& word, const CommandCtx& ctx);
void HandleNpm(Walk& walk, std::string_view name, std::span<const Arg> args,
               const CommandCtx& ctx);
void HandleTar(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleZip(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleSocat(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleCmake(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleHistory(Walk& walk, std::string_view name, std::span<const Arg> args,
                   const CommandCtx& ctx);
void HandleNameWriters(Walk& walk, std::string_view name, std::span<const Arg> args,
                       const CommandCtx& ctx);
void HandleSet(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleSed(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleM4(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleVim(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx);
void HandleTcl(Walk& walk, std::string_view name, std::span<const Arg> args,
               const CommandCtx& ctx);
void TclScript(Walk& walk, std::string_view text, const Arg& word, const CommandCtx& ctx);
using ScriptReader = ScriptCommands (*)(std::string_view);
void RunScriptCommands(Walk& walk, const ScriptCommands& commands, const Arg& word,
                       const CommandCtx& ctx);
// A script in a file written earlier in the line (nothing for one on disk).
void ScriptFromFile(Walk& walk, const Arg& word, std::string_view path, ScriptReader reader,
                    const CommandCtx& ctx);

}  // namespace corral::policy
