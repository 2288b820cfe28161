// Programs whose options name a program or shell code to run: make, npm,
// tar, zip, socat, cmake -E; and the shell builtins that run or re-run
// text (history, fc, mapfile -C, compgen -C) or write variables the matcher
// was keeping (read, getopts, set, shift).
#include <nlohmann/json.hpp>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/tool_scripts.h"

namespace corral::policy {
namespace {

// `--name=value` or `--name value` where `name` may be abbreviated as GNU
// getopt allows; returns the index of the value's word and its offset.
bool LongValue(std::span<const Arg> args, std::size_t i, std::string_view full,
               std::size_t shortest, std::size_t* index, std::size_t* offset) {
  std::string_view t = args[i].text;
  std::size_t eq = t.find('=');
  std::string_view name = t.substr(0, eq);
  if (name.size() < shortest || !full.starts_with(name)) return false;
  if (eq != std::string_view::npos) {
    *index = i;
    *offset = eq + 1;
    return true;
  }
  if (i + 1 >= args.size()) return false;
  *index = i + 1;
  *offset = 0;
  return true;
}

}  // namespace

void HandleMake(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  std::vector<std::pair<const Arg*, std::string_view>> makefiles;  // word, path
  std::string dir;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const Arg& arg = args[i];
    std::string_view t = arg.text;
    std::size_t index = 0;
    std::size_t offset = 0;
    if (LongValue(args, i, "--eval", 4, &index, &offset)) {
      walk.ParseCodeArg("make --eval", args[index], 0, ctx);  // a variable in it: unknown text
      if (args[index].literal()) MakeText(walk, args[index].text.substr(offset), args[index], ctx);
      i = index;
      continue;
    }
    if (LongValue(args, i, "--file", 4, &index, &offset) ||
        LongValue(args, i, "--makefile", 4, &index, &offset)) {
      makefiles.emplace_back(&args[index], args[index].text.substr(offset));
      i = index;
      continue;
    }
    if (LongValue(args, i, "--directory", 5, &index, &offset)) {
      dir = args[index].text.substr(offset);
      i = index;
      continue;
    }
    if (t.size() > 1 && t[0] == '-' && t[1] != '-') {
      // A bundle: the first letter taking an argument takes the rest or
      // the next word.
      for (std::size_t k = 1; k < t.size(); ++k) {
        char c = t[k];
        if (std::string_view("fCEjloWIO").find(c) == std::string_view::npos) continue;
        bool attached = k + 1 < t.size();
        if (!attached && i + 1 >= args.size()) break;
        const Arg& value = attached ? arg : args[++i];
        std::string_view text = attached ? t.substr(k + 1) : value.text;
        if (c == 'f') makefiles.emplace_back(&value, text);
        if (c == 'C') dir = text;
        if (c == 'E') {
          if (value.literal()) {
            MakeText(walk, text, value, ctx);
          } else {
            walk.Undetermined("make -E evaluates text only known when it runs", &value);
          }
        }
        break;
      }
      continue;
    }
    std::size_t eq = t.find('=');
    if (eq != std::string_view::npos && !arg.option()) {
      std::string_view name = t.substr(0, eq);
      if (name == "SHELL" || name == "MAKESHELL" || name == "SHELL:" || name == "SHELL+") {
        walk.ProgramValue(arg, t.substr(eq + 1), ctx);
      }
    }
  }
  auto read_file = [&](const Arg& word, std::string_view path) {
    if (word.flags & shell::kProcessSubst) {
      walk.Undetermined("make reads a makefile produced when the command runs (" + walk.Quote(word) + ")",
                   &word);
      return;
    }
    if (path == "-" || path == "/dev/stdin" || path == "/dev/fd/0") {
      std::optional<std::string> text = walk.StdinText(ctx);
      const shell::Redirect* input = StdinRedirect(*ctx.command);
      if (!text && input != nullptr && input->op == shell::RedirectOp::kIn &&
          input->target.literal()) {
        return;  // make -f - < FILE: a makefile on disk, like make -f FILE
      }
      if (!text) {
        walk.Undetermined("make reads its makefile from standard input", &word);
        return;
      }
      ctx.storage->push_front(std::move(*text));
      MakeText(walk, ctx.storage->front(), word, ctx);
      return;
    }
    if (!word.literal()) return;
    const WrittenFile* file = walk.line().files.Find(path, true);
    if (file == nullptr || file->kind == WrittenFile::Kind::kOnDisk) return;
    if (file->kind != WrittenFile::Kind::kText) {
      walk.Undetermined("make reads " + walk.Quote(word) +
                       ", written earlier in the line with content only known when it runs",
                   &word);
      return;
    }
    MakeText(walk, file->content, word, ctx);
  };
  if (!makefiles.empty()) {
    for (const auto& [word, path] : makefiles) read_file(*word, path);
    return;
  }
  std::string prefix = dir.empty() ? "" : dir + "/";
  for (std::string_view name : {"GNUmakefile", "makefile", "Makefile"}) {
    std::string path = prefix + std::string(name);
    const WrittenFile* file = walk.line().files.Find(path, false);
    if (file != nullptr && shell::Basename(file->path) == name) {
      read_file(args[0], path);
      return;
    }
  }
}

