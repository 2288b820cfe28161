// The table of which handler reads which program, and the programs whose
// handling is a few lines: declare, command, exec, alias, trap, hash, shift,
// downloads.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/name_hash.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {

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
    for (std::string_view n : ShellNames()) map->Add(n, Kind::kShell);
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


void Dispatch(Walk& walk, std::string_view name, std::span<const Arg> args, const CommandCtx& ctx) {
  switch (KindOf(name)) {
    case Kind::kShell: return HandleShell(walk, name, args, ctx);
    case Kind::kEval: return HandleEval(walk, args, ctx);
    case Kind::kSource: return HandleSource(walk, args, ctx);
    case Kind::kEnv: return HandleEnv(walk, args, ctx);
    case Kind::kXargs: return HandleXargs(walk, args, ctx);
    case Kind::kFind: return HandleFind(walk, args, ctx, "");
    case Kind::kFd: return HandleFind(walk, args, ctx, "fd");
    case Kind::kParallel: return HandleParallel(walk, args, ctx);
    case Kind::kEcho:
      if (name == "printf") HandleNameWriters(walk, name, args, ctx);  // printf -v NAME
      return RecordEcho(walk, name, args, ctx);
    case Kind::kInline: return HandleInlineCode(walk, name, args, ctx);
    case Kind::kDownloader:
      // Only recent downloads can feed a shell; keeping a few bounds the work.
      if (walk.line().downloads.size() >= 64) {
        walk.line().downloads.erase(walk.line().downloads.begin(), walk.line().downloads.begin() + 32);
        walk.line().downloader_pipelines.erase(walk.line().downloader_pipelines.begin(),
                                    walk.line().downloader_pipelines.begin() + 32);
      }
      walk.line().downloader_pipelines.push_back(ctx.command->pipeline_id);
      walk.line().downloads.emplace_back(args[0].begin, args.back().end);
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
          walk.MarkWritten(std::span<const Arg>(&arg, 1));
          if (eq != std::string_view::npos) {
            Arg name = arg;
            name.text = arg.text.substr(0, eq);
            walk.MarkWritten(std::span<const Arg>(&name, 1));
            Arg target = arg;
            target.text = arg.text.substr(eq + 1);  // declare -n r=x: writes through r reach x
            if (target.literal() && shell::IsName(target.text)) {
              walk.MarkWritten(std::span<const Arg>(&target, 1));
            }
          }
        } else if (arg.flags & shell::kAssignment) {
          walk.RecordAssignment(arg, ctx, name != "local");
        }
      }
      return;
    }
    case Kind::kBuiltin: return walk.Resolve(args.subspan(1), ctx);
    case Kind::kCommand: {
      // command -v / -V only look the name up.
      std::size_t i = 1;
      for (; i < args.size() && args[i].option() && args[i].text != "--"; ++i) {
        if (args[i].text.find_first_of("vV") != std::string_view::npos) {
          walk.RecordLocate(args);  // $(command -v aws): a listed program's path
          return;
        }
      }
      if (i < args.size() && args[i].text == "--") ++i;
      return walk.Resolve(args.subspan(std::min(i, args.size())), ctx);
    }
    case Kind::kExec: {
      static constexpr WrapperSpec kExec = {"exec", "", "a", "cl", "", "", 0, "", 0, 0};
      WrapperPlan plan = PlanWrapper(kExec, args, 1);
      for (std::size_t start : plan.starts) walk.Resolve(args.subspan(start), ctx);
      return;
    }
    case Kind::kAlias:
      for (const Arg& arg : args.subspan(1)) {
        std::size_t eq = arg.text.find('=');
        if (eq != std::string_view::npos) walk.ParseCodeArg("alias", arg, eq + 1, ctx);
      }
      return;
    case Kind::kTrap: {
      std::size_t i = 1;
      while (i < args.size() && (args[i].text == "-p" || args[i].text == "-l")) ++i;
      if (i < args.size() && args[i].text == "--") ++i;
      if (i + 1 < args.size() && args[i].text != "-" && !args[i].text.empty()) {
        walk.ParseCodeArg("trap", args[i], 0, ctx);
      }
      return;
    }
    case Kind::kHash:
      // hash -p PATH NAME makes NAME run PATH.
      for (std::size_t i = 1; i + 1 < args.size(); ++i) {
        if (args[i].text == "-p") walk.Resolve(args.subspan(i + 1, 1), ctx);
      }
      return;
    case Kind::kMake: return HandleMake(walk, args, ctx);
    case Kind::kNpm:
      HandleNpm(walk, name, args, ctx);
      return RunWrapper(walk, name, args, ctx);  // npm exec / npx ...
    case Kind::kTar: return HandleTar(walk, args, ctx);
    case Kind::kZip: return HandleZip(walk, args, ctx);
    case Kind::kSed: return HandleSed(walk, args, ctx);
    case Kind::kM4: return HandleM4(walk, args, ctx);
    case Kind::kVim: return HandleVim(walk, args, ctx);
    case Kind::kSocat: return HandleSocat(walk, args, ctx);
    case Kind::kCmake: return HandleCmake(walk, args, ctx);
    case Kind::kTcl: return HandleTcl(walk, name, args, ctx);
    case Kind::kHistory: return HandleHistory(walk, name, args, ctx);
    case Kind::kNames: return HandleNameWriters(walk, name, args, ctx);
    case Kind::kSet: return HandleSet(walk, args, ctx);
    case Kind::kShift:
      // The function's $1... move: what they hold is no longer followed.
      if (!walk.line().frames.empty() && walk.line().frames.back().mode == Frame::Mode::kBound) {
        walk.line().frames.back().mode = Frame::Mode::kUnknown;
      }
      if (walk.line().frames.empty()) {
        walk.line().top_positional.known = false;
        walk.line().positional_rewritten = true;
      }
      return;
    case Kind::kLocate: return walk.RecordLocate(args);
    case Kind::kAt:
      // at / batch run the commands they read, unless given -f FILE.
      for (const Arg& arg : args.subspan(1)) {
        if (arg.text.starts_with("-f")) return;
      }
      return ReadsStdin(walk, name, ctx);
    case Kind::kRemoteShell:
      return HandleRemoteShell(walk, name, args, ctx);
    case Kind::kWrapper:
      return RunWrapper(walk, name, args, ctx);
    case Kind::kOther:
      if (name.starts_with("with-") && name.size() > 5) RunWrapper(walk, name, args, ctx);  // with-X
      return;
  }
}

}  // namespace corral::policy
