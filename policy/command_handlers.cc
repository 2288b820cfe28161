// What particular programs run: shells given code or standard input, eval,
// source, env, echo/printf feeding a shell, at, ssh/rsync option code, and
// every generic wrapper from wrappers.cc (the rest is in command_tools.cc).
#include <algorithm>
#include <unordered_map>

#include "policy/command_util.h"
#include "policy/command_walker.h"
#include "policy/dangerous.h"
#include "policy/wrappers.h"

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
};

Kind KindOf(std::string_view name) {
  static const auto* kinds = [] {
    auto* map = new std::unordered_map<std::string_view, Kind>();
    for (std::string_view n : {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh",
                               "rbash", "lksh", "oksh", "loksh", "pdksh", "ksh93", "fish", "csh",
                               "tcsh", "hush", "elvish", "nu", "xonsh", "bash5", "sh5"}) {
      map->emplace(n, Kind::kShell);
    }
    for (std::string_view n : {"curl", "wget", "fetch", "http", "https", "aria2c", "lwp-request",
                               "GET", "xh", "curlie", "wget2"}) {
      map->emplace(n, Kind::kDownloader);
    }
    for (std::string_view n : {"export", "declare", "typeset", "local", "readonly"}) {
      map->emplace(n, Kind::kDeclare);
    }
    for (std::string_view n : {"python", "python2", "python3", "pypy", "pypy3", "perl", "ruby",
                               "node", "nodejs", "lua", "luajit", "Rscript", "osascript", "bun",
                               "deno", "tclsh", "awk", "gawk", "php"}) {
      map->emplace(n, Kind::kInline);
    }
    const std::pair<std::string_view, Kind> single[] = {
        {"eval", Kind::kEval},         {"source", Kind::kSource},   {".", Kind::kSource},
        {"env", Kind::kEnv},           {"xargs", Kind::kXargs},     {"find", Kind::kFind},
        {"fd", Kind::kFd},             {"fdfind", Kind::kFd},       {"parallel", Kind::kParallel},
        {"sem", Kind::kParallel},      {"echo", Kind::kEcho},       {"printf", Kind::kEcho},
        {"builtin", Kind::kBuiltin},   {"command", Kind::kCommand}, {"exec", Kind::kExec},
        {"alias", Kind::kAlias},       {"trap", Kind::kTrap},       {"hash", Kind::kHash},
        {"at", Kind::kAt},             {"batch", Kind::kAt},        {"ssh", Kind::kRemoteShell},
        {"scp", Kind::kRemoteShell},   {"sftp", Kind::kRemoteShell}, {"rsync", Kind::kRemoteShell}};
    for (const auto& [n, kind] : single) map->emplace(n, kind);
    return map;
  }();
  auto it = kinds->find(name);
  if (it != kinds->end()) return it->second;
  if (name.starts_with("python")) return Kind::kInline;
  return Kind::kOther;
}

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
    case Kind::kEcho: return RecordEcho(name, args, ctx);
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
    case Kind::kDeclare:
      for (const Arg& arg : args.subspan(1)) {
        if (arg.flags & shell::kAssignment) RecordAssignment(arg, ctx);
      }
      return;
    case Kind::kBuiltin: return Resolve(args.subspan(1), ctx);
    case Kind::kCommand: {
      // command -v / -V only look the name up.
      std::size_t i = 1;
      for (; i < args.size() && args[i].option() && args[i].text != "--"; ++i) {
        if (args[i].text.find_first_of("vV") != std::string_view::npos) return;
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
    case Kind::kAt:
      // at / batch run the commands they read, unless given -f FILE.
      for (const Arg& arg : args.subspan(1)) {
        if (arg.text.starts_with("-f")) return;
      }
      return ReadsStdin(name, ctx);
    case Kind::kRemoteShell:
      // Option values that run locally as shell code: ssh -o ProxyCommand=,
      // rsync -e / --rsh= / --rsync-path=.
      for (std::size_t i = 1; i < args.size(); ++i) {
        std::string_view t = args[i].text;
        const Arg* value = &args[i];
        std::size_t offset = 0;
        if ((t == "-o" || t == "-e") && i + 1 < args.size()) {
          value = &args[++i];
          t = value->text;
          if (args[i - 1].text == "-e") {
            ParseCodeArg(name, *value, 0, ctx);
            continue;
          }
        } else if (t.starts_with("-o")) {
          offset = 2;
        } else if (t.starts_with("--rsh=") || t.starts_with("--rsync-path=")) {
          ParseCodeArg(name, *value, t.find('=') + 1, ctx);
          continue;
        } else {
          continue;
        }
        std::string_view option = t.substr(offset);
        for (std::string_view key : {"ProxyCommand", "LocalCommand", "KnownHostsCommand"}) {
          if (option.size() > key.size() && option.starts_with(key) &&
              (option[key.size()] == '=' || option[key.size()] == ' ')) {
            ParseCodeArg(name, *value, offset + key.size() + 1, ctx);
          }
        }
      }
      if (name == "ssh") RunWrapper(name, args, ctx);
      return;
    case Kind::kOther:
      if (IsWrapperName(name)) RunWrapper(name, args, ctx);
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
      i += (t == "--rcfile" || t == "--init-file") ? 2 : 1;
      continue;
    }
    if (t.size() > 1 && (t[0] == '-' || t[0] == '+')) {
      std::size_t extra = 0;
      for (char c : t.substr(1)) {
        if (c == 'c') code = true;
        if (c == 's') from_stdin = true;
        if (c == 'o' || c == 'O') ++extra;
      }
      i += 1 + extra;
      continue;
    }
    break;
  }
  if (code) {
    Danger(DangerousMatch{std::string(kShellString), std::string(name) + " -c runs a string as shell code"});
    if (i >= args.size()) {
      if (ctx.appended) {
        Undetermined("the code " + std::string(name) + " -c runs comes from its input", &args[0]);
      }
      return;
    }
    ParseCodeArg(std::string(name) + " -c", args[i], 0, ctx);
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
    if (!(script.literal() && IsStdinPath(script.text))) return;  // a script file
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
    std::string_view raw =
        command.source.substr(input->body_begin, input->body_end - input->body_begin);
    if (input->body_quoted) {
      ParseText(raw, input->body_begin, input->body_end, ctx);
      return;
    }
    // An unquoted body reaches the shell after \$ \` \\ and \newline are undone.
    std::string body;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '\\' && k + 1 < raw.size() &&
          (raw[k + 1] == '$' || raw[k + 1] == '`' || raw[k + 1] == '\\' || raw[k + 1] == '\n')) {
        if (raw[k + 1] != '\n') body += raw[k + 1];
        ++k;
        continue;
      }
      body += raw[k];
    }
    ParseText(body, input->body_begin, input->body_end, ctx);
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
  // echo 'aws s3 ls' | sh: the text the shell reads is known.
  std::size_t i = 1;
  if (name == "echo") {
    while (i < args.size() && OneOf(args[i].text, {"-n", "-e", "-E", "-ne", "-en"})) ++i;
  } else if (i < args.size() && args[i].text.find('%') != std::string_view::npos) {
    ++i;  // printf FORMAT ARGS: the arguments carry the text
  }
  if (i >= args.size()) return;
  std::string text;
  for (std::size_t k = i; k < args.size(); ++k) {
    if (!args[k].literal()) return;
    if (!text.empty()) text += name == "echo" ? ' ' : '\n';
    text.append(args[k].text);
  }
  echo_ = Echo{ctx.command->pipeline_id, ctx.command->pipe_index, std::move(text), args[i].raw_begin,
               args.back().raw_end};
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
  if (file.literal() && IsStdinPath(file.text)) ReadsStdin("source", ctx);
}

void Walker::HandleEnv(std::span<const Arg> original, const Ctx& ctx) {
  // The words are copied only when env -S splits one: env env env ... stays
  // linear.
  std::span<const Arg> args = original;
  std::vector<Arg> owned;
  std::size_t i = 1;
  auto split_into = [&](std::size_t at, std::size_t remove, const Arg& source,
                        std::string_view text) {
    if (owned.empty()) owned.assign(args.begin(), args.end());
    std::vector<Arg> pieces;
    for (std::string& word : SplitEnvString(text)) {
      ctx.storage->push_front(std::move(word));
      Arg piece = source;
      piece.text = ctx.storage->front();
      piece.flags = 0;
      pieces.push_back(piece);
    }
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

}  // namespace corral::policy