void MakeText(Walk& walk, std::string_view text, const Arg& word, const CommandCtx& ctx) {
  if (!walk.Charge(text.size())) return;
  ScriptCommands commands = MakefileCommands(text);
  for (const std::string& line : commands.shell) walk.ParseText(line, word.raw_begin, word.raw_end, ctx);
  for (const std::string& program : commands.programs) {
    if (program.find('$') != std::string::npos) {
      walk.Undetermined("the makefile's SHELL is only known when it runs", &word);
      continue;
    }
    walk.ProgramValue(word, program, ctx);
  }
  if (commands.unknown) walk.Undetermined(commands.why, &word);
}

void HandleNpm(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  std::vector<const Arg*> operands;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::size_t index = 0;
    std::size_t offset = 0;
    if (LongValue(args, i, "--script-shell", 14, &index, &offset)) {
      walk.ProgramValue(args[index], args[index].text.substr(offset), ctx);
      i = index;
      continue;
    }
    if (!args[i].option()) operands.push_back(&args[i]);
  }
  auto word = [&](std::size_t k) -> std::string_view {
    return k < operands.size() ? operands[k]->text : std::string_view();
  };
  std::string_view sub = word(0);
  if (sub == "pkg" && word(1) == "set") {
    // npm pkg set scripts.test=CODE: the script runs with npm test.
    for (std::size_t k = 2; k < operands.size(); ++k) {
      std::string_view t = operands[k]->text;
      std::size_t eq = t.find('=');
      if (t.starts_with("scripts") && eq != std::string_view::npos) {
        walk.ParseCodeArg(std::string(name) + " pkg set", *operands[k], eq + 1, ctx);
      }
    }
  } else if (sub == "set-script" && operands.size() >= 3) {
    walk.ParseCodeArg(std::string(name) + " set-script", *operands[2], 0, ctx);
  } else if (sub == "config" || sub == "set" || sub == "c") {
    std::size_t k = sub == "set" ? 1 : 2;
    if (k < operands.size()) {
      std::string_view key = operands[k]->text;
      if (key == "script-shell" && k + 1 < operands.size()) {
        walk.ProgramValue(*operands[k + 1], operands[k + 1]->text, ctx);
      } else if (key.starts_with("script-shell=")) {
        walk.ProgramValue(*operands[k], key.substr(13), ctx);
      }
    }
  }
  // Scripts from a package.json or .npmrc written earlier in the line.
  if (walk.line().files.empty()) return;
  if (const WrittenFile* manifest = walk.line().files.Find("package.json", false);
      manifest != nullptr && shell::Basename(manifest->path) == "package.json") {
    if (manifest->kind == WrittenFile::Kind::kText && walk.Charge(manifest->content.size())) {
      nlohmann::json json = nlohmann::json::parse(manifest->content, nullptr, false);
      if (json.is_discarded()) {
        walk.Undetermined("package.json written earlier in the line could not be read", &args[0]);
      } else if (json.is_object() && json.contains("scripts") && json["scripts"].is_object()) {
        for (const auto& [script, code] : json["scripts"].items()) {
          if (!code.is_string()) continue;
          ctx.storage->push_front(code.get<std::string>());
          walk.ParseText(ctx.storage->front(), args[0].raw_begin, args[0].raw_end, ctx);
        }
      }
    } else if (manifest->kind != WrittenFile::Kind::kOnDisk) {
      walk.Undetermined("package.json was written earlier in the line with content only known when "
                   "it runs",
                   &args[0]);
    }
  }
  if (const WrittenFile* rc = walk.line().files.Find(".npmrc", false);
      rc != nullptr && shell::Basename(rc->path) == ".npmrc" &&
      rc->kind == WrittenFile::Kind::kText) {
    for (const std::string& line : SplitLines(rc->content)) {
      std::size_t eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string key = line.substr(0, eq);
      while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
      if (key != "script-shell") continue;
      ctx.storage->push_front(line.substr(eq + 1));
      walk.ProgramValue(args[0], ctx.storage->front(), ctx);
    }
  }
}

