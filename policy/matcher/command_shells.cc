// Shells given code or standard input, eval, source, echo/printf feeding a
// shell, at, and every generic wrapper from wrappers.cc.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/dangerous.h"
#include "policy/matcher/name_hash.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {

namespace {

bool IsStdinPath(std::string_view path) {
  return path == "/dev/stdin" || path == "/dev/fd/0" || path == "/proc/self/fd/0";
}

}  // namespace

namespace {
bool StartsShellWithoutCommand(std::string_view name, std::span<const Arg> args);
}  // namespace

void RunWrapper(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  std::size_t first = 1;
  const WrapperSpec* spec = FindWrapper(name, args, &first);
  if (spec == nullptr) return;
  WrapperPlan plan = PlanWrapper(*spec, args, first);
  for (const auto& [index, offset] : plan.shell_code) {
    walk.ParseCodeArg(name, args[index], offset, ctx);
  }
  CommandCtx inner = ctx;
  inner.package = (spec->mode & kPackageName) != 0;
  for (std::size_t start : plan.starts) {
    if (spec->mode & kJoinShell) {
      walk.ParseJoined(args.subspan(start), ctx);
    } else {
      walk.Resolve(args.subspan(start), inner);
    }
  }
  if (ctx.appended && plan.starts.empty() && plan.shell_code.empty() &&
      !(spec->mode & kNoCommand)) {
    walk.Undetermined("the command " + std::string(name) + " runs comes from its input", &args[0]);
  }
  // With no command, sudo -s / -i, su, runuser, doas -s and ssh start a shell
  // that reads standard input: a heredoc or a pipe feeds it commands.
  if (plan.starts.empty() && plan.shell_code.empty() && StartsShellWithoutCommand(name, args)) {
    StdinShell(walk, name, ctx);
  }
}

