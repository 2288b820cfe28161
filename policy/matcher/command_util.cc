#include "policy/matcher/command_util.h"

#include "policy/matcher/name_hash.h"
#include "policy/shell/shell.h"

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

constexpr std::string_view kShellNames[] = {
    "sh",   "bash", "zsh",   "dash",   "ksh",   "mksh",  "ash",   "yash",
    "posh", "rbash", "lksh", "oksh",   "loksh", "pdksh", "ksh93", "fish",
    "csh",  "tcsh", "hush",  "elvish", "nu",    "xonsh", "bash5", "sh5"};

}  // namespace

std::span<const std::string_view> ShellNames() { return kShellNames; }

bool IsShellName(std::string_view name) {
  static const auto* shells = [] {
    auto* table = new NameTable<bool>();
    for (std::string_view n : kShellNames) table->Add(n, true);
    return table;
  }();
  return shells->Find(name) != nullptr;
}

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

Language LanguageOf(std::string_view program) {
  if (program.starts_with("python") || program.starts_with("pypy")) return Language::kPython;
  if (OneOf(program, {"node", "nodejs", "bun", "deno"})) return Language::kNode;
  if (program.starts_with("perl")) return Language::kPerl;
  if (program == "ruby" || program == "irb") return Language::kRuby;
  if (OneOf(program, {"awk", "gawk", "mawk", "nawk", "busybox-awk"})) return Language::kAwk;
  if (program.starts_with("php")) return Language::kPhp;
  if (program == "lua" || program == "luajit" || program.starts_with("lua5")) {
    return Language::kLua;
  }
  if (OneOf(program, {"tclsh", "wish", "expect", "jimsh"}) || program.starts_with("tclsh")) {
    return Language::kTcl;
  }
  if (IsShellName(program)) return Language::kShell;
  return Language::kOther;
}

std::string_view LanguageName(Language language) {
  switch (language) {
    case Language::kShell: return "sh";
    case Language::kPython: return "python3";
    case Language::kNode: return "node";
    case Language::kPerl: return "perl";
    case Language::kRuby: return "ruby";
    case Language::kAwk: return "awk";
    case Language::kPhp: return "php";
    case Language::kLua: return "lua";
    case Language::kTcl: return "tclsh";
    case Language::kOther: break;
  }
  return "";
}

std::string HeredocText(const shell::SimpleCommand& command, const shell::Redirect& heredoc) {
  std::string_view raw =
      command.source.substr(heredoc.body_begin, heredoc.body_end - heredoc.body_begin);
  if (heredoc.body_quoted) return std::string(raw);
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
  return body;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    lines.emplace_back(text.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return lines;
}

std::string PrintfOutput(std::string_view format, std::span<const std::string_view> args) {
  std::string out;
  std::size_t next = 0;
  // The format is used again while arguments remain (bounded).
  for (int round = 0; round < 64; ++round) {
    bool took = false;
    std::string literal;
    auto flush = [&] {
      shell::DecodeAnsiC(literal, out);
      literal.clear();
    };
    for (std::size_t i = 0; i < format.size(); ++i) {
      char c = format[i];
      if (c != '%' || i + 1 >= format.size()) {
        literal += c;
        continue;
      }
      if (format[i + 1] == '%') {
        literal += '%';
        ++i;
        continue;
      }
      flush();
      ++i;
      while (i < format.size() && std::string_view("-+ #0'").find(format[i]) != std::string_view::npos) ++i;
      while (i < format.size() && (shell::IsDigit(format[i]) || format[i] == '.' || format[i] == '*')) {
        if (format[i] == '*' && next < args.size()) ++next;
        ++i;
      }
      if (i >= format.size()) break;
      std::string_view arg = next < args.size() ? args[next] : std::string_view();
      if (next < args.size()) {
        ++next;
        took = true;
      }
      switch (format[i]) {
        case 'b': shell::DecodeAnsiC(arg, out); break;
        case 'c': out.append(arg.substr(0, 1)); break;
        default: out.append(arg);
      }
    }
    flush();
    if (!took || next >= args.size()) break;
  }
  return out;
}

// The descriptor a path names in the process that runs it: /dev/fd/N,
// /dev/stdin (0), /dev/stdout, /dev/stderr, /proc/self/fd/N,
// /proc/thread-self/fd/N, however written (/proc/./self//fd/N).
std::optional<int> DescriptorPath(std::string_view path) {
  if (!path.starts_with('/')) return std::nullopt;
  std::vector<std::string_view> parts;
  for (std::size_t at = 0; at < path.size();) {
    std::size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(at, slash - at);
    if (!part.empty() && part != ".") parts.push_back(part);
    at = slash + 1;
  }
  auto number = [](std::string_view text) -> std::optional<int> {
    if (text.empty() || text.size() > 4) return std::nullopt;
    int value = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    return value;
  };
  if (parts.size() == 2 && parts[0] == "dev") {
    if (parts[1] == "stdin") return 0;
    if (parts[1] == "stdout") return 1;
    if (parts[1] == "stderr") return 2;
  }
  if (parts.size() == 3 && parts[0] == "dev" && parts[1] == "fd") return number(parts[2]);
  if (parts.size() == 4 && parts[0] == "proc" && (parts[1] == "self" || parts[1] == "thread-self") &&
      parts[2] == "fd") {
    return number(parts[3]);
  }
  return std::nullopt;
}

}  // namespace corral::policy
