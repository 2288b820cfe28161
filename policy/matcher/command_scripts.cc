// Programs given a script in a little language: sed, m4, Vim/ex, expect
// and tclsh. The script comes from an option, an operand file written
// earlier in the line, or standard input; tool_scripts.cc reads it.
#include "policy/matcher/command_util.h"
#include "policy/matcher/command_walker.h"
#include "policy/matcher/tool_scripts.h"

namespace corral::policy {

std::optional<std::string> Walker::StdinText(const Ctx& ctx) const {
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
    const WrittenFile* file = files_.Find(input->target.text, true);
    if (file != nullptr && file->kind == WrittenFile::Kind::kText) return file->content;
    return std::nullopt;
  }
  if (input == nullptr && command.pipe_index > 0 && echo_ &&
      echo_->pipeline == command.pipeline_id && echo_->index + 1 == command.pipe_index) {
    return echo_->text;
  }
  return std::nullopt;
}

std::vector<Arg> Walker::WordsOf(std::string_view text, const Arg& word, const Ctx& ctx) const {
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

void Walker::ResolveWords(std::string_view text, const Arg& word, const Ctx& ctx) {
  std::vector<Arg> words = WordsOf(text, word, ctx);
  if (!words.empty()) Resolve(words, ctx);
}

void Walker::RunScriptCommands(const ScriptCommands& commands, const Arg& word, const Ctx& ctx) {
  for (const std::string& line : commands.shell) ParseText(line, word.raw_begin, word.raw_end, ctx);
  for (const std::string& program : commands.programs) ProgramValue(word, program, ctx);
  for (const auto& [language, code] : commands.code) {
    ctx.storage->push_front(code);
    Arg text = word;
    text.text = ctx.storage->front();
    text.flags = 0;
    ScanInlineCode(language, text, ctx);
  }
  if (commands.unknown) Undetermined(commands.why, &word);
}

// A script word: its text, with run-time parts as unknown words (sed
// "s/$a/$b/" stays readable), or the content of a file written here.
void Walker::ScriptFromFile(const Arg& word, std::string_view path, ScriptReader reader,
                            const Ctx& ctx) {
  if (!word.literal()) return;
  const WrittenFile* file = files_.Find(path, true);
  if (file == nullptr || file->kind == WrittenFile::Kind::kOnDisk) return;  // a script on disk
  if (file->kind != WrittenFile::Kind::kText) {
    Undetermined(Quote(word) + " was written earlier in the line with content only known when "
                               "it runs",
                 &word);
    return;
  }
  if (!Charge(file->content.size())) return;
  RunScriptCommands(reader(file->content), word, ctx);
}

void Walker::HandleSed(std::span<const Arg> args, const Ctx& ctx) {
  std::vector<const Arg*> scripts;
  std::vector<std::pair<const Arg*, std::size_t>> inline_scripts;  // word, offset
  bool given = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "--sandbox") return;  // e, r and w are refused
    if (t.starts_with("--expression=")) {
      inline_scripts.emplace_back(&args[i], 13);
      given = true;
    } else if (t == "--expression" && i + 1 < args.size()) {
      inline_scripts.emplace_back(&args[++i], 0);
      given = true;
    } else if (t.starts_with("--file=")) {
      ScriptFromFile(args[i], t.substr(7), SedScriptCommands, ctx);
      given = true;
    } else if (t == "--file" && i + 1 < args.size()) {
      ++i;
      ScriptFromFile(args[i], args[i].text, SedScriptCommands, ctx);
      given = true;
    } else if (t.size() > 1 && t[0] == '-' && t[1] != '-') {
      for (std::size_t k = 1; k < t.size(); ++k) {
        char c = t[k];
        if (c == 'i') break;  // -i[SUFFIX]: the rest is the suffix
        if (c != 'e' && c != 'f' && c != 'l') continue;
        bool attached = k + 1 < t.size();
        if (!attached && i + 1 >= args.size()) break;
        const Arg& value = attached ? args[i] : args[++i];
        std::size_t offset = attached ? k + 1 : 0;
        if (c == 'e') inline_scripts.emplace_back(&value, offset);
        if (c == 'f') ScriptFromFile(value, value.text.substr(offset), SedScriptCommands, ctx);
        given = given || c != 'l';
        break;
      }
    } else if (!args[i].option() && !given && scripts.empty()) {
      scripts.push_back(&args[i]);
    }
  }
  for (const Arg* script : scripts) inline_scripts.emplace_back(script, 0);
  for (const auto& [word, offset] : inline_scripts) {
    if (!word->literal() && word->text.substr(std::min(offset, word->text.size()))
                                .starts_with(shell::kExpansionMark)) {
      Undetermined("the sed script " + Quote(*word) + " is only known when it runs", word);
      continue;
    }
    std::string text;
    for (char c : word->text.substr(std::min(offset, word->text.size()))) {
      text += c == shell::kExpansionMark ? std::string("$__") : std::string(1, c);
    }
    RunScriptCommands(SedScriptCommands(text), *word, ctx);
  }
}

