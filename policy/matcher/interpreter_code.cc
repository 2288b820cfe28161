#include "policy/matcher/interpreter_code.h"

#include <algorithm>

namespace corral::policy {
namespace {

struct Token {
  enum class Kind : std::uint8_t { kIdent, kString, kCommand, kPunct };
  Kind kind;
  std::string text;           // identifier (dotted: os.system), string content, punctuation
  bool interpolated = false;  // f"{x}", `${x}`, "#{x}", "$x": built at run time
};

bool IdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool IdentChar(char c) { return IdentStart(c) || (c >= '0' && c <= '9'); }

class Lexer {
 public:
  Lexer(Language language, std::string_view code) : lang_(language), code_(code) {}

  std::vector<Token> Run() {
    while (i_ < code_.size() && tokens_.size() < 20000) Step();
    return std::move(tokens_);
  }

 private:
  void Step() {
    char c = code_[i_];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i_;
      return;
    }
    if (Comment()) return;
    if (c == '\n') {
      tokens_.push_back({Token::Kind::kPunct, "\n"});
      ++i_;
      return;
    }
    if (c == '\'' || c == '"' || c == '`') {
      Quoted(c, c == '`' ? Token::Kind::kCommand : Token::Kind::kString, false);
      return;
    }
    if (lang_ == Language::kLua && c == '[' && (Peek(1) == '[' || Peek(1) == '=')) {
      LongBracket();
      return;
    }
    if (IdentStart(c) && !(lang_ == Language::kPerl && c == '$' && Peek(1) == '{')) {
      Identifier();
      return;
    }
    if (c == '%' && (lang_ == Language::kRuby) && (Peek(1) == 'x' || Peek(1) == 'q' || Peek(1) == 'Q' || Peek(1) == 'w') &&
        i_ + 2 < code_.size() && !IdentChar(code_[i_ + 2])) {
      Token::Kind kind = Peek(1) == 'x' ? Token::Kind::kCommand : Token::Kind::kString;
      i_ += 2;
      Delimited(kind, true);
      return;
    }
    if ((c == '|' || c == '&') && Peek(1) == c) {
      tokens_.push_back({Token::Kind::kPunct, std::string(2, c)});
      i_ += 2;
      return;
    }
    tokens_.push_back({Token::Kind::kPunct, std::string(1, c)});
    ++i_;
  }

  char Peek(std::size_t k) const { return i_ + k < code_.size() ? code_[i_ + k] : '\0'; }

  bool Comment() {
    char c = code_[i_];
    bool hash = c == '#' && lang_ != Language::kNode && lang_ != Language::kLua;
    bool slashes = c == '/' && (Peek(1) == '/' || Peek(1) == '*') &&
                   (lang_ == Language::kNode || lang_ == Language::kPhp);
    bool dashes = c == '-' && Peek(1) == '-' && lang_ == Language::kLua;
    if (!hash && !slashes && !dashes) return false;
    if (slashes && Peek(1) == '*') {
      std::size_t end = code_.find("*/", i_ + 2);
      i_ = end == std::string_view::npos ? code_.size() : end + 2;
      return true;
    }
    while (i_ < code_.size() && code_[i_] != '\n') ++i_;
    return true;
  }

