// sed scripts, makefiles and m4 input: the shell commands they run.
#include "policy/matcher/tool_scripts.h"

#include <algorithm>

#include "policy/matcher/script_text.h"

namespace corral::policy {
namespace {

using namespace script_text;

// ---------------------------------------------------------------- sed

class SedReader {
 public:
  explicit SedReader(std::string_view s) : s_(s) {}

  ScriptCommands Run() {
    for (std::size_t guard = 0; guard <= s_.size() && i_ < s_.size(); ++guard) {
      while (i_ < s_.size() && (Blank(s_[i_]) || s_[i_] == ';' || s_[i_] == '\n')) ++i_;
      if (i_ >= s_.size()) break;
      Addresses();
      Skip();
      while (i_ < s_.size() && s_[i_] == '!') {
        ++i_;
        Skip();
      }
      if (i_ >= s_.size() || !Command(s_[i_++])) break;
    }
    return std::move(out_);
  }

 private:
  void Skip() {
    while (i_ < s_.size() && Blank(s_[i_])) ++i_;
  }
  std::string_view Line() {
    std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    return s_.substr(start, i_ - start);
  }
  void Label() {
    while (i_ < s_.size() && s_[i_] != ';' && s_[i_] != '\n') ++i_;
  }
  // Up to `delim`, undoing \delim; false when it never closes.
  bool Part(char delim, std::string* text) {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\\' && i_ + 1 < s_.size()) {
        if (text) {
          *text += c;
          *text += s_[i_ + 1];
        }
        i_ += 2;
        continue;
      }
      ++i_;
      if (c == delim) return true;
      if (text) *text += c;
    }
    return false;
  }
  void Addresses() {
    for (int a = 0; a < 2; ++a) {
      if (i_ >= s_.size()) return;
      char c = s_[i_];
      if (Digit(c)) {
        while (i_ < s_.size() && (Digit(s_[i_]) || s_[i_] == '~')) ++i_;
      } else if (c == '$') {
        ++i_;
      } else if (c == '/' || (c == '\\' && i_ + 1 < s_.size())) {
        char delim = c == '/' ? '/' : s_[i_ + 1];
        i_ += c == '/' ? 1 : 2;
        Part(delim, nullptr);
        while (i_ < s_.size() && (s_[i_] == 'I' || s_[i_] == 'M')) ++i_;
      } else {
        return;
      }
      Skip();
      if (a == 1 || i_ >= s_.size() || s_[i_] != ',') return;
      ++i_;
      Skip();
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '~')) {
        ++i_;
        while (i_ < s_.size() && Digit(s_[i_])) ++i_;
        return;
      }
    }
  }
  // One command; false when the script stops making sense (sed would fail).
  bool Command(char c) {
    switch (c) {
      case '{': case '}': case '=': case 'd': case 'D': case 'g': case 'G': case 'h':
      case 'H': case 'x': case 'n': case 'N': case 'p': case 'P': case 'z': case 'F':
        return true;
      case '#': case 'r': case 'R': case 'w': case 'W':
        Line();
        return true;
      case ':': case 'b': case 't': case 'T': case 'v':
        Label();
        return true;
      case 'l': case 'L': case 'q': case 'Q':
        Skip();
        while (i_ < s_.size() && Digit(s_[i_])) ++i_;
        return true;
      case 'a': case 'i': case 'c':
        // Text to the end of the line; a trailing backslash continues it.
        while (i_ < s_.size()) {
          std::string_view line = Line();
          if (!line.ends_with('\\') || i_ >= s_.size()) break;
          ++i_;
        }
        return true;
      case 'e': {
        Skip();
        std::string_view command = Trim(Line());
        if (command.empty()) {
          Unknown(out_, "sed's e runs the text it reads as a command");
        } else {
          out_.shell.emplace_back(command);
        }
        return true;
      }
      case 'y': {
        if (i_ >= s_.size()) return false;
        char delim = s_[i_++];
        return Part(delim, nullptr) && Part(delim, nullptr);
      }
      case 's':
        return Substitute();
      default:
        return false;
    }
  }
  bool Substitute() {
    if (i_ >= s_.size() || s_[i_] == '\n' || s_[i_] == '\\') return false;
    char delim = s_[i_++];
    std::string regex;
    std::string replacement;
    if (!Part(delim, &regex) || !Part(delim, &replacement)) return false;
    bool exec = false;
    while (i_ < s_.size()) {
      char f = s_[i_];
      if (f == 'w') {
        Line();
        break;
      }
      if (f == 'e') exec = true;
      if (!(Digit(f) || f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' ||
            f == 'e')) {
        break;
      }
      ++i_;
    }
    if (!exec) return true;
    // s/RE/REPL/e runs the line after the substitution: REPL, with & and
    // \1 standing for matched input.
    std::string command;
    for (std::size_t k = 0; k < replacement.size(); ++k) {
      char r = replacement[k];
      if (r == '&') {
        command += "$__";
      } else if (r == '\\' && k + 1 < replacement.size()) {
        char e = replacement[++k];
        command += Digit(e) ? std::string("$__") : e == 'n' ? std::string("\n") : std::string(1, e);
      } else {
        command += r;
      }
    }
    out_.shell.push_back(command);
    bool whole = regex == ".*" || regex == "^.*" || regex == ".*$" || regex == "^.*$";
    if (!whole) Unknown(out_, "sed's s///e runs input text around the replacement");
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  ScriptCommands out_;
};

