// What a command's handler may ask of the walk of one line: the words and
// texts the line gives (standard input, a command's output, words split from
// a value), recording a finding, resolving a nested command or parsing
// nested shell code, and the facts the line's commands set up for later ones
// (LineState). The walker (command_walker.h) implements it; the handlers
// (command_handlers.h) see nothing else of it. Private to policy/matcher/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

namespace corral::policy {

// Per simple command: the command it belongs to (redirections, pipeline),
// owned strings made while reading it, and how the words reached us.
struct CommandCtx {
  const shell::SimpleCommand* command = nullptr;
  std::forward_list<std::string>* storage = nullptr;
  bool appended = false;  // xargs appends input words to this command
  bool package = false;   // the command word may carry @version (npx)
};

// The line's own positional parameters, from `set -- WORDS` run at its top
// level (the text given to bash -c has none until then).
struct TopPositional {
  bool known = false;
  std::vector<std::string> params;
  std::uint32_t pipeline = 0;  // of the set that gave them
};

// The last `echo LITERAL` in a pipeline: what the next stage reads.
struct EchoText {
  std::uint32_t pipeline = 0;
  std::uint32_t index = 0;
  std::string text;
  std::size_t raw_begin = 0;
  std::size_t raw_end = 0;
};

// What the commands read so far set up for the commands after them, which
// both the walker and the handlers read and change.
struct LineState {
  Variables vars;
  WrittenFiles files;
  std::vector<Frame> frames;  // positional parameters of the code being read
  TopPositional top_positional;
  bool positional_rewritten = false;  // set -- or shift somewhere else (a branch, a loop)
  bool in_definition = false;         // reading a function body where it is defined
  std::string_view active_replace;    // xargs -I / find {} placeholder in force
  std::vector<std::string> history;   // history -s entries
  bool history_unknown = false;       // history read from a file not written here
  bool history_expansion = false;     // set -H
  bool history_on = false;            // set -o history: the line's own commands are entries
  std::vector<std::string> hooks_dirs;  // git core.hooksPath values
  std::vector<std::uint32_t> downloader_pipelines;
  std::vector<std::pair<std::size_t, std::size_t>> downloads;  // input ranges of curl/wget
  std::optional<EchoText> echo;

  // A later stage of a pipeline that starts with a download (curl ... | X).
  bool InDownloadPipeline(const shell::SimpleCommand& command) const {
    return command.pipe_index > 0 &&
           std::find(downloader_pipelines.begin(), downloader_pipelines.end(),
                     command.pipeline_id) != downloader_pipelines.end();
  }
};

class Walk {
 public:
  // Findings. The first listed match and the first undetermined command
  // are kept, and the most severe dangerous pattern.
  virtual void Listed(const DenyEntry& entry, std::span<const Arg> args,
                      const std::vector<std::size_t>& positions) = 0;
  // As above, with the reason naming how the entry runs ("and the python
  // code given inline runs it").
  virtual void ListedBy(const DenyEntry& entry, const Arg& word, std::string_view how) = 0;
  virtual void Undetermined(std::string reason, const Arg* word) = 0;
  virtual void Danger(std::optional<DangerousMatch> match) = 0;
  virtual bool listed() const = 0;
  virtual const DenyList& list() const = 0;
  // Checks `name` and its arguments against the deny list.
  virtual void CheckList(std::string_view name, std::span<const Arg> args, bool force_push) = 0;
  virtual std::string Quote(const Arg& word) const = 0;  // the word as written, for reasons

  // Nested commands: `args` run as a command; a program given as a value
  // (SHELL=, --script-shell=); words split from `text` run as one command.
  virtual void Resolve(std::span<const Arg> args, const CommandCtx& ctx) = 0;
  virtual void ProgramValue(const Arg& word, std::string_view value, const CommandCtx& ctx) = 0;
  virtual void ResolveWords(std::string_view text, const Arg& word, const CommandCtx& ctx) = 0;

  // Nested shell code: parsed, or reported undetermined when only known at
  // run time.
  virtual void ParseText(std::string_view text, std::size_t raw_begin, std::size_t raw_end,
                         const CommandCtx& ctx) = 0;
  virtual void ParseJoined(std::span<const Arg> args, const CommandCtx& ctx) = 0;
  virtual void ParseCodeArg(std::string_view who, const Arg& arg, std::size_t offset,
                            const CommandCtx& ctx) = 0;
  // bash -c "$(curl ...)", bash <(curl ...): a download runs as code.
  virtual void CheckDownloadInto(const Arg& word) = 0;
  // A file written earlier in this line runs: as `language`, or by its #!
  // line when kOther. Returns false when `path` was not written here.
  virtual bool RunWrittenFile(std::string_view path, bool named, Language language,
                              const Arg& word, const CommandCtx& ctx) = 0;
  // Interpreter code `program` runs (python, perl, tclsh, ...; inline, from
  // standard input, or a file or script written in the line).
  virtual void RunCode(std::string_view program, const Arg& code, const CommandCtx& ctx) = 0;

  // Texts the line gives. Text a command reads as its program (a heredoc, a
  // here-string, echo |), or nullopt when standard input is not known.
  virtual std::optional<std::string> StdinText(const CommandCtx& ctx) = 0;
  // What echo, printf or cat print, when the line gives it.
  virtual std::optional<std::string> OutputOf(std::span<const Arg> args,
                                              const CommandCtx& ctx) = 0;
  // Words split from `text` (quotes group, blanks separate), placed at `word`.
  virtual std::vector<Arg> WordsOf(std::string_view text, const Arg& word,
                                   const CommandCtx& ctx) = 0;
  // Reading texts other than shell code counts towards the line's work
  // limit; false once it is hit.
  virtual bool Charge(std::size_t bytes) = 0;

  // Line facts. NAME=VALUE; `persists`: it stays set in this shell (a bare
  // assignment, export, declare), rather than only for one command.
  virtual void RecordAssignment(const Arg& word, const CommandCtx& ctx, bool persists) = 0;
  virtual void MarkWritten(std::span<const Arg> names) = 0;
  // Text bash expands later like a double-quoted string (PS4, ${x@P}).
  virtual void ExpandPrompt(std::string_view text, std::size_t begin, std::size_t end) = 0;
  // which aws, command -v aws: the path of a listed program.
  virtual void RecordLocate(std::span<const Arg> args) = 0;
  virtual LineState& line() = 0;

 protected:
  ~Walk() = default;
};

}  // namespace corral::policy
