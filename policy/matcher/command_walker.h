// Walks the simple commands the parser reports and decides, for each, which
// programs it runs: through assignments, wrappers, shells given code, eval,
// xargs, find -exec and the rest; each program is checked against the deny
// list and the dangerous-pattern rules. Private to policy/matcher/.
#pragma once

#include <cstddef>
#include <list>
#include <forward_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_word.h"
#include "policy/matcher/deny_list.h"
#include "policy/matcher/line_facts.h"
#include "policy/matcher/matcher.h"
#include "policy/shell/shell.h"
#include "policy/matcher/tool_scripts.h"

namespace corral::policy {

// key=value pairs of a git config file, keys as git compares them
// ("alias.x", "remote.origin.push").
std::vector<std::pair<std::string, std::string>> GitConfigPairs(std::string_view text);

class Walker final : public shell::Visitor {
 public:
  Walker(const DenyList& list, std::string_view input, shell::ParseState& state);

  void OnSimpleCommand(const shell::SimpleCommand& command) override;
  void OnFunction(const shell::Word& name, std::string_view source, std::size_t begin,
                  std::size_t end, const shell::Origin& origin) override;
  void OnLoopVariable(const shell::Word& name, std::span<const shell::Word> items,
                      bool has_list) override;
  void OnParameterOperator(std::string_view name, char op, std::size_t begin,
                           std::size_t end) override;

  // Decisions that needed the whole line (a variable written again after a
  // command ran its value). Call once, after parsing.
  void Finish();

  // Findings so far: the first listed match, the first undetermined command,
  // the most severe dangerous pattern.
  bool listed() const { return listed_; }
  bool undetermined() const { return undetermined_; }
  void Fill(MatchResult* result) const;

 private:
  // Per simple command: the command it belongs to (redirections, pipeline),
  // owned strings made while reading it, and how the words reached us.
  struct Ctx {
    const shell::SimpleCommand* command = nullptr;
    std::forward_list<std::string>* storage = nullptr;
    bool appended = false;  // xargs appends input words to this command
    bool package = false;   // the command word may carry @version (npx)
  };