// ---------------------------------------------------------------- make

// A recipe line as the shell gets it: make's $(VAR), ${VAR} and $@ are
// unknown words; $$ is $.
std::string RecipeShell(std::string_view line) {
  line = Trim(line);
  while (!line.empty() && (line.front() == '@' || line.front() == '-' || line.front() == '+')) {
    line.remove_prefix(1);
    line = Trim(line);
  }
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '$' || i + 1 >= line.size()) {
      out += line[i];
      continue;
    }
    char n = line[i + 1];
    if (n == '$') {
      out += '$';
      ++i;
    } else if (n == '(' || n == '{') {
      std::string_view inner = Balanced(line, i + 1, n, n == '(' ? ')' : '}');
      out += "$__";
      i += inner.size() + 2;
    } else {
      out += "$__";
      ++i;
    }
  }
  return out;
}

void ShellFunctions(std::string_view text, ScriptCommands& out, int depth) {
  for (std::string_view open : {"$(shell ", "${shell ", "$(shell\t"}) {
    int places = 0;
    for (std::size_t at = text.find(open); at != std::string_view::npos;
         at = text.find(open, at + 1)) {
      if (++places > kMaxPlaces) {
        Unknown(out, "the makefile calls $(shell) in too many places to read");
        return;
      }
      std::string_view inner = Balanced(text, at + 1, open[1], open[1] == '(' ? ')' : '}');
      out.shell.push_back(RecipeShell(inner.substr(6)));
      if (depth < 4) ShellFunctions(inner.substr(6), out, depth + 1);
    }
  }
}

void MakefileInto(std::string_view text, ScriptCommands& out, int depth) {
  if (text.find(".RECIPEPREFIX") != std::string_view::npos) {
    Unknown(out, "the makefile changes its recipe prefix");
  }
  ShellFunctions(text, out, 0);
  bool in_rule = false;
  std::string joined;
  std::size_t pos = 0;
  while (pos < text.size()) {
    // A logical line: backslash-newline joins.
    joined.clear();
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      std::string_view part = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
      if (part.ends_with('\\')) {
        joined.append(part.substr(0, part.size() - 1)).append(" ");
        continue;
      }
      joined.append(part);
      break;
    }
    std::string_view line = joined;
    if (line.starts_with('\t') && in_rule) {
      out.shell.push_back(RecipeShell(line.substr(1)));
      continue;
    }
    std::string_view stripped = Trim(line);
    if (stripped.empty() || stripped.starts_with('#')) continue;
    for (std::string_view prefix : {"export ", "override ", "private "}) {
      if (stripped.starts_with(prefix)) stripped = Trim(stripped.substr(prefix.size()));
    }
    std::size_t name_end = 0;
    while (name_end < stripped.size() &&
           (Letter(stripped[name_end]) || Digit(stripped[name_end]) || stripped[name_end] == '_' ||
            stripped[name_end] == '.')) {
      ++name_end;
    }
    std::string_view name = stripped.substr(0, name_end);
    std::string_view after = Trim(stripped.substr(name_end));
    std::size_t op = 0;
    for (std::string_view assign : {"::=", ":::=", ":=", "?=", "+=", "!=", "="}) {
      if (after.starts_with(assign)) {
        op = assign.size();
        break;
      }
    }
    if (op > 0 && !name.empty()) {
      in_rule = false;
      std::string_view value = Trim(after.substr(op));
      if (name == "SHELL" || name == "MAKESHELL") out.programs.emplace_back(value);
      if (after.starts_with("!=")) out.shell.push_back(RecipeShell(value));  // runs now
      continue;
    }
    if (stripped.starts_with("define ") || stripped.starts_with("endef")) {
      in_rule = false;
      continue;
    }
    if (depth < 2 && stripped.find("$(eval ") != std::string_view::npos) {
      std::size_t at = stripped.find("$(eval ");
      MakefileInto(Balanced(stripped, at + 1, '(', ')').substr(5), out, depth + 1);
    }
    std::size_t colon = stripped.find(':');
    if (colon != std::string_view::npos) {
      in_rule = true;
      std::size_t semi = stripped.find(';', colon);
      if (semi != std::string_view::npos) out.shell.push_back(RecipeShell(stripped.substr(semi + 1)));
    }
  }
}

}  // namespace

ScriptCommands SedScriptCommands(std::string_view script) { return SedReader(script).Run(); }

ScriptCommands MakefileCommands(std::string_view text) {
  ScriptCommands out;
  MakefileInto(text, out, 0);
  return out;
}

ScriptCommands M4Commands(std::string_view text) {
  ScriptCommands out;
  int places = 0;
  for (std::size_t at = text.find("syscmd"); at != std::string_view::npos;
       at = text.find("syscmd", at + 1)) {
    if (++places > kMaxPlaces) {
      Unknown(out, "m4's syscmd is used in too many places to read");
      break;
    }
    std::size_t open = at + 6;
    if (open >= text.size() || text[open] != '(') {
      Unknown(out, "m4's syscmd is used without its argument in place");
      continue;
    }
    std::string command;
    for (char c : Balanced(text, open, '(', ')')) {
      if (c != '`' && c != '\'') command += c;
    }
    out.shell.push_back(command);
  }
  return out;
}

}  // namespace corral::policy