namespace {

bool StartsShellWithoutCommand(std::string_view name, std::span<const Arg> args) {
  if (name == "su" || name == "runuser" || name == "ssh") return true;
  if (name != "sudo" && name != "doas") return false;
  for (const Arg& arg : args.subspan(1)) {
    std::string_view t = arg.text;
    if (t == "--shell" || t == "--login") return true;
    if (t.size() > 1 && t[0] == '-' && t[1] != '-' && t.find_first_of("si") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

void StdinShell(Walk& walk, std::string_view name, const CommandCtx& ctx) {
  const shell::SimpleCommand& command = *ctx.command;
  bool fed = command.pipe_index > 0;
  for (const shell::Redirect& redirect : command.redirects) {
    using shell::RedirectOp;
    if (redirect.fd <= 0 && (redirect.op == RedirectOp::kIn || redirect.op == RedirectOp::kHeredoc ||
                             redirect.op == RedirectOp::kHereString ||
                             redirect.op == RedirectOp::kDupIn || redirect.op == RedirectOp::kInOut)) {
      fed = true;
    }
  }
  if (fed) ReadsStdin(walk, name, ctx);
}

void HandleShell(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  bool code = false;
  bool from_stdin = false;
  bool interactive = false;
  bool login = false;
  bool norc = false;
  bool noexec = false;  // -n, -o noexec: reads the commands, runs none
  const Arg* rcfile = nullptr;
  std::size_t i = 1;
  while (i < args.size()) {
    const Arg& arg = args[i];
    std::string_view t = arg.text;
    if (!arg.literal()) break;
    if (t == "--" || t == "-") {
      ++i;
      break;
    }
    if (t.starts_with("--")) {
      if ((t == "--rcfile" || t == "--init-file") && i + 1 < args.size()) rcfile = &args[i + 1];
      if (t == "--login") login = true;
      if (t == "--norc") norc = true;
      i += (t == "--rcfile" || t == "--init-file") ? 2 : 1;
      continue;
    }
    if (t.size() > 1 && (t[0] == '-' || t[0] == '+')) {
      std::size_t extra = 0;
      for (char c : t.substr(1)) {
        if (c == 'c') code = true;
        if (c == 's') from_stdin = true;
        if (c == 'i' && t[0] == '-') interactive = true;
        if (c == 'l' && t[0] == '-') login = true;
        if (c == 'n') noexec = t[0] == '-';
        if (c == 'o' || c == 'O') {
          ++extra;
          if (c == 'o' && i + extra < args.size() && args[i + extra].text == "noexec") noexec = t[0] == '-';
        }
      }
      i += 1 + extra;
      continue;
    }
    break;
  }
  // Startup files written earlier in the line run first.
  if (rcfile != nullptr) {
    walk.RunWrittenFile(rcfile->text, true, Language::kShell, *rcfile, ctx);
  } else if (interactive && !norc) {
    RunStartupFile(walk, ".bashrc", args[0], ctx);
  }
  if (login) {
    for (std::string_view file : {".bash_profile", ".bash_login", ".profile"}) {
      RunStartupFile(walk, file, args[0], ctx);
    }
  }
  // A shell that is not interactive ignores nothing of -n: `bash -n FILE`
  // and `bash -n -c CODE` check the syntax and run no command.
  if (noexec && !interactive) return;
  if (code) {
    walk.Danger(DangerousMatch{std::string(kShellString), std::string(name) + " -c runs a string as shell code"});
    if (i >= args.size()) {
      if (ctx.appended) {
        walk.Undetermined("the code " + std::string(name) + " -c runs comes from its input", &args[0]);
      }
      return;
    }
    // bash -c CODE NAME ARGS: ARGS are the code's $1, $2, ...
    Frame frame{ctx.appended ? Frame::Mode::kUnknown : Frame::Mode::kBound, {}};
    for (std::size_t k = i + 2; k < args.size(); ++k) {
      bool placeholder = !walk.line().active_replace.empty() &&
                         args[k].text.find(walk.line().active_replace) != std::string_view::npos;
      if (args[k].literal() && !placeholder) {
        frame.params.emplace_back(std::string(args[k].text));
      } else {
        frame.params.emplace_back(std::nullopt);
      }
    }
    walk.line().frames.push_back(std::move(frame));
    walk.ParseCodeArg(std::string(name) + " -c", args[i], 0, ctx);
    walk.line().frames.pop_back();
    return;
  }
  if (i < args.size() && !from_stdin) {
    const Arg& script = args[i];
    if (script.flags & shell::kProcessSubst) {
      walk.Undetermined(std::string(name) + " runs a script produced when the command runs (" +
                       walk.Quote(script) + ")",
                   &script);
      walk.CheckDownloadInto(script);
      return;
    }
    if (!(script.literal() && IsStdinPath(script.text))) {
      // A script file: known when it was written earlier in the line.
      if (script.literal()) walk.RunWrittenFile(script.text, true, Language::kShell, script, ctx);
      return;
    }
  }
  if (ctx.appended && !from_stdin) return;  // xargs bash: input words are script files
  ReadsStdin(walk, name, ctx);
}

void ReadsStdin(Walk& walk, std::string_view name, const CommandCtx& ctx) {
  const shell::SimpleCommand& command = *ctx.command;
  const shell::Redirect* input = StdinRedirect(command);
  const Arg who{name, 0, {}, 0, 0, 0, 0};
  Arg program = who;
  std::tie(program.begin, program.end) =
      command.origin->Map(command.words.empty() ? 0 : command.words.front().begin,
                          command.words.empty() ? 0 : command.words.back().end);
  if (input != nullptr && input->op == shell::RedirectOp::kHeredoc) {
    walk.ParseText(HeredocText(command, *input), input->body_begin, input->body_end, ctx);
    return;
  }
  if (input != nullptr && input->op == shell::RedirectOp::kHereString) {
    Arg word{input->target.text, input->target.flags, {}, input->target.begin, input->target.end,
             0, 0};
    std::tie(word.begin, word.end) = command.origin->Map(input->target.begin, input->target.end);
    walk.ParseCodeArg(std::string(name) + " <<<", word, 0, ctx);
    return;
  }
  if (input != nullptr) {
    if (input->op == shell::RedirectOp::kIn && input->target.literal()) {
      const WrittenFile* file = walk.line().files.Find(input->target.text, true);
      if (file != nullptr && file->kind == WrittenFile::Kind::kText) {
        walk.ParseText(file->content, input->target.begin, input->target.end, ctx);
        return;
      }
    }
    walk.Undetermined(std::string(name) + " reads its commands from a file or descriptor", &program);
    return;
  }
  if (command.pipe_index > 0) {
    walk.Undetermined(std::string(name) + " reads its commands from a pipe", &program);
    if (walk.line().InDownloadPipeline(command)) {
      walk.Danger(DangerousMatch{std::string(kPipeToShell), "a download is piped into " +
                                                           std::string(name)});
    }
    if (walk.line().echo && walk.line().echo->pipeline == command.pipeline_id && walk.line().echo->index + 1 == command.pipe_index) {
      EchoText echo = *walk.line().echo;
      walk.ParseText(echo.text, echo.raw_begin, echo.raw_end, ctx);
    }
    return;
  }
  walk.Undetermined(std::string(name) + " reads its commands from standard input", &program);
}

void RecordEcho(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  // echo 'aws s3 ls' | sh: the text the next command reads is known.
  (void)name;
  if (args.size() < 2) return;
  std::optional<std::string> text = walk.OutputOf(args, ctx);
  if (!text) return;
  walk.line().echo = EchoText{ctx.command->pipeline_id, ctx.command->pipe_index, std::move(*text),
               args[1].raw_begin, args.back().raw_end};
}

void HandleEval(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  if (args.size() < 2) return;
  walk.Danger(DangerousMatch{std::string(kShellString), "eval runs its arguments as shell code"});
  walk.ParseJoined(args.subspan(1), ctx);
}

void HandleSource(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  if (args.size() < 2) return;
  const Arg& file = args[1];
  if (file.flags & shell::kProcessSubst) {
    walk.Undetermined("source runs commands produced when the command runs (" + walk.Quote(file) + ")",
                 &file);
    walk.CheckDownloadInto(file);
    return;
  }
  if (file.literal() && IsStdinPath(file.text)) {
    ReadsStdin(walk, "source", ctx);
    return;
  }
  // A file written earlier in the line runs here; one on disk may set any
  // variable, so none is known after it.
  if (!file.literal() || !walk.RunWrittenFile(file.text, true, Language::kShell, file, ctx)) {
    walk.line().vars.MarkAllUnknown();
  }
}

void RunStartupFile(Walk& walk, std::string_view file, const Arg& word, const CommandCtx& ctx) {
  const WrittenFile* written = walk.line().files.Find(file, false);
  if (written != nullptr && shell::Basename(written->path) == file) {
    walk.RunWrittenFile(written->path, true, Language::kShell, word, ctx);
  }
}

}  // namespace corral::policy
