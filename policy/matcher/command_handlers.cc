// What particular programs run: shells given code or standard input, eval,
// source, echo/printf feeding a shell, at, and every generic wrapper from
// wrappers.cc; the table of which handler reads which program.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_walker.h"
#include "policy/matcher/dangerous.h"
#include "policy/matcher/name_hash.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {

// Interpreters and the flag that gives them inline code.
std::string_view InlineCodeFlag(std::string_view name) {
  if (name.starts_with("python") || name == "pypy" || name == "pypy3") return "-c";
  if (OneOf(name, {"perl", "ruby", "node", "nodejs", "lua", "luajit", "Rscript", "osascript",
                   "bun", "deno", "tclsh", "awk", "gawk"})) {
    return "-e";
  }
  if (name == "php") return "-r";
  return {};
}

namespace {

// What a program does with its arguments, looked up once per command.
enum class Kind : std::uint8_t {
  kOther, kShell, kEval, kSource, kEnv, kXargs, kFind, kFd, kParallel, kEcho, kDownloader,
  kDeclare, kBuiltin, kCommand, kExec, kAlias, kTrap, kInline, kHash, kAt, kRemoteShell,
  kMake, kNpm, kTar, kZip, kSed, kM4, kVim, kSocat, kCmake, kTcl, kHistory, kNames, kSet,
  kShift, kLocate, kWrapper,
};

Kind KindOf(std::string_view name) {
  static const auto* kinds = [] {
    auto* map = new NameTable<Kind>();
    for (std::string_view n : {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh",
                               "rbash", "lksh", "oksh", "loksh", "pdksh", "ksh93", "fish", "csh",
                               "tcsh", "hush", "elvish", "nu", "xonsh", "bash5", "sh5"}) {
      map->Add(n, Kind::kShell);
    }
    for (std::string_view n : {"curl", "wget", "fetch", "http", "https", "aria2c", "lwp-request",
                               "GET", "xh", "curlie", "wget2"}) {
      map->Add(n, Kind::kDownloader);
    }
    for (std::string_view n : {"export", "declare", "typeset", "local", "readonly"}) {
      map->Add(n, Kind::kDeclare);
    }
    for (std::string_view n : {"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby",
                               "node", "nodejs", "lua", "luajit", "Rscript", "osascript", "bun",
                               "deno", "awk", "gawk", "mawk", "nawk", "php"}) {
      map->Add(n, Kind::kInline);
    }
    const std::pair<std::string_view, Kind> runners[] = {
        {"make", Kind::kMake},     {"gmake", Kind::kMake},      {"npm", Kind::kNpm},
        {"pnpm", Kind::kNpm},      {"yarn", Kind::kNpm},        {"tar", Kind::kTar},
        {"gtar", Kind::kTar},      {"bsdtar", Kind::kTar},      {"zip", Kind::kZip},
        {"sed", Kind::kSed},       {"gsed", Kind::kSed},        {"m4", Kind::kM4},
        {"gm4", Kind::kM4},        {"vim", Kind::kVim},         {"vi", Kind::kVim},
        {"ex", Kind::kVim},        {"view", Kind::kVim},        {"nvim", Kind::kVim},
        {"gvim", Kind::kVim},      {"vimdiff", Kind::kVim},     {"rvim", Kind::kVim},
        {"rview", Kind::kVim},     {"evim", Kind::kVim},        {"socat", Kind::kSocat},
        {"cmake", Kind::kCmake},   {"expect", Kind::kTcl},      {"tclsh", Kind::kTcl},
        {"wish", Kind::kTcl},      {"jimsh", Kind::kTcl},       {"history", Kind::kHistory},
        {"fc", Kind::kHistory},    {"read", Kind::kNames},      {"mapfile", Kind::kNames},
        {"readarray", Kind::kNames}, {"getopts", Kind::kNames}, {"compgen", Kind::kNames},
        {"complete", Kind::kNames}, {"set", Kind::kSet},        {"shift", Kind::kShift},
        {"which", Kind::kLocate},  {"type", Kind::kLocate},     {"whereis", Kind::kLocate},
        {"readlink", Kind::kLocate}, {"realpath", Kind::kLocate}};
    for (const auto& [n, kind] : runners) map->Add(n, kind);
    const std::pair<std::string_view, Kind> single[] = {
        {"eval", Kind::kEval},         {"source", Kind::kSource},   {".", Kind::kSource},
        {"env", Kind::kEnv},           {"xargs", Kind::kXargs},     {"find", Kind::kFind},
        {"fd", Kind::kFd},             {"fdfind", Kind::kFd},       {"parallel", Kind::kParallel},
        {"sem", Kind::kParallel},      {"echo", Kind::kEcho},       {"printf", Kind::kEcho},
        {"builtin", Kind::kBuiltin},   {"command", Kind::kCommand}, {"exec", Kind::kExec},
        {"alias", Kind::kAlias},       {"trap", Kind::kTrap},       {"hash", Kind::kHash},
        {"at", Kind::kAt},             {"batch", Kind::kAt},        {"ssh", Kind::kRemoteShell},
        {"scp", Kind::kRemoteShell},   {"sftp", Kind::kRemoteShell}, {"rsync", Kind::kRemoteShell}};
    for (const auto& [n, kind] : single) map->Add(n, kind);
    // Last: a name with a handler above keeps it (npm, ssh, bun).
    for (std::string_view n : WrapperNames()) map->Add(n, Kind::kWrapper);
    return map;
  }();
  if (const Kind* kind = kinds->Find(name)) return *kind;
  if (name.starts_with("python")) return Kind::kInline;
  return Kind::kOther;
}

}  // namespace