void Walker::HandleM4(std::span<const Arg> args, const Ctx& ctx) {
  bool operand = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t.starts_with("-D") || t.starts_with("--define")) {
      const Arg& word = (t == "-D" || t == "--define") && i + 1 < args.size() ? args[++i] : args[i];
      RunScriptCommands(M4Commands(word.text), word, ctx);
    } else if (!args[i].option() || t == "-") {
      operand = true;
      if (t == "-") {
        if (std::optional<std::string> text = StdinText(ctx)) {
          RunScriptCommands(M4Commands(*text), args[i], ctx);
        }
      } else {
        ScriptFromFile(args[i], t, M4Commands, ctx);
      }
    }
  }
  if (!operand) {
    if (std::optional<std::string> text = StdinText(ctx)) {
      RunScriptCommands(M4Commands(*text), args[0], ctx);
    }
  }
}

void Walker::HandleVim(std::span<const Arg> args, const Ctx& ctx) {
  bool ex_mode = shell::Basename(args[0].text) == "ex";
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if ((t == "-c" || t == "--cmd") && i + 1 < args.size()) {
      ++i;
      RunScriptCommands(VimCommands(args[i].text), args[i], ctx);
    } else if (t.starts_with("+") && t.size() > 1) {
      RunScriptCommands(VimCommands(t.substr(1)), args[i], ctx);
    } else if ((t == "-S" || t == "-u" || t == "-U" || (t == "-s" && !ex_mode)) &&
               i + 1 < args.size()) {
      ++i;
      ScriptFromFile(args[i], args[i].text, VimCommands, ctx);
    } else if (t.size() > 1 && t[0] == '-' && t[1] != '-' &&
               t.find_first_of("eE") != std::string_view::npos) {
      ex_mode = true;
    }
  }
  if (ex_mode) {
    // ex and vim -es read Ex commands from standard input.
    if (std::optional<std::string> text = StdinText(ctx)) {
      RunScriptCommands(VimCommands(*text), args[0], ctx);
    }
  }
}

void Walker::HandleTcl(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
  bool script = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "-c" && i + 1 < args.size() && name == "expect") {
      ++i;
      script = true;
      TclScript(args[i].text, args[i], ctx);
    } else if (t == "-f" && i + 1 < args.size()) {
      ++i;
      script = true;
      ScriptFromFile(args[i], args[i].text, TclCommands, ctx);
    } else if (!args[i].option() && !script) {
      script = true;
      ScriptFromFile(args[i], t, TclCommands, ctx);
      break;  // the rest are the script's arguments
    } else if (t == "-") {
      break;
    }
  }
  if (!script) {
    if (std::optional<std::string> text = StdinText(ctx)) {
      ctx.storage->push_front(std::move(*text));
      TclScript(ctx.storage->front(), args[0], ctx);
    }
  }
}

void Walker::TclScript(std::string_view text, const Arg& word, const Ctx& ctx) {
  RunScriptCommands(TclCommands(text), word, ctx);
}

}  // namespace corral::policy
