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

// Listed programs that are an interpreter's package: run as a module
// (`python3 -m awscli`) or loaded by code text, they are that program.
struct ModuleOf {
  std::string_view program, family, module;
};
constexpr ModuleOf kModules[] = {
    {"aws", "python", "awscli"},
    {"az", "python", "azure.cli"},
    {"gcloud", "python", "googlecloudsdk"},
    {"mongosh", "node", "@mongosh/cli-repl"},
    {"mongosh", "node", "mongosh"},
    {"railway", "node", "@railway/cli"},
};

bool IdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `module` in `code` as a whole name (awscli, awscli.clidriver; not myawscli).
bool NamesModule(std::string_view code, std::string_view module) {
  for (std::size_t at = code.find(module); at != std::string_view::npos; at = code.find(module, at + 1)) {
    std::size_t end = at + module.size();
    if ((at == 0 || !IdentifierChar(code[at - 1])) && (end == code.size() || !IdentifierChar(code[end]))) {
      return true;
    }
  }
  return false;
}

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

// The value of option `arg` (at argv[i]) from `at`: attached, or the next
// argument (i is moved past it).
std::optional<std::size_t> ValueAt(const std::vector<std::string>& argv, std::size_t& i, std::size_t at,
                                   std::string& attached) {
  if (at < argv[i].size()) {
    attached = argv[i].substr(at);
    return i;
  }
  return ++i < argv.size() ? std::optional(i) : std::nullopt;
}

InterpreterInput ReadInterpreter(const Interpreter& it, const std::vector<std::string>& argv) {
  InterpreterInput input;
  auto found = [&](std::optional<std::size_t>& slot, std::optional<std::size_t> at, std::string attached) {
    slot = at;
    input.attached = std::move(attached);
    return input;
  };
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg == "-") return found(input.standard_input, i, "");
    if (arg == "--") return i + 1 < argv.size() ? found(input.script, i + 1, "") : input;
    if (arg.size() < 2 || arg[0] != '-') return found(input.script, i, "");
    if (arg.starts_with("--")) {
      std::size_t equals = arg.find('=');
      std::string_view name = arg.substr(0, equals);
      if (std::find(it.no_script_long.begin(), it.no_script_long.end(), name) != it.no_script_long.end()) {
        if (name != "--eval" && name != "--print") return input;
        if (equals != std::string_view::npos) return found(input.code, i, std::string(arg.substr(equals + 1)));
        return ++i < argv.size() ? found(input.code, i, "") : input;
      }
      bool takes = std::find(it.value_long.begin(), it.value_long.end(), name) != it.value_long.end();
      if (takes && equals == std::string_view::npos) ++i;
      continue;
    }
    for (std::size_t at = 1; at < arg.size(); ++at) {
      if (it.no_script.find(arg[at]) != std::string_view::npos) {
        std::string attached;
        auto value = ValueAt(argv, i, at + 1, attached);
        if (!value) return input;
        return found(arg[at] == 'm' ? input.module : input.code, value, std::move(attached));
      }
      if (it.value.find(arg[at]) != std::string_view::npos) {
        if (at + 1 == arg.size()) ++i;  // the value is the next argument
        break;
      }
    }
  }
  input.standard_input = argv.size();  // no program named: it reads standard input
  return input;
}

InterpreterInput ShellInput(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (std::size_t i = 1; i < argv.size(); ++i) args.push_back(const_cast<char*>(argv[i].c_str()));
  shell_call call = shell_parse_args(static_cast<int>(args.size()), args.data());
  InterpreterInput input;
  if (call.kind == SHELL_STDIN) input.standard_input = argv.size();
  if (call.kind != SHELL_SCRIPT) return input;
  auto at = std::find(args.begin(), args.end(), call.text);
  input.script = static_cast<std::size_t>(at - args.begin()) + 1;
  return input;
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
    // Listed by its own name only when the list has that command (most
    // execs: no text to build, no line to parse).
    if (!matcher.ListsCommand(BaseName(name))) continue;
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

const std::vector<std::string>& InterpreterNames() {
  static const std::vector<std::string> kNames = {
      "busybox", "bash", "dash", "sh", "ash", "mksh", "zsh", "ksh", "python3", "python", "pypy3",
      "perl", "ruby", "node", "nodejs", "php", "lua", "ld-linux-x86-64.so.2",
      "ld-linux-aarch64.so.1", "ld-linux.so.2", "ld-musl-x86_64.so.1", "ld-musl-aarch64.so.1"};
  return kNames;
}

std::optional<InterpreterInput> InterpreterInputOf(std::string_view name, const std::vector<std::string>& argv) {
  if (name == "busybox" && !argv.empty()) {
    // Through a link the applet is argv[0]; as `busybox sh FILE`, argv[1].
    std::string_view applet = BaseName(argv[0]);
    if (applet != "busybox") return InterpreterInputOf(applet, argv);
    if (argv.size() < 2 || BaseName(argv[1]) == "busybox") return std::nullopt;
    std::vector<std::string> rest(argv.begin() + 1, argv.end());
    auto input = InterpreterInputOf(BaseName(rest[0]), rest);
    if (!input) return input;
    for (auto* at : {&input->script, &input->module, &input->code, &input->standard_input}) {
      if (*at) ++**at;
    }
    return input;
  }
  if (shell_is_name(std::string(name).c_str()) || name == "ash" || name == "mksh") return ShellInput(argv);
  std::string_view family = Family(name);
  for (const Interpreter& it : kInterpreters) {
    if (family == it.family) {
      InterpreterInput input = ReadInterpreter(it, argv);
      input.family = it.family;
      return input;
    }
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
  if (verdict.refuse) return verdict;
  std::vector<std::string_view> in_code(facts.named_in_code.begin(), facts.named_in_code.end());
  for (const ModuleOf& of : kModules) {
    bool family = of.family == facts.family || (of.family == "python" && facts.family == "pypy");
    if (!family) continue;
    if (facts.module && (*facts.module == of.module || facts.module->starts_with(std::string(of.module) + "."))) {
      FileFacts as_program{"", "", std::string(of.program)};
      verdict = FirstListed(matcher, as_program, facts.argv, facts.module_index + 1);
      if (verdict.refuse) return verdict;
    }
    if (facts.code && NamesModule(*facts.code, of.module)) in_code.push_back(of.program);
  }
  for (std::string_view program : in_code) {
    policy::MatchResult match = matcher.Check(std::string(program));
    if (match.finding == policy::Finding::kListed) {
      return {true, match.entry, ShellWords(BaseName(facts.program.given), facts.argv, 1)};
    }
  }
  return {};
}

}  // namespace corral::shim