  void Identifier() {
    std::string text;
    while (i_ < code_.size()) {
      while (i_ < code_.size() && IdentChar(code_[i_])) text += code_[i_++];
      // Dotted names: os.system, child_process.spawn, IPC::Open3, $x->y.
      if (Peek(0) == '.' && IdentStart(Peek(1))) {
        text += '.';
        ++i_;
      } else if (Peek(0) == ':' && Peek(1) == ':' && IdentStart(Peek(2))) {
        text += '.';
        i_ += 2;
      } else {
        break;
      }
    }
    // Python string prefixes: r'..', f"..", b'..'.
    if (lang_ == Language::kPython && text.size() <= 2 && i_ < code_.size() &&
        (code_[i_] == '\'' || code_[i_] == '"') &&
        std::all_of(text.begin(), text.end(), [](char ch) {
          return std::string_view("rRbBuUfF").find(ch) != std::string_view::npos;
        })) {
      bool format = text.find_first_of("fF") != std::string::npos;
      bool raw = text.find_first_of("rR") != std::string::npos;
      Quoted(code_[i_], Token::Kind::kString, raw, format);
      return;
    }
    // Perl q{} qq{} qw{} qx{}.
    if (lang_ == Language::kPerl && (text == "q" || text == "qq" || text == "qw" || text == "qx") &&
        i_ < code_.size() && !IdentChar(code_[i_]) && code_[i_] != ' ' && code_[i_] != '=' &&
        code_[i_] != ',' && code_[i_] != ';') {
      Delimited(text == "qx" ? Token::Kind::kCommand : Token::Kind::kString, text != "q");
      return;
    }
    tokens_.push_back({Token::Kind::kIdent, text});
  }

  void Quoted(char quote, Token::Kind kind, bool raw, bool format = false) {
    bool triple = lang_ == Language::kPython && Peek(1) == quote && Peek(2) == quote;
    std::size_t open = triple ? 3 : 1;
    std::size_t j = i_ + open;
    std::string text;
    bool interpolated = false;
    while (j < code_.size()) {
      char c = code_[j];
      if (triple ? code_.substr(j).starts_with(std::string(3, quote)) : c == quote) break;
      if (c == '\\' && !raw && j + 1 < code_.size()) {
        char e = code_[j + 1];
        text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        j += 2;
        continue;
      }
      if (Interpolates(quote, format, code_.substr(j))) interpolated = true;
      text += c;
      ++j;
    }
    i_ = std::min(code_.size(), j + open);
    tokens_.push_back({kind, std::move(text), interpolated});
  }

  // Does text at `rest` (inside a string quoted with `quote`) splice in a value?
  bool Interpolates(char quote, bool format, std::string_view rest) const {
    if (rest.size() < 2) return false;
    if (format) return rest[0] == '{' && rest[1] != '{';
    if (quote == '\'' && lang_ != Language::kLua) return false;
    switch (lang_) {
      case Language::kNode: return quote == '`' && rest.starts_with("${");
      case Language::kRuby: return quote != '\'' && rest.starts_with("#{");
      case Language::kPerl:
      case Language::kPhp:
        return quote != '\'' && (rest[0] == '$' || rest[0] == '@') &&
               (IdentStart(rest[1]) || rest[1] == '{');
      default: return quote == '`' && rest[0] == '$';
    }
  }

  void Delimited(Token::Kind kind, bool interpolating) {
    char open = code_[i_];
    char close = open == '(' ? ')' : open == '{' ? '}' : open == '[' ? ']' : open == '<' ? '>' : open;
    int depth = 1;
    std::size_t j = i_ + 1;
    std::string text;
    bool interpolated = false;
    while (j < code_.size()) {
      char c = code_[j];
      if (c == '\\' && j + 1 < code_.size()) {
        text += code_[j + 1];
        j += 2;
        continue;
      }
      if (c == close && open != close && --depth == 0) break;
      if (c == close && open == close) break;
      if (c == open && open != close) ++depth;
      if (interpolating && (c == '$' || c == '@' || c == '#') && j + 1 < code_.size() &&
          (IdentStart(code_[j + 1]) || code_[j + 1] == '{')) {
        interpolated = true;
      }
      text += c;
      ++j;
    }
    i_ = std::min(code_.size(), j + 1);
    tokens_.push_back({kind, std::move(text), interpolated});
  }

  void LongBracket() {
    std::size_t level = 0;
    std::size_t j = i_ + 1;
    while (j < code_.size() && code_[j] == '=') {
      ++level;
      ++j;
    }
    std::string close = "]" + std::string(level, '=') + "]";
    std::size_t end = code_.find(close, j + 1);
    std::size_t stop = end == std::string_view::npos ? code_.size() : end;
    tokens_.push_back({Token::Kind::kString, std::string(code_.substr(j + 1, stop - j - 1))});
    i_ = end == std::string_view::npos ? code_.size() : end + close.size();
  }