bool IsShellName(std::string_view name) { return KindOf(name) == Kind::kShell; }

namespace {

bool IsStdinPath(std::string_view path) {
  return path == "/dev/stdin" || path == "/dev/fd/0" || path == "/proc/self/fd/0";
}

}  // namespace

std::vector<std::string> SplitEnvString(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(current));
      current.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'' || c == '"') {
      std::size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos) close = text.size();
      current.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '\\' && i + 1 < text.size()) {
      current += text[++i];
    } else {
      current += c;
    }
  }
  if (in_word) words.push_back(std::move(current));
  return words;
}

void Walker::Dispatch(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
  switch (KindOf(name)) {
    case Kind::kShell: return HandleShell(name, args, ctx);
    case Kind::kEval: return HandleEval(args, ctx);
    case Kind::kSource: return HandleSource(args, ctx);
    case Kind::kEnv: return HandleEnv(args, ctx);
    case Kind::kXargs: return HandleXargs(args, ctx);
    case Kind::kFind: return HandleFind(args, ctx, "");
    case Kind::kFd: return HandleFind(args, ctx, "fd");
    case Kind::kParallel: return HandleParallel(args, ctx);
    case Kind::kEcho:
      if (name == "printf") HandleNameWriters(name, args, ctx);  // printf -v NAME
      return RecordEcho(name, args, ctx);
    case Kind::kInline: return HandleInlineCode(name, args, ctx);
    case Kind::kDownloader:
      // Only recent downloads can feed a shell; keeping a few bounds the work.
      if (downloads_.size() >= 64) {
        downloads_.erase(downloads_.begin(), downloads_.begin() + 32);
        downloader_pipelines_.erase(downloader_pipelines_.begin(),
                                    downloader_pipelines_.begin() + 32);
      }
      downloader_pipelines_.push_back(ctx.command->pipeline_id);
      downloads_.emplace_back(args[0].begin, args.back().end);
      return;
    case Kind::kDeclare: {
      // declare -n / -i / -l / -u / -a ...: the value is not the text
      // assigned (a reference, a number, another case, an array).
      bool transforms = false;
      for (const Arg& arg : args.subspan(1)) {
        if (arg.option() && arg.text[0] == '-' &&
            arg.text.find_first_of("nilucaA") != std::string_view::npos) {
          transforms = true;
        }
      }
      for (const Arg& arg : args.subspan(1)) {
        if (arg.option()) continue;
        if (transforms) {
          std::size_t eq = arg.text.find('=');
          MarkWritten(std::span<const Arg>(&arg, 1));
          if (eq != std::string_view::npos) {
            Arg name = arg;
            name.text = arg.text.substr(0, eq);
            MarkWritten(std::span<const Arg>(&name, 1));
            Arg target = arg;
            target.text = arg.text.substr(eq + 1);  // declare -n r=x: writes through r reach x
            if (target.literal() && shell::IsName(target.text)) {
              MarkWritten(std::span<const Arg>(&target, 1));
            }
          }
        } else if (arg.flags & shell::kAssignment) {
          RecordAssignment(arg, ctx, name != "local");
        }
      }
      return;
    }
    case Kind::kBuiltin: return Resolve(args.subspan(1), ctx);
    case Kind::kCommand: {
      // command -v / -V only look the name up.
      std::size_t i = 1;
      for (; i < args.size() && args[i].option() && args[i].text != "--"; ++i) {
        if (args[i].text.find_first_of("vV") != std::string_view::npos) {
          RecordLocate(args);  // $(command -v aws): a listed program's path
          return;
        }
      }
      if (i < args.size() && args[i].text == "--") ++i;
      return Resolve(args.subspan(std::min(i, args.size())), ctx);
    }
    case Kind::kExec: {
      static constexpr WrapperSpec kExec = {"exec", "", "a", "cl", "", "", 0, "", 0, 0};
      WrapperPlan plan = PlanWrapper(kExec, args, 1);
      for (std::size_t start : plan.starts) Resolve(args.subspan(start), ctx);
      return;
    }
    case Kind::kAlias:
      for (const Arg& arg : args.subspan(1)) {
        std::size_t eq = arg.text.find('=');
        if (eq != std::string_view::npos) ParseCodeArg("alias", arg, eq + 1, ctx);
      }
      return;
    case Kind::kTrap: {
      std::size_t i = 1;
      while (i < args.size() && (args[i].text == "-p" || args[i].text == "-l")) ++i;
      if (i < args.size() && args[i].text == "--") ++i;
      if (i + 1 < args.size() && args[i].text != "-" && !args[i].text.empty()) {
        ParseCodeArg("trap", args[i], 0, ctx);
      }
      return;
    }
    case Kind::kHash:
      // hash -p PATH NAME makes NAME run PATH.
      for (std::size_t i = 1; i + 1 < args.size(); ++i) {
        if (args[i].text == "-p") Resolve(args.subspan(i + 1, 1), ctx);
      }
      return;
    case Kind::kMake: return HandleMake(args, ctx);
    case Kind::kNpm:
      HandleNpm(name, args, ctx);
      return RunWrapper(name, args, ctx);  // npm exec / npx ...
    case Kind::kTar: return HandleTar(args, ctx);
    case Kind::kZip: return HandleZip(args, ctx);
    case Kind::kSed: return HandleSed(args, ctx);
    case Kind::kM4: return HandleM4(args, ctx);
    case Kind::kVim: return HandleVim(args, ctx);
    case Kind::kSocat: return HandleSocat(args, ctx);
    case Kind::kCmake: return HandleCmake(args, ctx);
    case Kind::kTcl: return HandleTcl(name, args, ctx);
    case Kind::kHistory: return HandleHistory(name, args, ctx);
    case Kind::kNames: return HandleNameWriters(name, args, ctx);
    case Kind::kSet: return HandleSet(args, ctx);
    case Kind::kShift:
      // The function's $1... move: what they hold is no longer followed.
      if (!frames_.empty() && frames_.back().mode == Frame::Mode::kBound) {
        frames_.back().mode = Frame::Mode::kUnknown;
      }
      if (frames_.empty()) {
        top_positional_.known = false;
        positional_rewritten_ = true;
      }
      return;
    case Kind::kLocate: return RecordLocate(args);
    case Kind::kAt:
      // at / batch run the commands they read, unless given -f FILE.
      for (const Arg& arg : args.subspan(1)) {
        if (arg.text.starts_with("-f")) return;
      }
      return ReadsStdin(name, ctx);
    case Kind::kRemoteShell:
      return HandleRemoteShell(name, args, ctx);
    case Kind::kWrapper:
      return RunWrapper(name, args, ctx);
    case Kind::kOther:
      if (name.starts_with("with-") && name.size() > 5) RunWrapper(name, args, ctx);  // with-X
      return;
  }
}

