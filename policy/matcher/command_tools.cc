// Programs that run commands in their own ways: env, xargs, find -exec /
// fd -x, parallel, ssh/scp/sftp/rsync option code.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/dangerous.h"
#include "policy/matcher/interpreter_code.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {

void HandleEnv(Walk& walk, std::span<const Arg> original, const CommandCtx& ctx) {
  // The words are copied only when env -S splits one: env env env ... stays
  // linear.
  std::span<const Arg> args = original;
  std::vector<Arg> owned;
  std::size_t i = 1;
  auto split_into = [&](std::size_t at, std::size_t remove, const Arg& source,
                        std::string_view text) {
    if (owned.empty()) owned.assign(args.begin(), args.end());
    std::vector<Arg> pieces = walk.WordsOf(text, source, ctx);
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
        walk.Undetermined("the command env -S splits is only known when it runs", split_word);
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
      walk.RecordAssignment(arg, ctx, false);
      ++i;
      continue;
    }
    break;
  }
  if (i < args.size()) {
    walk.Resolve(args.subspan(i), ctx);
  } else if (ctx.appended) {
    walk.Undetermined("the command env runs comes from its input", &args[0]);
  }
}

void HandleRemoteShell(Walk& walk, std::string_view name, std::span<const Arg> args,
                               const CommandCtx& ctx) {
  // Option values that run locally: ssh -o ProxyCommand= (any case), scp /
  // sftp -S PROGRAM, sftp -D SERVER, rsync -e / --rsh / --rsync-path.
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (name != "ssh" && (t == "-S" || (name == "sftp" && t == "-D")) && i + 1 < args.size()) {
      ++i;
      walk.ProgramValue(args[i], args[i].text, ctx);
      continue;
    }
    if (name == "rsync") {
      if ((t == "-e" || t == "--rsh" || t == "--rsync-path") && i + 1 < args.size()) {
        walk.ParseCodeArg(name, args[++i], 0, ctx);
      } else if (t.starts_with("--rsh=") || t.starts_with("--rsync-path=")) {
        walk.ParseCodeArg(name, args[i], t.find('=') + 1, ctx);
      } else if (t.starts_with("-e") && t.size() > 2 && !t.starts_with("--")) {
        walk.ParseCodeArg(name, args[i], 2, ctx);
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
        walk.ParseCodeArg(name, *value, at, ctx);
      }
    }
  }
  if (name == "ssh") RunWrapper(walk, name, args, ctx);
}

void HandleXargs(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
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
  CommandCtx inner = ctx;
  inner.appended = replace.empty();
  std::string_view saved = walk.line().active_replace;
  if (!replace.empty()) walk.line().active_replace = replace;
  walk.Resolve(args.subspan(i), inner);
  walk.line().active_replace = saved;
}

void HandleFind(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx, std::string_view tool) {
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
    CommandCtx inner = ctx;
    inner.appended = false;
    std::string_view saved = walk.line().active_replace;
    walk.line().active_replace = fd ? "{" : "{}";
    walk.Resolve(args.subspan(i + 1, j - i - 1), inner);
    walk.line().active_replace = saved;
    i = j;
  }
}

void HandleParallel(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
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
      if (!inputs[k].text.starts_with(":::")) walk.ParseCodeArg("parallel", inputs[k], 0, ctx);
    }
    if (marker >= args.size()) {
      walk.Undetermined("the commands parallel runs come from its input", &args[0]);
    }
    return;
  }
  std::string_view saved = walk.line().active_replace;
  walk.line().active_replace = "{";
  walk.ParseJoined(command, ctx);
  walk.line().active_replace = saved;
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
    walk.ParseText(line, command.front().raw_begin, command.back().raw_end, ctx);
  }
}

}  // namespace corral::policy