  void Resolve(std::span<const Arg> args, const Ctx& ctx);
  void ResolveOne(std::span<const Arg> args, const Ctx& ctx);
  // /dev/fd/N, /dev/stdin, /proc/self/fd/N as the program: the file this
  // command's redirection opened there. True when it was one of those.
  bool ResolveDescriptorProgram(std::span<const Arg> args, const Ctx& ctx);
  void Dispatch(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  bool CommandName(const Arg& word, const Ctx& ctx, std::string_view* name, bool* known_variable);
  void CheckList(std::string_view name, std::span<const Arg> args, bool force_push);
  void TryKnownValue(std::span<const Arg> args, const Ctx& ctx, bool known);
  bool TryKnownArguments(std::string_view name, std::span<const Arg> args, bool force_push);
  // $X in command position whose every value is known from this line.
  bool KnownProgramVariable(const Arg& word, const Ctx& ctx) const;
  // A program given as a value (SHELL=, --script-shell=, make SHELL=): its
  // name is checked; shells are not read as if given no code.
  void ProgramValue(const Arg& word, std::string_view value, const Ctx& ctx);

  // Reading texts other than shell code (file contents, interpreter code,
  // scripts) counts towards the line's work limit; false once it is hit.
  bool Charge(std::size_t bytes);

  // Line facts (walker_facts.cc).
  void BuildArgs(const shell::SimpleCommand& command, const Ctx& ctx, std::vector<Arg>* args);
  bool ExpandPositional(const shell::Word& word, const Arg& arg, const Ctx& ctx,
                        std::vector<Arg>* args);
  const Frame* CurrentFrame() const;
  // The line's top-level parameters as a frame, when they are known where
  // `ctx`'s command runs.
  bool TopLevelFrame(const Ctx& ctx, Frame* frame) const;
  void CallFunction(const FunctionDef& function, std::span<const Arg> args, const Ctx& ctx);
  void RecordWrites(std::span<const Arg> args, const Ctx& ctx);
  std::optional<std::string> OutputOf(std::span<const Arg> args, const Ctx& ctx) const;
  void RecordCopy(std::string_view name, std::span<const Arg> args);
  void RecordLocate(std::span<const Arg> args);
  const DenyEntry* LocatedProgram(const Arg& word) const;
  // A file written earlier in this line runs: as `language`, or by its #!
  // line when kOther. Returns false when `path` was not written here.
  bool RunWrittenFile(std::string_view path, bool named, Language language, const Arg& word,
                      const Ctx& ctx);
  void RunFileText(std::string_view text, Language language, const Arg& word, const Ctx& ctx);
  void MarkWritten(std::span<const Arg> names);
  // Text bash expands later like a double-quoted string (PS4, ${x@P}, BASH_ENV).
  void ExpandPrompt(std::string_view text, std::size_t begin, std::size_t end);

  // Handlers (command_handlers.cc).
  void HandleShell(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void ReadsStdin(std::string_view name, const Ctx& ctx);
  // A later stage of a pipeline that starts with a download (curl ... | X).
  bool InDownloadPipeline(const shell::SimpleCommand& command) const;
  void StdinShell(std::string_view name, const Ctx& ctx);
  static bool StartsShellWithoutCommand(std::string_view name, std::span<const Arg> args);
  void HandleEval(std::span<const Arg> args, const Ctx& ctx);
  void HandleSource(std::span<const Arg> args, const Ctx& ctx);
  void RunStartupFile(std::string_view file, const Arg& word, const Ctx& ctx);
  void HandleEnv(std::span<const Arg> args, const Ctx& ctx);
  void HandleXargs(std::span<const Arg> args, const Ctx& ctx);
  void HandleFind(std::span<const Arg> args, const Ctx& ctx, std::string_view action_flag);
  void HandleParallel(std::span<const Arg> args, const Ctx& ctx);
  void HandleInlineCode(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  // Interpreter code (inline, from stdin or a file written in the line).
  void ScanInlineCode(std::string_view name, const Arg& code, const Ctx& ctx);
  void ListedInStrings(std::string_view name, const Arg& code,
                       const std::vector<std::string>& strings);

  // git (command_git.cc).
  void HandleGit(std::span<const Arg> args, const Ctx& ctx);
  void HandleGitAlias(const Arg& value_word, std::string_view value, const Ctx& ctx);
  // One configuration value as git would use it; `persistent`: written to a
  // config file, so it applies to every later git command.
  void GitConfigValue(const Arg& word, std::string_view key, std::string_view value,
                      std::size_t value_offset, bool persistent, const Ctx& ctx);
  void GitConfigText(const Arg& word, std::string_view text, const Ctx& ctx);
  // A repository URL in `word` from byte `offset`: ext::CMD runs CMD.
  void GitTransport(const Arg& word, std::size_t offset, const Ctx& ctx);
  void GitConfigFromEnvironment(const Arg& word, const Ctx& ctx, std::vector<Arg>* pushes);
  void RunGitHooks(const Arg& word, const Ctx& ctx);

  // Programs that run commands from options or little languages
  // (command_runners.cc, command_scripts.cc).
  void HandleMake(std::span<const Arg> args, const Ctx& ctx);
  void MakeText(std::string_view text, const Arg& word, const Ctx& ctx);
  void HandleNpm(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void HandleTar(std::span<const Arg> args, const Ctx& ctx);
  void HandleZip(std::span<const Arg> args, const Ctx& ctx);
  void HandleSed(std::span<const Arg> args, const Ctx& ctx);
  void HandleM4(std::span<const Arg> args, const Ctx& ctx);
  void HandleVim(std::span<const Arg> args, const Ctx& ctx);
  using ScriptReader = ScriptCommands (*)(std::string_view);
  void RunScriptCommands(const ScriptCommands& commands, const Arg& word, const Ctx& ctx);
  // A script in a file written earlier in the line (nothing for one on disk).
  void ScriptFromFile(const Arg& word, std::string_view path, ScriptReader reader,
                      const Ctx& ctx);
  void HandleSocat(std::span<const Arg> args, const Ctx& ctx);
  void HandleCmake(std::span<const Arg> args, const Ctx& ctx);
  void HandleTcl(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void TclScript(std::string_view text, const Arg& word, const Ctx& ctx);
  void HandleHistory(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void HandleNameWriters(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void HandleSet(std::span<const Arg> args, const Ctx& ctx);
  // Text a command reads as its program (a heredoc, a here-string, echo |),
  // or nullopt when standard input is not known from the line.
  std::optional<std::string> StdinText(const Ctx& ctx) const;
  // Words split from `text` (quotes group, blanks separate), placed at `word`.
  std::vector<Arg> WordsOf(std::string_view text, const Arg& word, const Ctx& ctx) const;
  // ... run as one command (socat EXEC:, git ext::).
  void ResolveWords(std::string_view text, const Arg& word, const Ctx& ctx);
  void RunWrapper(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void HandleRemoteShell(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void RecordEcho(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  // NAME=VALUE; `persists`: it stays set in this shell (a bare assignment,
  // export, declare), rather than only for one command.
  void RecordAssignment(const Arg& word, const Ctx& ctx, bool persists = false);

  // Shell code in `arg` (from byte `offset` of its text) runs: parse it, or
  // report it undetermined when it is only known at run time.
  void ParseCodeArg(std::string_view who, const Arg& arg, std::size_t offset, const Ctx& ctx);
  void ParseText(std::string_view text, std::size_t raw_begin, std::size_t raw_end,
                 const Ctx& ctx);
  void ParseJoined(std::span<const Arg> args, const Ctx& ctx);
  void CheckDownloadInto(const Arg& word);

  void Listed(const DenyEntry& entry, std::span<const Arg> args,
              const std::vector<std::size_t>& positions);
  void Undetermined(std::string reason, const Arg* word);
  void Danger(std::optional<DangerousMatch> match);
  std::string Quote(const Arg& word) const;  // the word as written, for reasons

  const DenyList& list_;
  std::string_view input_;
  shell::ParseState& state_;

  bool listed_ = false;
  std::string entry_;
  std::vector<MatchedWord> words_;
  std::string command_;  // MatchResult::command
  std::string listed_reason_;
  bool undetermined_ = false;
  std::string undetermined_reason_;
  std::vector<MatchedWord> undetermined_words_;
  std::optional<DangerousMatch> dangerous_;

  std::size_t hops_ = 0;               // resolutions, bounded
  std::size_t resolve_depth_ = 0;      // wrappers inside wrappers, bounded
  std::string_view active_replace_;    // xargs -I / find {} placeholder in force

  Variables vars_;
  struct PendingVariable {  // $X run with the values known then
    std::string name;
    std::size_t values = 0;
    std::string reason;
    std::size_t begin = 0;
    std::size_t end = 0;
  };
  std::vector<PendingVariable> pending_variables_;
  // The line's own positional parameters, from `set -- WORDS` run at its
  // top level (the text given to bash -c has none until then).
  struct TopPositional {
    bool known = false;
    std::vector<std::string> params;
    std::uint32_t pipeline = 0;  // of the set that gave them
  };
  TopPositional top_positional_;
  bool positional_rewritten_ = false;  // set -- or shift somewhere else (a branch, a loop)
  // Where known top-level parameters were used (begin, end).
  std::optional<std::pair<std::size_t, std::size_t>> positional_used_;
  WrittenFiles files_;
  struct Located {  // which aws, command -v aws: the path of a listed program
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t entry = 0;
  };
  std::vector<Located> located_;
  std::list<FunctionDef> functions_;  // stable addresses; empty costs nothing, unlike a deque
  CalledNames called_;  // command names run so far (functions defined later)
  std::vector<Frame> frames_;
  bool in_definition_ = false;  // reading a function body where it is defined
  int call_depth_ = 0;
  int prompt_depth_ = 0;
  int depth_hint_ = 0;  // nesting of the command being read, for parses it starts
  std::vector<std::string> history_;  // history -s entries
  bool history_unknown_ = false;      // history read from a file not written here
  bool history_expansion_ = false;    // set -H
  bool history_on_ = false;           // set -o history: the line's own commands are entries
  bool path_changed_ = false;         // PATH assigned: a file here may run by its name
  std::vector<const WrittenFile*> running_files_;  // files being read, against loops
  std::vector<std::string> hooks_dirs_;               // git core.hooksPath values
  std::vector<std::uint32_t> downloader_pipelines_;
  std::vector<std::pair<std::size_t, std::size_t>> downloads_;  // input ranges of curl/wget
  struct Echo {
    std::uint32_t pipeline = 0;
    std::uint32_t index = 0;
    std::string text;
    std::size_t raw_begin = 0;
    std::size_t raw_end = 0;
  };
  std::optional<Echo> echo_;  // the last `echo LITERAL` in a pipeline
};

}  // namespace corral::policy
