// Interpreters given code: inline (python -c, perl -e), from standard input,
// or from a file or script written in the line. interpreter_code.cc reads
// the code for the programs it starts; a Tcl script is read as one.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/dangerous.h"
#include "policy/matcher/deny_list.h"
#include "policy/matcher/interpreter_code.h"

namespace corral::policy {

void HandleInlineCode(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  // python -c 'subprocess.run(["aws", "s3", "ls"])': the programs the code
  // starts are checked; code that starts none may name listed words freely.
  const Language language = LanguageOf(name);
  const bool awk = language == Language::kAwk;
  std::string_view flag = InlineCodeFlag(name);
  bool has_code = false;
  const Arg* script = nullptr;
  for (std::size_t i = 1; i < args.size() && !walk.listed(); ++i) {
    std::string_view t = args[i].text;
    if (t == "--") {
      if (i + 1 < args.size() && script == nullptr && !has_code) script = &args[i + 1];
      break;
    }
    if (awk) {
      if (t == "-f" && i + 1 < args.size()) {
        has_code = true;
        if (!walk.RunWrittenFile(args[i + 1].text, true, Language::kAwk, args[i + 1], ctx)) {
          // a program file on disk
        }
        ++i;
      } else if ((t == "-F" || t == "-v") && i + 1 < args.size()) {
        ++i;
      } else if (!args[i].option() && !has_code) {
        has_code = true;
        ScanInlineCode(walk, name, args[i], ctx);
      }
      continue;
    }
    bool code_flag = t == flag || t == "--eval" ||
                     (language == Language::kNode && (t == "-p" || t == "--print")) ||
                     (t.size() > 2 && t[0] == '-' && t[1] != '-' && t.back() == flag[1]);
    if (code_flag && i + 1 < args.size()) {
      has_code = true;
      ScanInlineCode(walk, name, args[++i], ctx);
      continue;
    }
    if (args[i].option()) {
      // Options that take the next word (a module, a warning filter, ...).
      if (OneOf(t, {"-m", "-W", "-X", "-r", "--require", "-I", "-M", "--import"}) &&
          i + 1 < args.size()) {
        if (t == "-m") has_code = true;  // python -m MODULE: a module, not a file here
        ++i;
      }
      continue;
    }
    if (!has_code && script == nullptr) script = &args[i];
    if (!has_code) break;
  }
  if (awk) return;
  if (script != nullptr) {
    // python3 x.py, where x.py was written earlier in the line.
    if (script->literal() && script->text != "-") {
      walk.RunWrittenFile(script->text, true, language, *script, ctx);
      return;
    }
    if (script->text != "-") return;
  }
  if (has_code) return;
  // python3 - <<EOF ... EOF: with no script named (or "-"), the code is the
  // heredoc or here-string on standard input.
  const shell::SimpleCommand& command = *ctx.command;
  // curl ... | python3: downloaded code runs, as with curl ... | sh.
  if (walk.line().InDownloadPipeline(command)) {
    walk.Danger(DangerousMatch{std::string(kPipeToShell),
                          "a download is piped into " + std::string(name)});
  }
  if (walk.listed()) return;
  std::optional<std::string> text = walk.StdinText(ctx);
  if (!text) return;
  ctx.storage->push_front(std::move(*text));
  Arg code = args[0];
  code.text = ctx.storage->front();
  code.flags = 0;
  if (const shell::Redirect* input = StdinRedirect(command)) {
    code.raw_begin = input->op == shell::RedirectOp::kHeredoc ? input->body_begin
                                                              : input->target.begin;
    code.raw_end = input->op == shell::RedirectOp::kHeredoc ? input->body_end : input->target.end;
    std::tie(code.begin, code.end) = command.origin->Map(code.raw_begin, code.raw_end);
  }
  ScanInlineCode(walk, name, code, ctx);
}

void ScanInlineCode(Walk& walk, std::string_view name, const Arg& code, const CommandCtx& ctx) {
  const Language language = LanguageOf(name);
  if (language == Language::kTcl) {
    TclScript(walk, code.text, code, ctx);
    return;
  }
  if (!code.literal()) return;  // code only known at run time: not shell code we can read
  if (!walk.Charge(code.text.size())) return;
  CodeReport report = AnalyzeInterpreterCode(language, code.text);
  // print("aws"): code that starts no program names listed words freely.
  if (!report.runs_programs) return;
  ListedInStrings(walk, name, code, report.strings);
  if (walk.listed()) return;
  for (const std::string& command : report.commands) {
    walk.ParseText(command, code.raw_begin, code.raw_end, ctx);
  }
  for (const std::vector<std::string>& argv : report.argvs) {
    std::vector<Arg> words;
    for (const std::string& piece : argv) {
      ctx.storage->push_front(piece);
      Arg word = code;
      word.text = ctx.storage->front();
      word.flags = 0;
      words.push_back(word);
    }
    if (!words.empty()) walk.Resolve(words, ctx);
  }
  if (report.dynamic) {
    walk.Undetermined("the " + std::string(name) +
                     " code starts a program whose name is only known when it runs (" +
                     report.why + ")",
                 &code);
  }
}

void ListedInStrings(Walk& walk, std::string_view name, const Arg& code,
                             const std::vector<std::string>& strings) {
  // Only string literals can name a program the code runs ("aws s3 ls",
  // ['aws', 's3'], `aws`); `import aws` names a module, not a program.
  // The program is the first word of a string; the entry's other words may
  // follow in that string or in later ones.
  auto token_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.' || c == '/' || c == '+' || c == '@';
  };
  struct Token {
    std::string_view text;
    bool starts_string;
  };
  std::vector<Token> tokens;
  for (const std::string& body : strings) {
    bool first = true;
    for (std::size_t j = 0; j < body.size() && tokens.size() < 4096;) {
      while (j < body.size() && (body[j] == ' ' || body[j] == '\t')) ++j;
      std::size_t start = j;
      while (j < body.size() && token_char(body[j])) ++j;
      if (j > start) {
        tokens.push_back({std::string_view(body).substr(start, j - start), first});
      } else if (j < body.size()) {
        ++j;
      }
      first = false;
    }
  }
  for (std::size_t a = 0; a < tokens.size() && !walk.listed(); ++a) {
    if (!tokens[a].starts_string) continue;
    const std::vector<std::size_t>* entries = walk.list().ForCommand(shell::Basename(tokens[a].text));
    if (entries == nullptr) continue;
    for (std::size_t index : *entries) {
      const DenyEntry& entry = walk.list().entry(index);
      std::size_t next = 1;
      // The entry's other words follow within a few strings' words.
      std::size_t stop = std::min(tokens.size(), a + 64);
      for (std::size_t b = a + 1; b < stop && next < entry.words.size(); ++b) {
        if (WordMatches(entry.words[next], tokens[b].text)) ++next;
      }
      if (next < entry.words.size()) continue;
      Arg word = code;
      word.text = tokens[a].text;
      walk.ListedBy(entry, word, "and the " + std::string(name) + " code given inline runs it");
      return;
    }
  }
}

}  // namespace corral::policy
