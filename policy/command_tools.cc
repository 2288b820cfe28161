// Programs that run commands in their own ways: xargs, find -exec / fd -x,
// parallel, git (global options, aliases, code-running subcommands) and
// interpreters given inline code.
#include <algorithm>

#include "policy/command_util.h"
#include "policy/command_walker.h"
#include "policy/dangerous.h"
#include "policy/wrappers.h"

namespace corral::policy {

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

void Walker::HandleGit(std::span<const Arg> args, const Ctx& ctx) {
  std::vector<std::size_t> configs;
  std::size_t sub = SkipGitGlobalOptions(args, &configs);
  for (std::size_t index : configs) {
    std::string_view t = args[index].text;
    std::size_t eq = t.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = t.substr(0, eq);
    if (key.starts_with("alias.")) {
      HandleGitAlias(args[index], t.substr(eq + 1), ctx);
    } else if (key.ends_with("ommand") || key.ends_with("ditor") || key.ends_with("ager") ||
               key.ends_with("extconv") || key.ends_with(".clean") || key.ends_with(".smudge") ||
               key.ends_with(".process") || key.ends_with("rogram") || key.ends_with("elper") ||
               key.ends_with("skpass") || key.ends_with("smonitor")) {
      std::size_t offset = eq + 1 + (eq + 1 < t.size() && t[eq + 1] == '!' ? 1 : 0);
      ParseCodeArg("git -c", args[index], offset, ctx);
    }
  }
  std::vector<Arg> normalized;
  normalized.reserve(args.size());
  normalized.push_back(args[0]);
  for (std::size_t k = sub; k < args.size(); ++k) normalized.push_back(args[k]);
  bool push = normalized.size() > 1 && normalized[1].text == "push";
  if (push) {
    // git -c remote.origin.push=+main:main push forces through its config:
    // the refspec counts as if it were written on the command line.
    for (std::size_t index : configs) {
      std::string_view t = args[index].text;
      std::size_t eq = t.find('=');
      if (eq == std::string_view::npos) continue;
      std::string_view key = t.substr(0, eq);
      std::string_view value = t.substr(eq + 1);
      if (!key.starts_with("remote.")) continue;
      Arg word = args[index];
      word.flags &= ~shell::kGlob;  // refs/heads/* names refs, not files
      if (key.ends_with(".push")) {
        word.text = value;
      } else if (key.ends_with(".mirror") && value != "false" && value != "no" &&
                 value != "off" && value != "0") {
        word.text = "--mirror";
      } else {
        continue;
      }
      normalized.push_back(word);
    }
  }
  CheckList("git", normalized, push);
  Danger(CheckDangerousCommand("git", normalized));
  if (normalized.size() < 2) return;
  std::string_view subcommand = normalized[1].text;
  std::span<const Arg> rest = std::span<const Arg>(normalized).subspan(2);
  if (subcommand == "config") {
    for (std::size_t k = 0; k + 1 < rest.size(); ++k) {
      if (rest[k].text.starts_with("alias.")) HandleGitAlias(rest[k + 1], rest[k + 1].text, ctx);
    }
  } else if (subcommand == "bisect" && !rest.empty() && rest[0].text == "run") {
    Resolve(rest.subspan(1), ctx);
  } else if (subcommand == "submodule" || subcommand == "rebase" ||
             subcommand == "filter-branch") {
    // submodule foreach CODE, rebase -x CODE / --exec CODE, filter-branch --*-filter CODE
    for (std::size_t k = 0; k + 1 < rest.size(); ++k) {
      std::string_view t = rest[k].text;
      if (t == "foreach" || t == "-x" || t == "--exec" ||
          (t.starts_with("--") && t.ends_with("-filter"))) {
        std::size_t code = k + 1;
        while (code < rest.size() && rest[code].option() && t == "foreach") ++code;
        if (code < rest.size()) ParseCodeArg("git", rest[code], 0, ctx);
      }
    }
  }
}

void Walker::HandleGitAlias(const Arg& value_word, std::string_view value, const Ctx& ctx) {
  // A git alias is shell code after '!', git words otherwise; either runs
  // when the alias is used, so its body is checked where it is defined.
  if (!value_word.literal()) {
    Undetermined("the git alias " + Quote(value_word) + " is only known when it runs",
                 &value_word);
    return;
  }
  if (!value.empty() && value[0] == '!') {
    std::size_t offset = static_cast<std::size_t>(value.data() - value_word.text.data()) + 1;
    ParseCodeArg("a git alias", value_word, offset, ctx);
    return;
  }
  std::vector<Arg> words;
  Arg git = value_word;
  git.text = "git";
  git.flags = 0;
  words.push_back(git);
  for (std::string& piece : SplitEnvString(value)) {
    ctx.storage->push_front(std::move(piece));
    Arg word = value_word;
    word.text = ctx.storage->front();
    word.flags = 0;
    words.push_back(word);
  }
  if (words.size() > 1) Resolve(words, ctx);
}

void Walker::HandleInlineCode(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
  // python -c 'subprocess.run(["aws", "s3", "ls"])': a listed command named
  // in inline code, with its words in order, counts as listed.
  std::string_view flag = InlineCodeFlag(name);
  const bool awk = name == "awk" || name == "gawk";
  for (std::size_t i = 1; i < args.size() && !listed_; ++i) {
    std::string_view t = args[i].text;
    const Arg* code = nullptr;
    if (awk) {
      if (!args[i].option()) code = &args[i];
    } else if (i + 1 < args.size() &&
               (t == flag || t == "--eval" ||
                (t.size() > 2 && t[0] == '-' && t[1] != '-' && t.back() == flag[1]))) {
      code = &args[++i];
    }
    if (code != nullptr) ScanInlineCode(name, *code);
  }
  // python3 - <<EOF ... EOF: with no script named (or "-"), the code is the
  // heredoc or here-string on standard input.
  auto operand = std::find_if(args.begin() + 1, args.end(), [](const Arg& a) {
    return !a.option() || a.text == "-";
  });
  if (awk || (operand != args.end() && operand->text != "-")) return;
  const shell::SimpleCommand& command = *ctx.command;
  // curl ... | python3: downloaded code runs, as with curl ... | sh.
  if (InDownloadPipeline(command)) {
    Danger(DangerousMatch{std::string(kPipeToShell),
                          "a download is piped into " + std::string(name)});
  }
  const shell::Redirect* input = StdinRedirect(command);
  if (listed_ || input == nullptr) return;
  Arg code;
  if (input->op == shell::RedirectOp::kHeredoc) {
    code.text = command.source.substr(input->body_begin, input->body_end - input->body_begin);
    std::tie(code.begin, code.end) = command.origin->Map(input->body_begin, input->body_end);
  } else if (input->op == shell::RedirectOp::kHereString) {
    code.text = input->target.text;
    std::tie(code.begin, code.end) = command.origin->Map(input->target.begin, input->target.end);
  } else {
    return;
  }
  ScanInlineCode(name, code);
}

void Walker::ScanInlineCode(std::string_view name, const Arg& code) {
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
  std::string_view text = code.text;
  for (std::size_t k = 0; k < text.size() && tokens.size() < 4096;) {
    char quote = text[k];
    if (quote != '"' && quote != '\'' && quote != '`') {
      ++k;
      continue;
    }
    std::size_t close = text.find(quote, k + 1);
    if (close == std::string_view::npos) close = text.size();
    std::string_view body = text.substr(k + 1, close - k - 1);
    bool first = true;
    for (std::size_t j = 0; j < body.size();) {
      while (j < body.size() && (body[j] == ' ' || body[j] == '\t')) ++j;
      std::size_t start = j;
      while (j < body.size() && token_char(body[j])) ++j;
      if (j > start) {
        tokens.push_back({body.substr(start, j - start), first});
      } else if (j < body.size()) {
        ++j;
      }
      first = false;
    }
    k = close + 1;
  }
  for (std::size_t a = 0; a < tokens.size() && !listed_; ++a) {
    if (!tokens[a].starts_string) continue;
    const std::vector<std::size_t>* entries = list_.ForCommand(shell::Basename(tokens[a].text));
    if (entries == nullptr) continue;
    for (std::size_t index : *entries) {
      const DenyEntry& entry = list_.entry(index);
      std::size_t next = 1;
      for (std::size_t b = a + 1; b < tokens.size() && next < entry.words.size(); ++b) {
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
