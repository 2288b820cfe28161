// Programs that run commands in their own ways: env, xargs, find -exec /
// fd -x, parallel, ssh/scp/sftp/rsync option code, and interpreters given
// inline code.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_walker.h"
#include "policy/matcher/dangerous.h"
#include "policy/matcher/interpreter_code.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {

void Walker::HandleEnv(std::span<const Arg> original, const Ctx& ctx) {
  // The words are copied only when env -S splits one: env env env ... stays
  // linear.
  std::span<const Arg> args = original;
  std::vector<Arg> owned;
  std::size_t i = 1;
  auto split_into = [&](std::size_t at, std::size_t remove, const Arg& source,
                        std::string_view text) {
    if (owned.empty()) owned.assign(args.begin(), args.end());
    std::vector<Arg> pieces = WordsOf(text, source, ctx);
    owned.erase(owned.begin() + static_cast<std::ptrdiff_t>(at),
                owned.begin() + static_cast<std::ptrdiff_t>(std::min(at + remove, owned.size())));
    owned.insert(owned.begin() + static_cast<std::ptrdiff_t>(at), pieces.begin(), pieces.end());
    args = owned;
  };
  int splits = 0;
  while (i < args.size()) {
    Arg arg = args[i];
    std::string_view t = arg.text;
    if (arg.literal() && arg.option()) {
      if (t == "--") {
        ++i;
        break;
      }
      std::string_view split_text;
      std::size_t split_remove = 0;
      const Arg* split_word = &arg;
      if (t.starts_with("--")) {
        std::size_t eq = t.find('=');
        std::string_view name = t.substr(2, eq == std::string_view::npos ? eq : eq - 2);
        if (name == "split-string") {
          if (eq != std::string_view::npos) {
            split_text = t.substr(eq + 1);
            split_remove = 1;
          } else if (i + 1 < args.size()) {
            split_word = &args[i + 1];
            split_text = args[i + 1].text;
            split_remove = 2;
          }
        } else {
          i += (eq == std::string_view::npos && (name == "unset" || name == "chdir")) ? 2 : 1;
          continue;
        }
      } else {
        std::size_t skip = 1;
        for (std::size_t k = 1; k < t.size(); ++k) {
          char c = t[k];
          if (c == 'S') {
            if (k + 1 < t.size()) {
              split_text = t.substr(k + 1);
              split_remove = 1;
            } else if (i + 1 < args.size()) {
              split_word = &args[i + 1];
              split_text = args[i + 1].text;
              split_remove = 2;
            }
            break;
          }
          if (c == 'u' || c == 'C' || c == 'P') {
            skip = k + 1 < t.size() ? 1 : 2;
            break;
          }
        }
        if (split_remove == 0) {
          i += skip;
          continue;
        }
      }
      if (split_remove == 0) {
        ++i;
        continue;
      }
      if (!split_word->literal()) {
        Undetermined("the command env -S splits is only known when it runs", split_word);
        return;
      }
      if (++splits > 8) return;
      // env -S "aws s3 ls": the split words take the option's place and are
      // read again as env's own arguments.
      Arg source = *split_word;
      std::string kept(split_text);
      split_into(i, split_remove, source, kept);
      continue;
    }
    if (t == "-") {
      ++i;
      continue;
    }
    std::size_t eq = t.find('=');
    if (eq != std::string_view::npos && eq > 0 && !(arg.flags & shell::kExpansion && eq > t.find(shell::kExpansionMark))) {
      RecordAssignment(arg, ctx);
      ++i;
      continue;
    }
    break;
  }
  if (i < args.size()) {
    Resolve(args.subspan(i), ctx);
  } else if (ctx.appended) {
    Undetermined("the command env runs comes from its input", &args[0]);
  }
}

void Walker::HandleRemoteShell(std::string_view name, std::span<const Arg> args,
                               const Ctx& ctx) {
  // Option values that run locally: ssh -o ProxyCommand= (any case), scp /
  // sftp -S PROGRAM, sftp -D SERVER, rsync -e / --rsh / --rsync-path.
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (name != "ssh" && (t == "-S" || (name == "sftp" && t == "-D")) && i + 1 < args.size()) {
      ++i;
      ProgramValue(args[i], args[i].text, ctx);
      continue;
    }
    if (name == "rsync") {
      if ((t == "-e" || t == "--rsh" || t == "--rsync-path") && i + 1 < args.size()) {
        ParseCodeArg(name, args[++i], 0, ctx);
      } else if (t.starts_with("--rsh=") || t.starts_with("--rsync-path=")) {
        ParseCodeArg(name, args[i], t.find('=') + 1, ctx);
      } else if (t.starts_with("-e") && t.size() > 2 && !t.starts_with("--")) {
        ParseCodeArg(name, args[i], 2, ctx);
      }
      continue;
    }
    const Arg* value = &args[i];
    std::size_t offset = 0;
    if (t == "-o" && i + 1 < args.size()) {
      value = &args[++i];
    } else if (t.starts_with("-o")) {
      offset = 2;
    } else {
      continue;
    }
    std::string_view option = value->text.substr(offset);
    std::string lower(option.substr(0, 24));
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (std::string_view key : {"proxycommand", "localcommand", "knownhostscommand",
                                 "remotecommand"}) {
      if (lower.size() > key.size() && lower.starts_with(key) &&
          (lower[key.size()] == '=' || lower[key.size()] == ' ' || lower[key.size()] == '\t')) {
        std::size_t at = offset + key.size() + 1;
        while (at < value->text.size() && (value->text[at] == ' ' || value->text[at] == '=')) ++at;
        ParseCodeArg(name, *value, at, ctx);
      }
    }
  }
  if (name == "ssh") RunWrapper(name, args, ctx);
}