void Walker::RunWrapper(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
  std::size_t first = 1;
  const WrapperSpec* spec = FindWrapper(name, args, &first);
  if (spec == nullptr) return;
  WrapperPlan plan = PlanWrapper(*spec, args, first);
  for (const auto& [index, offset] : plan.shell_code) {
    ParseCodeArg(name, args[index], offset, ctx);
  }
  Ctx inner = ctx;
  inner.package = (spec->mode & kPackageName) != 0;
  for (std::size_t start : plan.starts) {
    if (spec->mode & kJoinShell) {
      ParseJoined(args.subspan(start), ctx);
    } else {
      Resolve(args.subspan(start), inner);
    }
  }
  if (ctx.appended && plan.starts.empty() && plan.shell_code.empty() &&
      !(spec->mode & kNoCommand)) {
    Undetermined("the command " + std::string(name) + " runs comes from its input", &args[0]);
  }
  // With no command, sudo -s / -i, su, runuser, doas -s and ssh start a shell
  // that reads standard input: a heredoc or a pipe feeds it commands.
  if (plan.starts.empty() && plan.shell_code.empty() && StartsShellWithoutCommand(name, args)) {
    StdinShell(name, ctx);
  }
}

bool Walker::StartsShellWithoutCommand(std::string_view name, std::span<const Arg> args) {
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

void Walker::StdinShell(std::string_view name, const Ctx& ctx) {
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
  if (fed) ReadsStdin(name, ctx);
}

void Walker::HandleShell(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
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
    RunWrittenFile(rcfile->text, true, Language::kShell, *rcfile, ctx);
  } else if (interactive && !norc) {
    RunStartupFile(".bashrc", args[0], ctx);
  }
  if (login) {
    for (std::string_view file : {".bash_profile", ".bash_login", ".profile"}) {
      RunStartupFile(file, args[0], ctx);
    }
  }
  // A shell that is not interactive ignores nothing of -n: `bash -n FILE`
  // and `bash -n -c CODE` check the syntax and run no command.
  if (noexec && !interactive) return;
  if (code) {
    Danger(DangerousMatch{std::string(kShellString), std::string(name) + " -c runs a string as shell code"});
    if (i >= args.size()) {
      if (ctx.appended) {
        Undetermined("the code " + std::string(name) + " -c runs comes from its input", &args[0]);
      }
      return;
    }
    // bash -c CODE NAME ARGS: ARGS are the code's $1, $2, ...
    Frame frame{ctx.appended ? Frame::Mode::kUnknown : Frame::Mode::kBound, {}};
    for (std::size_t k = i + 2; k < args.size(); ++k) {
      bool placeholder = !active_replace_.empty() &&
                         args[k].text.find(active_replace_) != std::string_view::npos;
      if (args[k].literal() && !placeholder) {
        frame.params.emplace_back(std::string(args[k].text));
      } else {
        frame.params.emplace_back(std::nullopt);
      }
    }
    frames_.push_back(std::move(frame));
    ParseCodeArg(std::string(name) + " -c", args[i], 0, ctx);
    frames_.pop_back();
    return;
  }
  if (i < args.size() && !from_stdin) {
    const Arg& script = args[i];
    if (script.flags & shell::kProcessSubst) {
      Undetermined(std::string(name) + " runs a script produced when the command runs (" +
                       Quote(script) + ")",
                   &script);
      CheckDownloadInto(script);
      return;
    }
    if (!(script.literal() && IsStdinPath(script.text))) {
      // A script file: known when it was written earlier in the line.
      if (script.literal()) RunWrittenFile(script.text, true, Language::kShell, script, ctx);
      return;
    }
  }
  if (ctx.appended && !from_stdin) return;  // xargs bash: input words are script files
  ReadsStdin(name, ctx);
}

