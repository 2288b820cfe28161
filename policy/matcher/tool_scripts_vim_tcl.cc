// Vim's Ex commands and Tcl (expect, tclsh): the shell commands and
// programs they run.
#include <algorithm>
#include <initializer_list>

#include "policy/matcher/script_text.h"
#include "policy/matcher/tool_scripts.h"

namespace corral::policy {
namespace {

using namespace script_text;

// ---------------------------------------------------------------- vim

bool AbbreviationOf(std::string_view word, std::string_view full, std::size_t shortest) {
  return word.size() >= shortest && word.size() <= full.size() && full.starts_with(word);
}

void VimCommand(std::string_view c, ScriptCommands& out, int depth);

// system("...") and friends anywhere in an Ex command.
void VimFunctionCalls(std::string_view c, ScriptCommands& out) {
  for (std::string_view call : {"system(", "systemlist(", "job_start(", "jobstart(",
                                "term_start(", "termopen("}) {
    int places = 0;
    for (std::size_t at = c.find(call); at != std::string_view::npos; at = c.find(call, at + 1)) {
      if (++places > kMaxPlaces) {
        Unknown(out, "a Vim command calls system() in too many places to read");
        return;
      }
      std::size_t arg = at + call.size();
      while (arg < c.size() && Blank(c[arg])) ++arg;
      if (arg < c.size() && (c[arg] == '"' || c[arg] == '\'')) {
        std::size_t close = c.find(c[arg], arg + 1);
        std::size_t after = close == std::string_view::npos ? c.size() : close + 1;
        while (after < c.size() && Blank(c[after])) ++after;
        if (close != std::string_view::npos && after < c.size() && (c[after] == ')' || c[after] == ',')) {
          out.shell.emplace_back(c.substr(arg + 1, close - arg - 1));
          continue;
        }
      }
      Unknown(out, "a Vim command runs a command built at run time");
    }
  }
}

void VimCommand(std::string_view c, ScriptCommands& out, int depth) {
  c = Trim(c);
  while (!c.empty() && (c.front() == ':' || Blank(c.front()))) c.remove_prefix(1);
  // A range: line numbers, marks, patterns.
  for (std::size_t guard = 0; !c.empty() && guard < 64; ++guard) {
    char f = c.front();
    if (Digit(f) || f == '.' || f == ',' || f == ';' || f == '$' || f == '%' || f == '+' ||
        f == '-' || Blank(f)) {
      c.remove_prefix(1);
    } else if (f == '\'' && c.size() > 1) {
      c.remove_prefix(2);
    } else if ((f == '/' || f == '?') && c.size() > 1) {
      std::size_t close = c.find(f, 1);
      c.remove_prefix(close == std::string_view::npos ? c.size() : close + 1);
    } else {
      break;
    }
  }
  if (c.starts_with('!')) {
    out.shell.emplace_back(c.substr(1));
    return;
  }
  std::size_t n = 0;
  while (n < c.size() && Letter(c[n])) ++n;
  std::string_view name = c.substr(0, n);
  bool bang = n < c.size() && c[n] == '!';
  std::string_view after = Trim(c.substr(n + (bang ? 1 : 0)));
  VimFunctionCalls(c, out);
  if ((AbbreviationOf(name, "read", 1) || AbbreviationOf(name, "write", 1)) && !bang &&
      after.starts_with('!')) {
    out.shell.emplace_back(after.substr(1));
  } else if (AbbreviationOf(name, "shell", 2) || AbbreviationOf(name, "terminal", 3)) {
    Unknown(out, "a Vim command starts a shell");
  } else if (name.starts_with("py") || name == "pythonx" || name == "pyx") {
    out.code.emplace_back("python3", std::string(after));
  } else if (name.starts_with("lua")) {
    out.code.emplace_back("lua", std::string(after));
  } else if (name.starts_with("perl")) {
    out.code.emplace_back("perl", std::string(after));
  } else if (name.starts_with("rub")) {
    out.code.emplace_back("ruby", std::string(after));
  } else if (name.starts_with("tcl")) {
    out.code.emplace_back("tclsh", std::string(after));
  } else if (name.starts_with("mz")) {
    Unknown(out, "a Vim command runs Scheme code");
  } else if (AbbreviationOf(name, "execute", 3)) {
    if (after.find_first_of("!") != std::string_view::npos ||
        after.find("system") != std::string_view::npos) {
      Unknown(out, "Vim's :execute builds a command");
    }
  } else if (AbbreviationOf(name, "normal", 4)) {
    if (after.find_first_of("!:") != std::string_view::npos) {
      Unknown(out, "Vim's :normal keys can run a command");
    }
  } else if ((AbbreviationOf(name, "global", 1) || AbbreviationOf(name, "vglobal", 1)) &&
             !after.empty() && depth < 4) {
    char delim = after.front();
    std::size_t close = after.find(delim, 1);
    if (close != std::string_view::npos) VimCommand(after.substr(close + 1), out, depth + 1);
  } else if (AbbreviationOf(name, "set", 2) || name == "setl" || name == "setlocal" ||
             name == "setg" || name == "setglobal" || AbbreviationOf(name, "let", 3)) {
    for (std::string_view option : {"shell", "sh", "makeprg", "mp", "grepprg", "gp", "equalprg",
                                    "ep", "formatprg", "fp", "keywordprg", "kp"}) {
      for (std::string_view sep : {"=", ":"}) {
        std::string needle = std::string(option) + std::string(sep);
        for (std::size_t at = after.find(needle); at != std::string_view::npos;
             at = after.find(needle, at + 1)) {
          if (at > 0 && (Letter(after[at - 1]))) continue;
          std::string value;
          for (std::size_t k = at + needle.size(); k < after.size() && !Blank(after[k]); ++k) {
            if (after[k] == '\\' && k + 1 < after.size()) ++k;
            value += after[k];
          }
          if (!value.empty() && (value.front() == '\'' || value.front() == '"')) {
            value = value.substr(1, value.size() > 1 ? value.size() - 2 : 0);
          }
          if (option == "shell" || option == "sh") {
            out.programs.push_back(value);
          } else {
            out.shell.push_back(value);
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- tcl

struct TclWord {
  std::string text;
  bool known = true;   // no $var or [command] in it
  bool braced = false;
};

class TclReader {
 public:
  TclReader(std::string_view text, ScriptCommands& out, int depth)
      : s_(text), out_(out), depth_(depth) {}

  void Run() {
    std::vector<TclWord> words;
    for (std::size_t guard = 0; guard <= s_.size() && i_ < s_.size(); ++guard) {
      char c = s_[i_];
      if (Blank(c) || c == '\r') {
        ++i_;
      } else if (c == ';' || c == '\n') {
        ++i_;
        Command(words);
        words.clear();
      } else if (c == '#' && words.empty()) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        words.push_back(Word());
      }
    }
    Command(words);
  }

 private:
  TclWord Word() {
    TclWord word;
    if (s_[i_] == '{') {
      std::string_view inner = Balanced(s_, i_, '{', '}');
      word.text = inner;
      word.braced = true;
      i_ += inner.size() + 2;
      return word;
    }
    bool quoted = s_[i_] == '"';
    if (quoted) ++i_;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (quoted ? c == '"' : (Blank(c) || c == ';' || c == '\n')) break;
      if (c == '\\' && i_ + 1 < s_.size()) {
        word.text += s_[i_ + 1];
        i_ += 2;
        continue;
      }
      if (c == '[') {
        std::string_view inner = Balanced(s_, i_, '[', ']');
        if (depth_ < 8) TclReader(inner, out_, depth_ + 1).Run();
        word.known = false;
        i_ += inner.size() + 2;
        continue;
      }
      if (c == '$') word.known = false;
      word.text += c;
      ++i_;
    }
    if (quoted && i_ < s_.size()) ++i_;
    return word;
  }

  // The program and its words, as one shell-quoted line.
  void Program(const std::vector<TclWord>& words, std::size_t from, std::size_t to) {
    if (from >= to) return;
    if (!words[from].known) {
      Unknown(out_, "Tcl code runs a program named at run time");
      return;
    }
    std::string line;
    for (std::size_t k = from; k < to; ++k) {
      if (!line.empty()) line += ' ';
      if (!words[k].known) {
        line += "$__";
        continue;
      }
      line += '\'';
      for (char c : words[k].text) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += '\'';
    }
    out_.shell.push_back(line);
  }

  void Command(const std::vector<TclWord>& words) {
    if (words.empty()) return;
    for (const TclWord& word : words) {
      // Bodies of if/while/proc/catch/after ...: code too.
      if (word.braced && depth_ < 8 && &word != &words.front()) {
        TclReader(word.text, out_, depth_ + 1).Run();
      }
    }
    std::string_view name = words[0].text;
    std::size_t k = 1;
    if (name == "spawn") {
      while (k < words.size() && words[k].text.starts_with("-")) {
        bool takes = OneOfView(words[k].text, {"-ignore", "-open", "-leaveopen"});
        k += takes ? 2 : 1;
      }
      Program(words, k, words.size());
    } else if (name == "exec") {
      while (k < words.size() && words[k].text.starts_with("-")) {
        if (words[k].text == "--") {
          ++k;
          break;
        }
        ++k;
      }
      std::size_t start = k;
      for (; k <= words.size(); ++k) {
        if (k == words.size() || words[k].text == "|" || words[k].text == "|&") {
          Program(words, start, k);
          start = k + 1;
        }
      }
    } else if (name == "system") {
      std::string line;
      for (; k < words.size(); ++k) {
        if (!line.empty()) line += ' ';
        line += words[k].known ? words[k].text : std::string("$__");
      }
      out_.shell.push_back(line);
    } else if (name == "open" && k < words.size() && words[k].text.starts_with("|")) {
      if (!words[k].known) {
        Unknown(out_, "Tcl opens a pipe to a command named at run time");
      } else {
        TclReader(std::string_view(words[k].text).substr(1), out_, depth_ + 1).RunAsWords();
      }
    } else if (OneOfView(name, {"eval", "uplevel", "subst"}) &&
               std::any_of(words.begin() + 1, words.end(), [](const TclWord& w) { return !w.known; })) {
      Unknown(out_, "Tcl evaluates code built at run time");
    }
  }

  // "|prog args" in open: the words are one program.
  void RunAsWords() {
    std::vector<TclWord> words;
    while (i_ < s_.size()) {
      if (Blank(s_[i_])) {
        ++i_;
        continue;
      }
      words.push_back(Word());
    }
    Program(words, 0, words.size());
  }

  static bool OneOfView(std::string_view word, std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), word) != list.end();
  }

  std::string_view s_;
  std::size_t i_ = 0;
  ScriptCommands& out_;
  int depth_;
};

}  // namespace

ScriptCommands VimCommands(std::string_view text) {
  ScriptCommands out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    // | separates commands, except where a command takes the rest of the
    // line: !, :r !, :normal, :global, :execute.
    std::size_t start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i) {
      bool end = i == line.size() || (line[i] == '|' && (i == 0 || line[i - 1] != '\\'));
      if (!end) continue;
      std::string_view head = Trim(line.substr(start, 64));  // the command's name is near
      while (!head.empty() && (head.front() == ':' || Digit(head.front()) ||
                               std::string_view(".,;$%+-").find(head.front()) != std::string_view::npos)) {
        head.remove_prefix(1);
      }
      std::size_t n = 0;
      while (n < head.size() && Letter(head[n])) ++n;
      std::string_view name = head.substr(0, n);
      std::string_view rest = Trim(head.substr(n));
      bool takes_rest = head.starts_with('!') ||
                        ((AbbreviationOf(name, "read", 1) || AbbreviationOf(name, "write", 1)) &&
                         rest.starts_with('!')) ||
                        AbbreviationOf(name, "normal", 4) || AbbreviationOf(name, "global", 1) ||
                        AbbreviationOf(name, "vglobal", 1) || AbbreviationOf(name, "execute", 3);
      if (takes_rest) {
        VimCommand(line.substr(start), out, 0);
        break;
      }
      VimCommand(line.substr(start, i - start), out, 0);
      start = i + 1;
    }
  }
  return out;
}

ScriptCommands TclCommands(std::string_view text) {
  ScriptCommands out;
  TclReader(text, out, 0).Run();
  return out;
}

}  // namespace corral::policy