void Walker::HandleXargs(std::span<const Arg> args, const Ctx& ctx) {
  std::string_view replace;
  std::size_t i = 1;
  while (i < args.size()) {
    const Arg& arg = args[i];
    std::string_view t = arg.text;
    if (!arg.literal() || !arg.option()) break;
    if (t == "--") {
      ++i;
      break;
    }
    if (t.starts_with("--")) {
      std::size_t eq = t.find('=');
      std::string_view name = t.substr(2, eq == std::string_view::npos ? eq : eq - 2);
      if (name == "replace") {
        replace = eq == std::string_view::npos ? "{}" : t.substr(eq + 1);
        ++i;
      } else if (eq == std::string_view::npos &&
                 OneOf(name, {"arg-file", "delimiter", "max-lines", "max-args", "max-procs",
                              "max-chars", "process-slot-var", "eof"})) {
        i += 2;
      } else {
        ++i;
      }
      continue;
    }
    std::size_t skip = 1;
    for (std::size_t k = 1; k < t.size(); ++k) {
      char c = t[k];
      if (c == 'I') {
        if (k + 1 < t.size()) {
          replace = t.substr(k + 1);
        } else if (i + 1 < args.size()) {
          replace = args[i + 1].text;
          skip = 2;
        }
        break;
      }
      if (c == 'i') {
        replace = k + 1 < t.size() ? t.substr(k + 1) : "{}";
        break;
      }
      if (c == 'e' || c == 'l') break;  // optional attached argument
      if (std::string_view("adELnPs").find(c) != std::string_view::npos) {
        skip = k + 1 < t.size() ? 1 : 2;
        break;
      }
    }
    i += skip;
  }
  if (i >= args.size()) return;  // runs echo
  Ctx inner = ctx;
  inner.appended = replace.empty();
  std::string_view saved = active_replace_;
  if (!replace.empty()) active_replace_ = replace;
  Resolve(args.subspan(i), inner);
  active_replace_ = saved;
}

void Walker::HandleFind(std::span<const Arg> args, const Ctx& ctx, std::string_view tool) {
  const bool fd = tool == "fd";
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    bool action = fd ? OneOf(t, {"-x", "--exec", "-X", "--exec-batch"})
                     : OneOf(t, {"-exec", "-execdir", "-ok", "-okdir"});
    if (!action) continue;
    std::size_t j = i + 1;
    while (j < args.size() && args[j].text != ";" &&
           !(args[j].text == "+" && !fd && args[j - 1].text == "{}")) {
      ++j;
    }
    Ctx inner = ctx;
    inner.appended = false;
    std::string_view saved = active_replace_;
    active_replace_ = fd ? "{" : "{}";
    Resolve(args.subspan(i + 1, j - i - 1), inner);
    active_replace_ = saved;
    i = j;
  }
}

void Walker::HandleParallel(std::span<const Arg> args, const Ctx& ctx) {
  static constexpr std::string_view kWithArgument = "jSadEINLPC";
  std::size_t i = 1;
  while (i < args.size() && args[i].literal() && args[i].option() &&
         !args[i].text.starts_with(":::")) {
    std::string_view t = args[i].text;
    bool takes = (t.size() == 2 && kWithArgument.find(t[1]) != std::string_view::npos) ||
                 (t.starts_with("--") && t.find('=') == std::string_view::npos &&
                  OneOf(t, {"--jobs", "--sshlogin", "--arg-file", "--delimiter", "--colsep",
                            "--results", "--joblog", "--tmpdir", "--workdir", "--env",
                            "--timeout", "--retries", "--halt", "--tagstring", "--memfree"}));
    i += takes ? 2 : 1;
  }
  std::size_t marker = i;
  while (marker < args.size() && !args[marker].text.starts_with(":::")) ++marker;
  std::span<const Arg> command = args.subspan(i, marker - i);
  std::span<const Arg> inputs =
      marker < args.size() ? args.subspan(marker + 1) : std::span<const Arg>();
  if (command.empty()) {
    // parallel ::: 'cmd1' 'cmd2': each input is a command line.
    for (std::size_t k = 0; k < inputs.size() && k < 64; ++k) {
      if (!inputs[k].text.starts_with(":::")) ParseCodeArg("parallel", inputs[k], 0, ctx);
    }
    if (marker >= args.size()) {
      Undetermined("the commands parallel runs come from its input", &args[0]);
    }
    return;
  }
  std::string_view saved = active_replace_;
  active_replace_ = "{";
  ParseJoined(command, ctx);
  active_replace_ = saved;
  // The inputs replace {} (or are appended) before the shell runs the line.
  for (std::size_t k = 0; k < inputs.size() && k < 16; ++k) {
    if (!inputs[k].literal() || inputs[k].text.starts_with(":::")) continue;
    std::string line;
    bool placed = false;
    for (const Arg& word : command) {
      if (!word.literal()) return;
      if (!line.empty()) line += ' ';
      std::string_view text = word.text;
      std::size_t at = text.find("{}");
      if (at != std::string_view::npos) {
        line.append(text.substr(0, at)).append(inputs[k].text).append(text.substr(at + 2));
        placed = true;
      } else {
        line.append(text);
      }
    }
    if (!placed) line.append(" ").append(inputs[k].text);
    ParseText(line, command.front().raw_begin, command.back().raw_end, ctx);
  }
}

