// The exec check's verdict: the matcher reads the exec as the shell command
// that would have started it, under each name the program has.
#include "images/shim/exec_decision.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "images/shell/shell.h"

namespace corral::shim {
namespace {

std::string_view BaseName(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool SafeInShell(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_-./:,+@%=").find(c) != std::string_view::npos;
}

void AppendWord(std::string& text, std::string_view word) {
  bool first = text.empty();
  if (!first) text += ' ';
  // '=' in the first word would read as an assignment (FOO=1 cmd).
  bool plain = !word.empty() && std::all_of(word.begin(), word.end(), SafeInShell) &&
               !(first && word.find('=') != std::string_view::npos);
  if (plain) {
    text += word;
    return;
  }
  text += '\'';
  for (char c : word) text += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  text += '\'';
}

// How an interpreter's options read: which short flags mean there is no
// script file, which take a value (attached, or the next argument).
struct Interpreter {
  std::string_view family;
  std::string_view no_script;  // -c, -e, -m ...
  std::string_view value;      // -W x, -r lib ...
  std::array<std::string_view, 4> no_script_long;
  std::array<std::string_view, 7> value_long;
};

constexpr Interpreter kInterpreters[] = {
    {"python", "cm", "WX", {}, {"--check-hash-based-pycs"}},
    {"pypy", "cm", "WX", {}, {}},
    {"perl", "eE", "", {}, {}},
    {"ruby", "e", "ICEr", {}, {}},
    {"node",
     "ep",
     "rC",
     {"--eval", "--print"},
     {"--require", "--import", "--loader", "--experimental-loader", "--input-type"}},
    {"php", "r", "cdz", {}, {}},
    {"lua", "e", "l", {}, {}},
    // The dynamic loader runs the program it is given (ld.so PROGRAM ARGS).
    {"ld.so",
     "",
     "",
     {"--list", "--verify", "--help", "--version"},
     {"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0", "--glibc-hwcaps-prefix",
      "--glibc-hwcaps-mask"}},
};

// python3.11 -> python, perl5.36.0 -> perl, nodejs -> node,
// ld-linux-x86-64.so.2 -> ld.so.
std::string_view Family(std::string_view name) {
  if (name.starts_with("ld-") && name.find(".so") != std::string_view::npos) return "ld.so";
  while (!name.empty() &&
         (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '.')) {
    name.remove_suffix(1);
  }
  return name == "nodejs" ? "node" : name;
}

std::optional<std::size_t> InterpreterOperand(const Interpreter& it,
                                              const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg == "-") return std::nullopt;  // standard input
    if (arg == "--") return i + 1 < argv.size() ? std::optional(i + 1) : std::nullopt;
    if (arg.size() < 2 || arg[0] != '-') return i;
    if (arg.starts_with("--")) {
      std::string_view name = arg.substr(0, arg.find('='));
      if (std::find(it.no_script_long.begin(), it.no_script_long.end(), name) !=
          it.no_script_long.end()) {
        return std::nullopt;
      }
      bool takes =
          std::find(it.value_long.begin(), it.value_long.end(), name) != it.value_long.end();
      if (takes && name.size() == arg.size()) ++i;
      continue;
    }
    for (std::size_t at = 1; at < arg.size(); ++at) {
      if (it.no_script.find(arg[at]) != std::string_view::npos) return std::nullopt;
      if (it.value.find(arg[at]) != std::string_view::npos) {
        if (at + 1 == arg.size()) ++i;  // the value is the next argument
        break;
      }
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> ShellOperand(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (std::size_t i = 1; i < argv.size(); ++i) args.push_back(const_cast<char*>(argv[i].c_str()));
  shell_call call = shell_parse_args(static_cast<int>(args.size()), args.data());
  if (call.kind != SHELL_SCRIPT) return std::nullopt;
  auto at = std::find(args.begin(), args.end(), call.text);
  return static_cast<std::size_t>(at - args.begin()) + 1;
}

// The program's names for the matcher: what it is by identity, as written,
// and as resolved (a multi-call binary, by the name it was run as); one per
// file name, since the matcher reads paths by it.
std::vector<std::string_view> Names(const FileFacts& file, std::string_view argv0) {
  std::string_view multi_call = BaseName(file.resolved);
  if (multi_call != "busybox" && multi_call != "toybox") argv0 = "";
  std::vector<std::string_view> names;
  for (std::string_view name : {std::string_view(file.listed_as), std::string_view(file.given),
                                std::string_view(file.resolved), argv0}) {
    if (name.empty()) continue;
    bool seen = std::any_of(names.begin(), names.end(),
                            [&](std::string_view n) { return BaseName(n) == BaseName(name); });
    if (!seen) names.push_back(name);
  }
  return names;
}

ExecVerdict FirstListed(const policy::Matcher& matcher, const FileFacts& file,
                        const std::vector<std::string>& argv, std::size_t args_from) {
  std::string_view argv0 = args_from == 1 && !argv.empty() ? std::string_view(argv[0]) : "";
  for (std::string_view name : Names(file, argv0)) {
    std::string text = ShellWords(name, argv, args_from);
    policy::MatchResult match = matcher.Check(text);
    // A listed program that a wrapper or a shell in the arguments would start
    // (`env aws`, `sh -c 'aws'`) is refused at its own exec, so the shell front,
    // when it is that shell, answers first with its message.
    bool this_program = match.words.empty() || match.words.front().offset == 0;
    if (match.finding == policy::Finding::kListed && this_program) {
      return {true, match.entry, std::move(text)};
    }
  }
  return {};
}

}  // namespace

std::string ShellWords(std::string_view program, const std::vector<std::string>& argv,
                       std::size_t args_from) {
  std::string text;
  AppendWord(text, program);
  for (std::size_t i = args_from; i < argv.size(); ++i) AppendWord(text, argv[i]);
  return text;
}

std::optional<std::size_t> ScriptOperand(std::string_view name,
                                         const std::vector<std::string>& argv) {
  if (name == "busybox" && !argv.empty()) {
    // Through a link the applet is argv[0]; as `busybox sh FILE`, argv[1].
    std::string_view applet = BaseName(argv[0]);
    if (applet != "busybox") return ScriptOperand(applet, argv);
    if (argv.size() < 2 || BaseName(argv[1]) == "busybox") return std::nullopt;
    std::vector<std::string> rest(argv.begin() + 1, argv.end());
    auto at = ScriptOperand(BaseName(rest[0]), rest);
    return at ? std::optional(*at + 1) : std::nullopt;
  }
  if (shell_is_name(std::string(name).c_str()) || name == "ash" || name == "mksh") {
    return ShellOperand(argv);
  }
  std::string_view family = Family(name);
  for (const Interpreter& it : kInterpreters) {
    if (family == it.family) return InterpreterOperand(it, argv);
  }
  return std::nullopt;
}

std::optional<Shebang> ParseShebang(std::string_view head) {
  if (!head.starts_with("#!")) return std::nullopt;
  head.remove_prefix(2);
  head = head.substr(0, head.find('\n'));
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!head.empty() && blank(head.front())) head.remove_prefix(1);
  while (!head.empty() && blank(head.back())) head.remove_suffix(1);
  std::size_t end = 0;
  while (end < head.size() && !blank(head[end]) && head[end] != '\0') ++end;
  if (end == 0) return std::nullopt;  // ENOEXEC: nothing runs
  Shebang shebang{std::string(head.substr(0, end)), std::nullopt};
  head.remove_prefix(end);
  while (!head.empty() && blank(head.front())) head.remove_prefix(1);
  head = head.substr(0, head.find('\0'));
  if (!head.empty()) shebang.argument = std::string(head);
  return shebang;
}

std::vector<std::string> ShebangArgv(const Shebang& shebang, const std::string& file,
                                     const std::vector<std::string>& argv) {
  std::vector<std::string> out{shebang.interpreter};
  if (shebang.argument) out.push_back(*shebang.argument);
  out.push_back(file);
  if (argv.size() > 1) out.insert(out.end(), argv.begin() + 1, argv.end());
  return out;
}

ExecVerdict DecideExec(const policy::Matcher& matcher, const ExecFacts& facts) {
  ExecVerdict verdict = FirstListed(matcher, facts.program, facts.argv, 1);
  if (!verdict.refuse && facts.script) {
    verdict = FirstListed(matcher, *facts.script, facts.argv, facts.script_index + 1);
  }
  return verdict;
}

}  // namespace corral::shim