  Language lang_;
  std::string_view code_;
  std::size_t i_ = 0;
  std::vector<Token> tokens_;
};

std::string_view Last(std::string_view dotted) {
  std::size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

bool In(std::string_view word, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Calls that start a program, by the last part of their name.
bool IsApi(Language lang, std::string_view name, bool subprocess, bool child_process) {
  std::string_view last = Last(name);
  switch (lang) {
    case Language::kPython:
      if (In(last, {"system", "popen", "popen2", "popen3", "popen4", "execl", "execle", "execlp",
                     "execlpe", "execv", "execve", "execvp", "execvpe", "spawnl", "spawnle",
                     "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe",
                     "posix_spawn", "posix_spawnp", "startfile", "spawn", "getoutput",
                     "getstatusoutput", "Popen", "create_subprocess_exec",
                     "create_subprocess_shell"})) {
        return true;
      }
      return In(last, {"run", "call", "check_call", "check_output"}) && subprocess;
    case Language::kNode:
      if (In(name, {"Bun.spawn", "Bun.spawnSync", "Deno.run", "Deno.Command"})) return true;
      return In(last, {"exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync"}) &&
             child_process;
    case Language::kPerl:
      return In(last, {"system", "exec", "readpipe", "open2", "open3"});
    case Language::kRuby:
      return In(last, {"system", "exec", "spawn", "popen", "popen2", "popen2e", "popen3",
                       "capture2", "capture2e", "capture3", "pipeline"});
    case Language::kPhp:
      return In(last, {"system", "exec", "shell_exec", "passthru", "popen", "proc_open",
                       "pcntl_exec"});
    case Language::kAwk:
      return last == "system";
    case Language::kLua:
      return In(name, {"os.execute", "io.popen"});
    default:
      return In(last, {"system", "exec", "popen", "spawn"});
  }
}

// Names that compute code or reach an API by a computed name.
bool IsDynamic(Language lang, std::string_view name, bool qualified_call) {
  switch (lang) {
    case Language::kPython:
      return In(name, {"__import__", "importlib", "getattr", "globals", "vars", "__builtins__",
                       "ctypes", "runpy"}) ||
             name.find("__dict__") != std::string_view::npos ||
             name.starts_with("importlib.") || name.starts_with("ctypes.") ||
             (!qualified_call && In(name, {"eval", "exec", "compile"}));
    case Language::kNode:
      return In(name, {"eval", "Function", "process.binding", "process.dlopen", "globalThis",
                       "module.constructor", "vm"}) ||
             name.starts_with("vm.") || name.starts_with("process.binding");
    case Language::kPerl:
      return In(name, {"eval", "do", "require"});
    case Language::kRuby:
      return In(Last(name), {"eval", "instance_eval", "class_eval", "module_eval", "send",
                             "public_send", "__send__", "method", "const_get"});
    case Language::kPhp:
      return In(name, {"eval", "assert", "call_user_func", "call_user_func_array",
                       "create_function"});
    case Language::kLua:
      return In(name, {"load", "loadstring", "dofile", "_G", "_ENV", "loadfile"});
    default:
      return false;
  }
}

class Analyzer {
 public:
  Analyzer(Language lang, std::string_view code, std::vector<Token> tokens)
      : lang_(lang), t_(std::move(tokens)),
        subprocess_(code.find("subprocess") != std::string_view::npos),
        child_process_(code.find("child_process") != std::string_view::npos) {}

  CodeReport Run() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      const Token& token = t_[i];
      if (token.kind == Token::Kind::kString) report_.strings.push_back(token.text);
      if (token.kind == Token::Kind::kCommand) {
        report_.strings.push_back(token.text);
        Command(token, "backquotes");
        continue;
      }
      if (token.kind == Token::Kind::kPunct && (token.text == "|" || token.text == "|&") &&
          lang_ == Language::kAwk) {
        AwkPipe(i);
        continue;
      }
      if (token.kind == Token::Kind::kPunct && (token.text == "\n" || token.text == ";")) {
        import_ = false;
      }
      if (token.kind != Token::Kind::kIdent) continue;
      bool call = Next(i, "(");
      bool qualified = token.text.find('.') != std::string::npos;
      if (token.text == "import" || token.text == "from") import_ = true;
      if (IsDynamic(lang_, token.text, qualified) && !Definition(i)) {
        Dynamic("it uses " + token.text);
        continue;
      }
      if ((token.text == "require" || token.text == "import") && lang_ == Language::kNode && call) {
        // require("child_" + "process"): a module named at run time.
        if (!(i + 3 < t_.size() && t_[i + 2].kind == Token::Kind::kString &&
              !t_[i + 2].interpolated && t_[i + 3].text == ")")) {
          Dynamic("it loads a module named at run time");
        }
        continue;
      }
      if (lang_ == Language::kPerl && token.text == "open" && call) PerlOpen(i);
      if (!IsApi(lang_, token.text, subprocess_, child_process_) || Definition(i)) continue;
      report_.runs_programs = true;
      Site(i);
    }
    return std::move(report_);
  }

 private:
  bool Next(std::size_t i, std::string_view text) const {
    return i + 1 < t_.size() && t_[i + 1].kind == Token::Kind::kPunct && t_[i + 1].text == text;
  }

  // def system(...) / function exec(...) / sub system: a definition, not a use.
  bool Definition(std::size_t i) const {
    return i > 0 && t_[i - 1].kind == Token::Kind::kIdent &&
           In(t_[i - 1].text, {"def", "function", "sub", "local"});
  }

  void Dynamic(std::string why) {
    report_.runs_programs = true;
    if (!report_.dynamic) report_.why = std::move(why);
    report_.dynamic = true;
  }

  void Command(const Token& token, std::string_view how) {
    report_.runs_programs = true;
    if (token.interpolated) {
      Dynamic(std::string(how) + " run a command built at run time");
      return;
    }
    report_.commands.push_back(token.text);
  }

  // One call of a program-starting API at token i.
  void Site(std::size_t i) {
    const std::string& name = t_[i].text;
    std::size_t j = i + 1;
    bool parens = Next(i, "(");
    if (parens) {
      ++j;
    } else if (lang_ == Language::kPython || lang_ == Language::kNode) {
      // Not called here: imported (fine), or passed around under another name.
      bool imported = import_ && !(j < t_.size() && t_[j].text == "as");
      bool destructured = lang_ == Language::kNode && j < t_.size() &&
                          (t_[j].text == "}" || t_[j].text == ",");
      if (!imported && !destructured) Dynamic(name + " is used under another name");
      return;
    }
    // Arguments up to the closing parenthesis (or the statement's end).
    std::vector<std::pair<std::size_t, std::size_t>> args;
    int depth = 0;
    std::size_t start = j;
    // A call's arguments end within a bounded number of tokens: past it the
    // program is taken as computed (never a long scan per call).
    std::size_t limit = std::min(t_.size(), j + 512);
    for (; j < limit; ++j) {
      const std::string& x = t_[j].text;
      if (t_[j].kind != Token::Kind::kPunct) continue;
      if (x == "(" || x == "[" || x == "{") ++depth;
      if (x == ")" || x == "]" || x == "}") {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && x == ",") {
        args.emplace_back(start, j);
        start = j + 1;
      }
      if (!parens && depth == 0 && (x == ";" || x == "\n" || x == "}")) break;
    }
    args.emplace_back(start, j);
    // os.spawnlp(os.P_WAIT, "prog", ...): the mode comes first.
    std::size_t first = 0;
    if (lang_ == Language::kPython && Last(name).starts_with("spawn") && name != "pty.spawn") {
      first = 1;
    }
    if (lang_ == Language::kPerl && !parens && i + 1 < t_.size() && t_[i + 1].text == "{") {
      Dynamic(name + " { ... } names the program in code");  // exec { $x } ...
      return;
    }
    if (first >= args.size()) {
      Dynamic(name + " is called without its program");
      return;
    }
    auto [b, e] = args[first];
    if (e == b + 1 && t_[b].kind == Token::Kind::kString && !t_[b].interpolated) {
      report_.commands.push_back(t_[b].text);
      // system("prog", "arg", ...) as a list: the rest are its arguments.
      std::vector<std::string> argv = {t_[b].text};
      for (std::size_t k = first + 1; k < args.size(); ++k) {
        auto [ab, ae] = args[k];
        if (ae == ab + 1 && t_[ab].kind == Token::Kind::kString && !t_[ab].interpolated) {
          argv.push_back(t_[ab].text);
        } else {
          break;
        }
      }
      if (argv.size() > 1) report_.argvs.push_back(std::move(argv));
      return;
    }
    if (e > b + 1 && t_[b].text == "[" && t_[b + 1].kind == Token::Kind::kString &&
        !t_[b + 1].interpolated && b + 2 < t_.size() &&
        (t_[b + 2].text == "," || t_[b + 2].text == "]")) {
      std::vector<std::string> argv;
      for (std::size_t k = b + 1; k < e; k += 2) {
        if (t_[k].kind != Token::Kind::kString || t_[k].interpolated) break;
        argv.push_back(t_[k].text);
        if (k + 1 >= e || t_[k + 1].text != ",") break;
      }
      report_.argvs.push_back(std::move(argv));
      return;
    }
    if (e == b + 1 && t_[b].kind == Token::Kind::kCommand) return;  // read as backquotes
    Dynamic("the program " + name + " starts is computed when it runs");
  }

  // awk: "cmd" | getline, print ... | "cmd".
  void AwkPipe(std::size_t i) {
    report_.runs_programs = true;
    if (i + 1 < t_.size() && t_[i + 1].kind == Token::Kind::kString) {
      Command(t_[i + 1], "awk's |");
      return;
    }
    if (i + 1 < t_.size() && t_[i + 1].text == "getline" && i > 0 &&
        t_[i - 1].kind == Token::Kind::kString) {
      Command(t_[i - 1], "awk's | getline");
      return;
    }
    Dynamic("awk pipes to or from a command built at run time");
  }

  // open(F, "-|", "cmd") / open(F, "cmd |"): a command, not a file.
  void PerlOpen(std::size_t i) {
    std::size_t limit = std::min(t_.size(), i + 64);
    for (std::size_t j = i + 2; j < limit && t_[j].text != ")" && t_[j].text != ";"; ++j) {
      if (t_[j].kind != Token::Kind::kString) continue;
      const std::string& s = t_[j].text;
      if (s == "-|" || s == "|-") {
        report_.runs_programs = true;
        if (j + 2 < t_.size() && t_[j + 1].text == "," && t_[j + 2].kind == Token::Kind::kString &&
            !t_[j + 2].interpolated) {
          report_.commands.push_back(t_[j + 2].text);
        } else {
          Dynamic("open runs a command built at run time");
        }
        return;
      }
      if (s.starts_with("|") || s.ends_with("|")) {
        Token command = t_[j];
        command.text.erase(std::remove(command.text.begin(), command.text.end(), '|'),
                           command.text.end());
        Command(command, "open");
        return;
      }
    }
  }

  Language lang_;
  std::vector<Token> t_;
  bool subprocess_;
  bool child_process_;
  CodeReport report_;
  bool import_ = false;
};

}  // namespace

CodeReport AnalyzeInterpreterCode(Language language, std::string_view code) {
  return Analyzer(language, code, Lexer(language, code).Run()).Run();
}

}  // namespace corral::policy