void Walker::HandleInlineCode(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
  // python -c 'subprocess.run(["aws", "s3", "ls"])': the programs the code
  // starts are checked; code that starts none may name listed words freely.
  const Language language = LanguageOf(name);
  const bool awk = language == Language::kAwk;
  std::string_view flag = InlineCodeFlag(name);
  bool has_code = false;
  const Arg* script = nullptr;
  for (std::size_t i = 1; i < args.size() && !listed_; ++i) {
    std::string_view t = args[i].text;
    if (t == "--") {
      if (i + 1 < args.size() && script == nullptr && !has_code) script = &args[i + 1];
      break;
    }
    if (awk) {
      if (t == "-f" && i + 1 < args.size()) {
        has_code = true;
        if (!RunWrittenFile(args[i + 1].text, true, Language::kAwk, args[i + 1], ctx)) {
          // a program file on disk
        }
        ++i;
      } else if ((t == "-F" || t == "-v") && i + 1 < args.size()) {
        ++i;
      } else if (!args[i].option() && !has_code) {
        has_code = true;
        ScanInlineCode(name, args[i], ctx);
      }
      continue;
    }
    bool code_flag = t == flag || t == "--eval" ||
                     (language == Language::kNode && (t == "-p" || t == "--print")) ||
                     (t.size() > 2 && t[0] == '-' && t[1] != '-' && t.back() == flag[1]);
    if (code_flag && i + 1 < args.size()) {
      has_code = true;
      ScanInlineCode(name, args[++i], ctx);
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
      RunWrittenFile(script->text, true, language, *script, ctx);
      return;
    }
    if (script->text != "-") return;
  }
  if (has_code) return;
  // python3 - <<EOF ... EOF: with no script named (or "-"), the code is the
  // heredoc or here-string on standard input.
  const shell::SimpleCommand& command = *ctx.command;
  // curl ... | python3: downloaded code runs, as with curl ... | sh.
  if (InDownloadPipeline(command)) {
    Danger(DangerousMatch{std::string(kPipeToShell),
                          "a download is piped into " + std::string(name)});
  }
  if (listed_) return;
  std::optional<std::string> text = StdinText(ctx);
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
  ScanInlineCode(name, code, ctx);
}

void Walker::ScanInlineCode(std::string_view name, const Arg& code, const Ctx& ctx) {
  const Language language = LanguageOf(name);
  if (language == Language::kTcl) {
    TclScript(code.text, code, ctx);
    return;
  }
  if (!code.literal()) return;  // code only known at run time: not shell code we can read
  if (!Charge(code.text.size())) return;
  CodeReport report = AnalyzeInterpreterCode(language, code.text);
  // print("aws"): code that starts no program names listed words freely.
  if (!report.runs_programs) return;
  ListedInStrings(name, code, report.strings);
  if (listed_) return;
  for (const std::string& command : report.commands) {
    ParseText(command, code.raw_begin, code.raw_end, ctx);
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
    if (!words.empty()) Resolve(words, ctx);
  }
  if (report.dynamic) {
    Undetermined("the " + std::string(name) +
                     " code starts a program whose name is only known when it runs (" +
                     report.why + ")",
                 &code);
  }
}

void Walker::ListedInStrings(std::string_view name, const Arg& code,
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
  for (std::size_t a = 0; a < tokens.size() && !listed_; ++a) {
    if (!tokens[a].starts_string) continue;
    const std::vector<std::size_t>* entries = list_.ForCommand(shell::Basename(tokens[a].text));
    if (entries == nullptr) continue;
    for (std::size_t index : *entries) {
      const DenyEntry& entry = list_.entry(index);
      std::size_t next = 1;
      // The entry's other words follow within a few strings' words.
      std::size_t stop = std::min(tokens.size(), a + 64);
      for (std::size_t b = a + 1; b < stop && next < entry.words.size(); ++b) {
        if (WordMatches(entry.words[next], tokens[b].text)) ++next;
      }
      if (next < entry.words.size()) continue;
      Arg word = code;
      word.text = tokens[a].text;
      Listed(entry, std::span<const Arg>(&word, 1), {});
      listed_reason_ = "`" + entry.line + "` is on the deny list and the " + std::string(name) +
                       " code given inline runs it";
      return;
    }
  }
}

}  // namespace corral::policy
