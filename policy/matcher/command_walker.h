// Walks the simple commands the parser reports and decides, for each, which
// programs it runs: through assignments, wrappers, shells given code, eval,
// xargs, find -exec and the rest; each program is checked against the deny
// list and the dangerous-pattern rules. What particular programs do is read
// by the handlers (command_handlers.h), which ask the walk only through Walk
// (walk.h). Private to policy/matcher/.
#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/matcher/walk.h"

namespace corral::policy {

class Walker final : public shell::Visitor, public Walk {
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
  bool listed() const override { return listed_; }
  bool undetermined() const { return undetermined_; }
  void Fill(MatchResult* result) const;

  // Walk, for the handlers.
  void Listed(const DenyEntry& entry, std::span<const Arg> args,
              const std::vector<std::size_t>& positions) override;
  void ListedBy(const DenyEntry& entry, const Arg& word, std::string_view how) override;
  void Undetermined(std::string reason, const Arg* word) override;
  void Danger(std::optional<DangerousMatch> match) override;
  const DenyList& list() const override { return list_; }
  void CheckList(std::string_view name, std::span<const Arg> args, bool force_push) override;
  std::string Quote(const Arg& word) const override;
  void Resolve(std::span<const Arg> args, const CommandCtx& ctx) override;
  void ProgramValue(const Arg& word, std::string_view value, const CommandCtx& ctx) override;
  void ResolveWords(std::string_view text, const Arg& word, const CommandCtx& ctx) override;
  void ParseText(std::string_view text, std::size_t raw_begin, std::size_t raw_end,
                 const CommandCtx& ctx) override;
  void ParseJoined(std::span<const Arg> args, const CommandCtx& ctx) override;
  void ParseCodeArg(std::string_view who, const Arg& arg, std::size_t offset,
                    const CommandCtx& ctx) override;
  void CheckDownloadInto(const Arg& word) override;
  bool RunWrittenFile(std::string_view path, bool named, Language language, const Arg& word,
                      const CommandCtx& ctx) override;
  void RunCode(std::string_view program, const Arg& code, const CommandCtx& ctx) override;
  std::optional<std::string> StdinText(const CommandCtx& ctx) override;
  std::optional<std::string> OutputOf(std::span<const Arg> args, const CommandCtx& ctx) override;
  std::vector<Arg> WordsOf(std::string_view text, const Arg& word, const CommandCtx& ctx) override;
  bool Charge(std::size_t bytes) override;
  void RecordAssignment(const Arg& word, const CommandCtx& ctx, bool persists) override;
  void MarkWritten(std::span<const Arg> names) override;
  void ExpandPrompt(std::string_view text, std::size_t begin, std::size_t end) override;
  void RecordLocate(std::span<const Arg> args) override;
  LineState& line() override { return line_; }

 private:
  using Ctx = CommandCtx;

  void ResolveOne(std::span<const Arg> args, const Ctx& ctx);
  // /dev/fd/N, /dev/stdin, /proc/self/fd/N as the program: the file this
  // command's redirection opened there. True when it was one of those.
  bool ResolveDescriptorProgram(std::span<const Arg> args, const Ctx& ctx);
  bool CommandName(const Arg& word, const Ctx& ctx, std::string_view* name, bool* known_variable);
  void TryKnownValue(std::span<const Arg> args, const Ctx& ctx, bool known);
  bool TryKnownArguments(std::string_view name, std::span<const Arg> args, bool force_push);
  // $X in command position whose every value is known from this line.
  bool KnownProgramVariable(const Arg& word, const Ctx& ctx) const;

  // Line facts (walker_facts.cc).
  void BuildArgs(const shell::SimpleCommand& command, const Ctx& ctx, std::vector<Arg>* args);
  bool ExpandPositional(const shell::Word& word, const Arg& arg, const Ctx& ctx,
                        std::vector<Arg>* args);
  const Frame* CurrentFrame() const;
  // The line's top-level parameters as a frame, when they are known where
  // `ctx`'s command runs.
  bool TopLevelFrame(const Ctx& ctx, Frame* frame) const;
  void CallFunction(const FunctionDef& function, std::span<const Arg> args, const Ctx& ctx);

  // Files written in the line (walker_files.cc).
  void RecordWrites(std::span<const Arg> args, const Ctx& ctx);
  void RecordCopy(std::string_view name, std::span<const Arg> args);
  const DenyEntry* LocatedProgram(const Arg& word) const;
  void RunFileText(std::string_view text, Language language, const Arg& word, const Ctx& ctx);

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

  LineState line_;
  struct PendingVariable {  // $X run with the values known then
    std::string name;
    std::size_t values = 0;
    std::string reason;
    std::size_t begin = 0;
    std::size_t end = 0;
  };
  std::vector<PendingVariable> pending_variables_;
  // Where known top-level parameters were used (begin, end).
  std::optional<std::pair<std::size_t, std::size_t>> positional_used_;
  struct Located {  // which aws, command -v aws: the path of a listed program
    std::size_t begin = 0;
    std::size_t end = 0;
    std::size_t entry = 0;
  };
  std::vector<Located> located_;
  std::list<FunctionDef> functions_;  // stable addresses; empty costs nothing, unlike a deque
  CalledNames called_;  // command names run so far (functions defined later)
  int call_depth_ = 0;
  int prompt_depth_ = 0;
  int depth_hint_ = 0;  // nesting of the command being read, for parses it starts
  bool path_changed_ = false;         // PATH assigned: a file here may run by its name
  std::vector<const WrittenFile*> running_files_;  // files being read, against loops
};

}  // namespace corral::policy