void HandleTar(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  // Options whose value tar runs: through the shell, or as a program.
  static constexpr std::pair<std::string_view, bool> kLong[] = {
      {"--to-command", true},      {"--info-script", true},   {"--new-volume-script", true},
      {"--use-compress-program", true}, {"--rsh-command", false}, {"--rmt-command", false}};
  auto short_value = [&](char letter, const Arg& word, std::size_t offset) {
    if (letter == 'I' || letter == 'F') walk.ParseCodeArg("tar", word, offset, ctx);
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (i == 1 && !t.empty() && t[0] != '-') {
      // Old style (tar cIf PROG FILE): letters taking values take the next
      // words in order.
      std::size_t next = 2;
      for (char c : t) {
        if (std::string_view("fbCFgHIKLNTVX").find(c) == std::string_view::npos) continue;
        if (next < args.size()) short_value(c, args[next], 0);
        ++next;
      }
      continue;
    }
    if (t.starts_with("--")) {
      std::size_t index = 0;
      std::size_t offset = 0;
      for (const auto& [full, code] : kLong) {
        if (!LongValue(args, i, full, 6, &index, &offset)) continue;
        if (code) {
          walk.ParseCodeArg("tar " + std::string(full), args[index], offset, ctx);
        } else {
          walk.ProgramValue(args[index], args[index].text.substr(offset), ctx);
        }
        i = index;
        break;
      }
      if (LongValue(args, i, "--checkpoint-action", 14, &index, &offset)) {
        std::string_view value = args[index].text.substr(offset);
        if (value.starts_with("exec=")) {
          walk.ParseCodeArg("tar --checkpoint-action", args[index], offset + 5, ctx);
        }
        i = index;
      }
      continue;
    }
    if (t.size() > 1 && t[0] == '-') {
      for (std::size_t k = 1; k < t.size(); ++k) {
        if (std::string_view("fbCFgHIKLNTVX").find(t[k]) == std::string_view::npos) continue;
        if (k + 1 < t.size()) {
          short_value(t[k], args[i], k + 1);
        } else if (i + 1 < args.size()) {
          short_value(t[k], args[++i], 0);
        }
        break;
      }
    }
  }
}

void HandleZip(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  // zip -T -TT CMD / --unzip-command CMD: CMD tests the archive.
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    std::size_t index = 0;
    std::size_t offset = 0;
    if (t == "-TT" && i + 1 < args.size()) {
      walk.ParseCodeArg("zip -TT", args[++i], 0, ctx);
    } else if (t.starts_with("-TT=")) {
      walk.ParseCodeArg("zip -TT", args[i], 4, ctx);
    } else if (LongValue(args, i, "--unzip-command", 5, &index, &offset)) {
      walk.ParseCodeArg("zip --unzip-command", args[index], offset, ctx);
      i = index;
    }
  }
}

void HandleSocat(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  // Addresses EXEC:PROGRAM ARGS and SYSTEM:SHELL-CODE (two per word with !!).
  for (const Arg& arg : args.subspan(1)) {
    if (arg.option() || arg.text == "-") continue;
    std::string upper(arg.text.substr(0, 8));
    for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    if (!arg.literal()) {
      if (upper.starts_with("EXEC") || upper.starts_with("SYSTEM") ||
          arg.text.front() == shell::kExpansionMark) {
        walk.Undetermined("the socat address " + walk.Quote(arg) + " is only known when it runs", &arg);
      }
      continue;
    }
    std::string_view text = arg.text;
    for (std::size_t start = 0; start < text.size();) {
      std::size_t split = text.find("!!", start);
      std::string_view address =
          text.substr(start, split == std::string_view::npos ? std::string_view::npos : split - start);
      start = split == std::string_view::npos ? text.size() : split + 2;
      std::size_t colon = address.find(':');
      if (colon == std::string_view::npos) continue;
      std::string type(address.substr(0, colon));
      for (char& c : type) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
      std::string_view value = address.substr(colon + 1);
      value = value.substr(0, value.find(','));  // ,OPTION=... follow
      if (type == "EXEC") walk.ResolveWords(value, arg, ctx);
      if (type == "SYSTEM") walk.ParseText(value, arg.raw_begin, arg.raw_end, ctx);
    }
  }
}

