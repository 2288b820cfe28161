// Programs given a script in a little language: sed, m4, Vim/ex, expect
// and tclsh. The script comes from an option, an operand file written
// earlier in the line, or standard input; tool_scripts.cc reads it.
#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/tool_scripts.h"

namespace corral::policy {

void RunScriptCommands(Walk& walk, const ScriptCommands& commands, const Arg& word, const CommandCtx& ctx) {
  for (const std::string& line : commands.shell) walk.ParseText(line, word.raw_begin, word.raw_end, ctx);
  for (const std::string& program : commands.programs) walk.ProgramValue(word, program, ctx);
  for (const auto& [language, code] : commands.code) {
    ctx.storage->push_front(code);
    Arg text = word;
    text.text = ctx.storage->front();
    text.flags = 0;
    walk.RunCode(language, text, ctx);
  }
  if (commands.unknown) walk.Undetermined(commands.why, &word);
}

// A script word: its text, with run-time parts as unknown words (sed
// "s/$a/$b/" stays readable), or the content of a file written here.
void ScriptFromFile(Walk& walk, const Arg& word, std::string_view path, ScriptReader reader,
                            const CommandCtx& ctx) {
  if (!word.literal()) return;
  const WrittenFile* file = walk.line().files.Find(path, true);
  if (file == nullptr || file->kind == WrittenFile::Kind::kOnDisk) return;  // a script on disk
  if (file->kind != WrittenFile::Kind::kText) {
    walk.Undetermined(walk.Quote(word) + " was written earlier in the line with content only known when "
                               "it runs",
                 &word);
    return;
  }
  if (!walk.Charge(file->content.size())) return;
  RunScriptCommands(walk, reader(file->content), word, ctx);
}

void HandleSed(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
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
      ScriptFromFile(walk, args[i], t.substr(7), SedScriptCommands, ctx);
      given = true;
    } else if (t == "--file" && i + 1 < args.size()) {
      ++i;
      ScriptFromFile(walk, args[i], args[i].text, SedScriptCommands, ctx);
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
        if (c == 'f') ScriptFromFile(walk, value, value.text.substr(offset), SedScriptCommands, ctx);
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
      walk.Undetermined("the sed script " + walk.Quote(*word) + " is only known when it runs", word);
      continue;
    }
    std::string text;
    for (char c : word->text.substr(std::min(offset, word->text.size()))) {
      text += c == shell::kExpansionMark ? std::string("$__") : std::string(1, c);
    }
    RunScriptCommands(walk, SedScriptCommands(text), *word, ctx);
  }
}

void HandleM4(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  bool operand = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t.starts_with("-D") || t.starts_with("--define")) {
      const Arg& word = (t == "-D" || t == "--define") && i + 1 < args.size() ? args[++i] : args[i];
      RunScriptCommands(walk, M4Commands(word.text), word, ctx);
    } else if (!args[i].option() || t == "-") {
      operand = true;
      if (t == "-") {
        if (std::optional<std::string> text = walk.StdinText(ctx)) {
          RunScriptCommands(walk, M4Commands(*text), args[i], ctx);
        }
      } else {
        ScriptFromFile(walk, args[i], t, M4Commands, ctx);
      }
    }
  }
  if (!operand) {
    if (std::optional<std::string> text = walk.StdinText(ctx)) {
      RunScriptCommands(walk, M4Commands(*text), args[0], ctx);
    }
  }
}

void HandleVim(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  bool ex_mode = shell::Basename(args[0].text) == "ex";
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if ((t == "-c" || t == "--cmd") && i + 1 < args.size()) {
      ++i;
      RunScriptCommands(walk, VimCommands(args[i].text), args[i], ctx);
    } else if (t.starts_with("+") && t.size() > 1) {
      RunScriptCommands(walk, VimCommands(t.substr(1)), args[i], ctx);
    } else if ((t == "-S" || t == "-u" || t == "-U" || (t == "-s" && !ex_mode)) &&
               i + 1 < args.size()) {
      ++i;
      ScriptFromFile(walk, args[i], args[i].text, VimCommands, ctx);
    } else if (t.size() > 1 && t[0] == '-' && t[1] != '-' &&
               t.find_first_of("eE") != std::string_view::npos) {
      ex_mode = true;
    }
  }
  if (ex_mode) {
    // ex and vim -es read Ex commands from standard input.
    if (std::optional<std::string> text = walk.StdinText(ctx)) {
      RunScriptCommands(walk, VimCommands(*text), args[0], ctx);
    }
  }
}

void HandleTcl(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  bool script = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "-c" && i + 1 < args.size() && name == "expect") {
      ++i;
      script = true;
      TclScript(walk, args[i].text, args[i], ctx);
    } else if (t == "-f" && i + 1 < args.size()) {
      ++i;
      script = true;
      ScriptFromFile(walk, args[i], args[i].text, TclCommands, ctx);
    } else if (!args[i].option() && !script) {
      script = true;
      ScriptFromFile(walk, args[i], t, TclCommands, ctx);
      break;  // the rest are the script's arguments
    } else if (t == "-") {
      break;
    }
  }
  if (!script) {
    if (std::optional<std::string> text = walk.StdinText(ctx)) {
      ctx.storage->push_front(std::move(*text));
      TclScript(walk, ctx.storage->front(), args[0], ctx);
    }
  }
}

void TclScript(Walk& walk, std::string_view text, const Arg& word, const CommandCtx& ctx) {
  RunScriptCommands(walk, TclCommands(text), word, ctx);
}

}  // namespace corral::policy
