// The words and texts a command gives its handlers: what it reads on
// standard input, and words split from a value (env -S, git aliases, socat
// EXEC:) to run as one command.
#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/command_walker.h"

namespace corral::policy {

std::optional<std::string> Walker::StdinText(const CommandCtx& ctx) {
  const shell::SimpleCommand& command = *ctx.command;
  const shell::Redirect* input = StdinRedirect(command);
  if (input != nullptr && input->op == shell::RedirectOp::kHeredoc) {
    return HeredocText(command, *input);
  }
  if (input != nullptr && input->op == shell::RedirectOp::kHereString) {
    if (!input->target.literal()) return std::nullopt;
    return input->target.text + "\n";
  }
  if (input != nullptr && input->op == shell::RedirectOp::kIn && input->target.literal()) {
    const WrittenFile* file = line_.files.Find(input->target.text, true);
    if (file != nullptr && file->kind == WrittenFile::Kind::kText) return file->content;
    return std::nullopt;
  }
  if (input == nullptr && command.pipe_index > 0 && line_.echo &&
      line_.echo->pipeline == command.pipeline_id && line_.echo->index + 1 == command.pipe_index) {
    return line_.echo->text;
  }
  return std::nullopt;
}

std::vector<Arg> Walker::WordsOf(std::string_view text, const Arg& word, const CommandCtx& ctx) {
  std::vector<Arg> words;
  for (std::string& piece : SplitEnvString(text)) {
    ctx.storage->push_front(std::move(piece));
    Arg arg = word;
    arg.text = ctx.storage->front();
    arg.flags = 0;
    arg.var = {};
    words.push_back(arg);
  }
  return words;
}

void Walker::ResolveWords(std::string_view text, const Arg& word, const CommandCtx& ctx) {
  std::vector<Arg> words = WordsOf(text, word, ctx);
  if (!words.empty()) Resolve(words, ctx);
}

}  // namespace corral::policy