void HandleCmake(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  // cmake -E env [NAME=VALUE]... CMD, cmake -E time CMD, cmake -E chdir DIR CMD.
  if (args.size() < 4 || args[1].text != "-E") return;
  std::string_view tool = args[2].text;
  std::size_t i = 3;
  if (tool == "time") {
    walk.Resolve(args.subspan(i), ctx);
  } else if (tool == "chdir") {
    walk.Resolve(args.subspan(i + 1 < args.size() ? i + 1 : args.size()), ctx);
  } else if (tool == "env") {
    while (i < args.size()) {
      std::string_view t = args[i].text;
      if (t == "--") {
        ++i;
        break;
      }
      if (t.starts_with("--unset=") || t.starts_with("--modify") || t == "--unset") {
        i += t == "--unset" ? 2 : 1;
        continue;
      }
      if (!args[i].option() && t.find('=') != std::string_view::npos) {
        walk.RecordAssignment(args[i], ctx, false);
        ++i;
        continue;
      }
      break;
    }
    if (i < args.size()) walk.Resolve(args.subspan(i), ctx);
  }
}

void HandleHistory(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  if (name == "history") {
    for (std::size_t i = 1; i < args.size(); ++i) {
      std::string_view t = args[i].text;
      if (t == "-s") {
        // The words become a history entry that fc -s or !! runs again.
        walk.ParseJoined(args.subspan(i + 1), ctx);
        std::string entry;
        for (const Arg& arg : args.subspan(i + 1)) {
          if (!entry.empty()) entry += ' ';
          entry.append(arg.text);
        }
        if (walk.line().history.size() < 16) walk.line().history.push_back(entry);
        return;
      }
      if (t == "-r" || t == "-n") {
        const Arg* file = i + 1 < args.size() ? &args[i + 1] : nullptr;
        const WrittenFile* written = file && file->literal() ? walk.line().files.Find(file->text, true) : nullptr;
        if (written != nullptr && written->kind == WrittenFile::Kind::kText) {
          walk.ParseText(written->content, file->raw_begin, file->raw_end, ctx);
          for (const std::string& line : SplitLines(written->content)) {
            if (walk.line().history.size() < 16) walk.line().history.push_back(line);
          }
        } else {
          walk.line().history_unknown = true;
        }
        return;
      }
    }
    return;
  }
  // fc [-e EDITOR] [-s] [OLD=NEW] [FIRST]: runs history entries again,
  // edited by EDITOR or with OLD replaced by NEW.
  bool list = false;
  const Arg* editor = nullptr;
  std::vector<std::pair<std::string_view, const Arg*>> replacements;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "-e" && i + 1 < args.size()) {
      editor = &args[++i];
    } else if (t.size() > 1 && t[0] == '-' && t.find('l') != std::string_view::npos) {
      list = true;
    } else if (!args[i].option() && t.find('=') != std::string_view::npos) {
      replacements.emplace_back(t.substr(0, t.find('=')), &args[i]);
    }
  }
  if (list) return;
  if (editor != nullptr && editor->text != "-") walk.ProgramValue(*editor, editor->text, ctx);
  for (const auto& [old, word] : replacements) {
    walk.ParseCodeArg("fc -s", *word, old.size() + 1, ctx);
    std::string_view replacement = word->text.substr(old.size() + 1);
    for (const std::string& entry : std::vector<std::string>(walk.line().history)) {
      std::size_t at = old.empty() ? std::string::npos : entry.find(old);
      if (at == std::string::npos) continue;
      std::string changed = entry;
      changed.replace(at, old.size(), replacement);
      ctx.storage->push_front(std::move(changed));
      walk.ParseText(ctx.storage->front(), word->raw_begin, word->raw_end, ctx);
    }
  }
  if (walk.line().history_unknown || walk.line().history_on) {
    walk.Undetermined("fc runs commands again from a history the line does not show", &args[0]);
  }
}