const shell::Redirect* StdinRedirect(const shell::SimpleCommand& command) {
  const shell::Redirect* input = nullptr;
  for (const shell::Redirect& redirect : command.redirects) {
    using shell::RedirectOp;
    if (redirect.fd > 0) continue;
    if (redirect.op == RedirectOp::kIn || redirect.op == RedirectOp::kInOut ||
        redirect.op == RedirectOp::kDupIn || redirect.op == RedirectOp::kHeredoc ||
        redirect.op == RedirectOp::kHereString) {
      input = &redirect;
    }
  }
  return input;
}

bool Walker::InDownloadPipeline(const shell::SimpleCommand& command) const {
  return command.pipe_index > 0 &&
         std::find(downloader_pipelines_.begin(), downloader_pipelines_.end(),
                   command.pipeline_id) != downloader_pipelines_.end();
}

void Walker::ReadsStdin(std::string_view name, const Ctx& ctx) {
  const shell::SimpleCommand& command = *ctx.command;
  const shell::Redirect* input = StdinRedirect(command);
  const Arg who{name, 0, {}, 0, 0, 0, 0};
  Arg program = who;
  std::tie(program.begin, program.end) =
      command.origin->Map(command.words.empty() ? 0 : command.words.front().begin,
                          command.words.empty() ? 0 : command.words.back().end);
  if (input != nullptr && input->op == shell::RedirectOp::kHeredoc) {
    ParseText(HeredocText(command, *input), input->body_begin, input->body_end, ctx);
    return;
  }
  if (input != nullptr && input->op == shell::RedirectOp::kHereString) {
    Arg word{input->target.text, input->target.flags, {}, input->target.begin, input->target.end,
             0, 0};
    std::tie(word.begin, word.end) = command.origin->Map(input->target.begin, input->target.end);
    ParseCodeArg(std::string(name) + " <<<", word, 0, ctx);
    return;
  }
  if (input != nullptr) {
    if (input->op == shell::RedirectOp::kIn && input->target.literal()) {
      const WrittenFile* file = files_.Find(input->target.text, true);
      if (file != nullptr && file->kind == WrittenFile::Kind::kText) {
        ParseText(file->content, input->target.begin, input->target.end, ctx);
        return;
      }
    }
    Undetermined(std::string(name) + " reads its commands from a file or descriptor", &program);
    return;
  }
  if (command.pipe_index > 0) {
    Undetermined(std::string(name) + " reads its commands from a pipe", &program);
    if (InDownloadPipeline(command)) {
      Danger(DangerousMatch{std::string(kPipeToShell), "a download is piped into " +
                                                           std::string(name)});
    }
    if (echo_ && echo_->pipeline == command.pipeline_id && echo_->index + 1 == command.pipe_index) {
      Echo echo = *echo_;
      ParseText(echo.text, echo.raw_begin, echo.raw_end, ctx);
    }
    return;
  }
  Undetermined(std::string(name) + " reads its commands from standard input", &program);
}

