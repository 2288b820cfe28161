// Walks the simple commands the parser reports and decides, for each, which
// programs it runs: through assignments, wrappers, shells given code, eval,
// xargs, find -exec and the rest; each program is checked against the deny
// list and the dangerous-pattern rules. Private to policy/.
#pragma once

#include <cstddef>
#include <forward_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/command_word.h"
#include "policy/deny_list.h"
#include "policy/policy.h"
#include "policy/shell_parser.h"

namespace corral::policy {

class Walker final : public shell::Visitor {
 public:
  Walker(const DenyList& list, std::string_view input, shell::ParseState& state);

  void OnSimpleCommand(const shell::SimpleCommand& command) override;

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
  void Dispatch(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  bool CommandName(const Arg& word, const Ctx& ctx, std::string_view* name);
  void CheckList(std::string_view name, std::span<const Arg> args, bool force_push);
  void TryKnownValue(std::span<const Arg> args, const Ctx& ctx);
  bool TryKnownArguments(std::string_view name, std::span<const Arg> args, bool force_push);

  // Handlers (command_handlers.cc).
  void HandleShell(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void ReadsStdin(std::string_view name, const Ctx& ctx);
  // A later stage of a pipeline that starts with a download (curl ... | X).
  bool InDownloadPipeline(const shell::SimpleCommand& command) const;
  void StdinShell(std::string_view name, const Ctx& ctx);
  static bool StartsShellWithoutCommand(std::string_view name, std::span<const Arg> args);
  void HandleEval(std::span<const Arg> args, const Ctx& ctx);
  void HandleSource(std::span<const Arg> args, const Ctx& ctx);
  void HandleEnv(std::span<const Arg> args, const Ctx& ctx);
  void HandleXargs(std::span<const Arg> args, const Ctx& ctx);
  void HandleFind(std::span<const Arg> args, const Ctx& ctx, std::string_view action_flag);
  void HandleParallel(std::span<const Arg> args, const Ctx& ctx);
  void HandleGit(std::span<const Arg> args, const Ctx& ctx);
  void HandleGitAlias(const Arg& value_word, std::string_view value, const Ctx& ctx);
  void HandleInlineCode(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void ScanInlineCode(std::string_view name, const Arg& code);
  void RunWrapper(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void RecordEcho(std::string_view name, std::span<const Arg> args, const Ctx& ctx);
  void RecordAssignment(const Arg& word, const Ctx& ctx);

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
  std::string listed_reason_;
  bool undetermined_ = false;
  std::string undetermined_reason_;
  std::vector<MatchedWord> undetermined_words_;
  std::optional<DangerousMatch> dangerous_;

  std::size_t hops_ = 0;               // resolutions, bounded
  std::size_t resolve_depth_ = 0;      // wrappers inside wrappers, bounded
  std::string_view active_replace_;    // xargs -I / find {} placeholder in force
  std::vector<std::pair<std::string, std::string>> vars_;  // literal assignments seen
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