void HandleNameWriters(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  // Builtins that write the variables they are given, or run code.
  std::vector<Arg> names;
  auto takes = [&](std::string_view letters, std::string_view t) {
    return t.size() > 1 && t[0] == '-' && letters.find(t.back()) != std::string_view::npos;
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "--") {
      for (++i; i < args.size(); ++i) names.push_back(args[i]);
      break;
    }
    if (name == "read") {
      if (takes("a", t) && i + 1 < args.size()) {
        names.push_back(args[++i]);
      } else if (takes("dinNptu", t)) {
        ++i;
      } else if (!args[i].option()) {
        names.push_back(args[i]);
      }
    } else if (name == "mapfile" || name == "readarray") {
      if (t == "-C" && i + 1 < args.size()) {
        walk.ParseCodeArg(std::string(name) + " -C", args[++i], 0, ctx);  // run every -c lines
      } else if (takes("dnOsuc", t)) {
        ++i;
      } else if (!args[i].option()) {
        names.push_back(args[i]);
      }
    } else if (name == "compgen" || name == "complete") {
      if (t == "-C" && i + 1 < args.size()) {
        walk.ParseCodeArg(std::string(name) + " -C", args[++i], 0, ctx);
      } else if (t == "-F" && i + 1 < args.size()) {
        walk.Resolve(args.subspan(++i, 1), ctx);
      } else if (t == "-W" && i + 1 < args.size()) {
        ++i;
        walk.ExpandPrompt(args[i].text, args[i].begin, args[i].end);  // expanded when completing
      } else if (takes("oAGPSX", t)) {
        ++i;
      }
    } else if (name == "getopts") {
      if (i == 2) names.push_back(args[i]);
    } else if (name == "printf") {
      if (t == "-v" && i + 1 < args.size()) names.push_back(args[++i]);
      break;
    }
  }
  if (name == "mapfile" || name == "readarray") return;  // MAPFILE: arrays are never known
  walk.MarkWritten(names);
}

void HandleSet(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  bool positional = false;
  std::size_t at = args.size();
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    bool bundle = t.size() > 1 && (t[0] == '-' || t[0] == '+') && t != "--";
    if (bundle && t.back() == 'o') {
      // -o NAME (also at the end of a bundle: set -euo pipefail).
      if (i + 1 < args.size()) {
        std::string_view option = args[++i].text;
        if (option == "histexpand" && t[0] == '-') walk.line().history_expansion = true;
        if (option == "history" && t[0] == '-') walk.line().history_on = true;
      }
      if (t.find('H') != std::string_view::npos && t[0] == '-') walk.line().history_expansion = true;
      continue;
    }
    if (t == "--" || (!t.empty() && t[0] != '-' && t[0] != '+') || !args[i].literal()) {
      positional = true;
      at = i;
      break;
    }
    if (t.size() > 1 && t[0] == '-' && t.find('H') != std::string_view::npos) {
      walk.line().history_expansion = true;
    }
  }
  if (!positional) return;
  if (!walk.line().frames.empty()) {
    walk.line().frames.back().mode = Frame::Mode::kUnknown;
    return;
  }
  // The line's own parameters: known when every word is literal and this
  // set runs at the top level; otherwise no use of them anywhere is.
  std::size_t first = at + (args[at].text == "--" ? 1 : 0);
  bool literal = std::all_of(args.begin() + static_cast<std::ptrdiff_t>(first), args.end(),
                             [](const Arg& arg) { return arg.literal(); });
  if (literal && ctx.command->top_level && !ctx.command->in_function && !walk.line().in_definition) {
    walk.line().top_positional.known = true;
    walk.line().top_positional.params.clear();
    for (std::size_t i = first; i < args.size(); ++i) walk.line().top_positional.params.emplace_back(args[i].text);
    walk.line().top_positional.pipeline = ctx.command->pipeline_id;
  } else {
    walk.line().top_positional.known = false;
    walk.line().positional_rewritten = true;
  }
}

}  // namespace corral::policy