void Walker::RecordEcho(std::string_view name, std::span<const Arg> args, const Ctx& ctx) {
  // echo 'aws s3 ls' | sh: the text the next command reads is known.
  (void)name;
  if (args.size() < 2) return;
  std::optional<std::string> text = OutputOf(args, ctx);
  if (!text) return;
  echo_ = Echo{ctx.command->pipeline_id, ctx.command->pipe_index, std::move(*text),
               args[1].raw_begin, args.back().raw_end};
}

void Walker::HandleEval(std::span<const Arg> args, const Ctx& ctx) {
  if (args.size() < 2) return;
  Danger(DangerousMatch{std::string(kShellString), "eval runs its arguments as shell code"});
  ParseJoined(args.subspan(1), ctx);
}

void Walker::HandleSource(std::span<const Arg> args, const Ctx& ctx) {
  if (args.size() < 2) return;
  const Arg& file = args[1];
  if (file.flags & shell::kProcessSubst) {
    Undetermined("source runs commands produced when the command runs (" + Quote(file) + ")",
                 &file);
    CheckDownloadInto(file);
    return;
  }
  if (file.literal() && IsStdinPath(file.text)) {
    ReadsStdin("source", ctx);
    return;
  }
  // A file written earlier in the line runs here; one on disk may set any
  // variable, so none is known after it.
  if (!file.literal() || !RunWrittenFile(file.text, true, Language::kShell, file, ctx)) {
    vars_.MarkAllUnknown();
  }
}

void Walker::RunStartupFile(std::string_view file, const Arg& word, const Ctx& ctx) {
  const WrittenFile* written = files_.Find(file, false);
  if (written != nullptr && shell::Basename(written->path) == file) {
    RunWrittenFile(written->path, true, Language::kShell, word, ctx);
  }
}

}  // namespace corral::policy
