// What earlier commands in the line set up for later ones: assignments,
// loop variables, functions and their arguments (files are in
// walker_files.cc).
#include <algorithm>

#include "policy/shell/shell.h"
#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/command_walker.h"

namespace corral::policy {
namespace {

using shell::kExpansionMark;

constexpr std::size_t kMaxBraceWords = 256;  // words one brace expansion may make
constexpr std::size_t kMaxFunctions = 64;
constexpr int kMaxCallDepth = 16;
constexpr int kMaxPromptDepth = 4;
constexpr std::size_t kMaxArgs = 4096;

bool IsPositional(std::string_view var) {
  if (var == "@" || var == "*") return true;
  return !var.empty() && var.size() <= 4 && var != "0" &&
         std::all_of(var.begin(), var.end(), shell::IsDigit);
}

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// Variables whose value a program runs as shell code.
bool IsCodeVariable(std::string_view name) {
  return OneOf(name, {"GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR",
                      "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "EDITOR",
                      "VISUAL", "PAGER", "MANPAGER", "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE",
                      "SUDO_EDITOR", "SYSTEMD_PAGER", "BROWSER", "FCEDIT", "GIT_PROXY_COMMAND"});
}

// npm reads its configuration from the environment in any case.
bool IsScriptShellVariable(std::string_view name) {
  static constexpr std::string_view kName = "npm_config_script_shell";
  if (name.size() != kName.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i] >= 'A' && name[i] <= 'Z' ? static_cast<char>(name[i] - 'A' + 'a') : name[i];
    if (c != kName[i]) return false;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------- words

void Walker::BuildArgs(const shell::SimpleCommand& command, const Ctx& ctx,
                       std::vector<Arg>* args) {
  args->reserve(command.words.size());
  for (const shell::Word& word : command.words) {
    Arg arg;
    arg.text = word.text;
    arg.flags = word.flags;
    arg.var = word.var;
    arg.raw_begin = word.begin;
    arg.raw_end = word.end;
    std::tie(arg.begin, arg.end) = command.origin->Map(word.begin, word.end);
    // "$@" splices in a call's arguments; a bounded number of words.
    if (IsPositional(word.var) && args->size() < kMaxArgs &&
        ExpandPositional(word, arg, ctx, args)) {
      continue;
    }
    if (!(word.flags & shell::kBrace)) {
      args->push_back(arg);
      continue;
    }
    std::vector<std::string> expanded;
    if (!ExpandBraces(word.text, kMaxBraceWords, &expanded)) {
      // Too many words to list: treat it as a pattern of unknown words.
      ctx.storage->push_front(RestoreBraceMarks(word.text) + kExpansionMark);
      arg.text = ctx.storage->front();
      arg.flags = (arg.flags & ~shell::kBrace) | shell::kExpansion | shell::kUnquotedExpansion;
      args->push_back(arg);
      continue;
    }
    for (std::string& text : expanded) {
      ctx.storage->push_front(std::move(text));
      Arg piece = arg;
      piece.text = ctx.storage->front();
      piece.flags &= ~shell::kBrace;
      if (piece.text.find(kExpansionMark) == std::string_view::npos) {
        piece.flags &= ~(shell::kExpansion | shell::kUnquotedExpansion);
        piece.var = {};
      }
      if (piece.text.find_first_of("*?[") == std::string_view::npos) piece.flags &= ~shell::kGlob;
      args->push_back(piece);
    }
  }
}

const Frame* Walker::CurrentFrame() const {
  static const Frame kDeferred{Frame::Mode::kDeferred, {}};
  if (line_.in_definition) return &kDeferred;
  return line_.frames.empty() ? nullptr : &line_.frames.back();
}

bool Walker::TopLevelFrame(const Ctx& ctx, Frame* frame) const {
  // Like X=ls; $X: the set ran alone at the top level, in an earlier
  // pipeline of the shell itself (not one of several commands, not with &).
  const TopPositional& top = line_.top_positional;
  if (!top.known || line_.vars.all_unknown() || top.pipeline == ctx.command->pipeline_id ||
      state_.InSubshell(top.pipeline)) {
    return false;
  }
  frame->mode = Frame::Mode::kBound;
  frame->params.assign(top.params.begin(), top.params.end());
  return true;
}

bool Walker::ExpandPositional(const shell::Word& word, const Arg& arg, const Ctx& ctx,
                              std::vector<Arg>* args) {
  // "$@", $1, "$*" where the parameters are known: a function's arguments,
  // bash -c's operands, the line's own `set --`. Unknown ones stay unknown words.
  const Frame* frame = CurrentFrame();
  Frame top;
  if (frame == nullptr && TopLevelFrame(ctx, &top)) {
    frame = &top;
    if (!positional_used_) positional_used_.emplace(arg.begin, arg.end);
  }
  if (frame == nullptr || frame->mode == Frame::Mode::kUnknown) return false;
  const bool quoted = !(word.flags & shell::kUnquotedExpansion);
  const std::string_view var = word.var;
  auto known = [&](std::string_view text) {
    ctx.storage->push_front(std::string(text));
    Arg piece = arg;
    piece.text = ctx.storage->front();
    piece.flags = shell::kQuoted;
    piece.var = {};
    args->push_back(piece);
  };
  auto one = [&](const std::optional<std::string>& value) {
    if (!value) {
      args->push_back(arg);
    } else if (quoted) {
      known(*value);
    } else if (value->find_first_of("*?[") != std::string::npos) {
      args->push_back(arg);  // a pattern once split
    } else {
      for (std::size_t i = 0; i < value->size();) {
        while (i < value->size() && Blank((*value)[i])) ++i;
        std::size_t start = i;
        while (i < value->size() && !Blank((*value)[i])) ++i;
        if (i > start) known(std::string_view(*value).substr(start, i - start));
      }
    }
  };
  if (frame->mode == Frame::Mode::kDeferred) {
    if (quoted && var != "@") known("");
    return true;
  }
  if (var == "*" && quoted) {
    std::string joined;
    for (const auto& value : frame->params) {
      if (!value) {
        args->push_back(arg);
        return true;
      }
      if (!joined.empty()) joined += ' ';
      joined += *value;
    }
    known(joined);
    return true;
  }
  if (var == "@" || var == "*") {
    for (const auto& value : frame->params) one(value);
    return true;
  }
  std::size_t index = 0;
  for (char c : var) index = index * 10 + static_cast<std::size_t>(c - '0');
  if (index > frame->params.size()) {
    if (quoted) known("");
    return true;
  }
  one(frame->params[index - 1]);
  return true;
}

// ---------------------------------------------------------------- functions

void Walker::OnFunction(const shell::Word& name, std::string_view source, std::size_t begin,
                        std::size_t end, const shell::Origin& origin) {
  if (!name.literal() || state_.aborted()) return;
  std::string_view body = source.substr(begin, end - begin);
  for (const FunctionDef& known : functions_) {
    if (known.name == name.text && known.body == body) return;
  }
  if (functions_.size() >= kMaxFunctions) {
    Arg where;
    std::tie(where.begin, where.end) = origin.Map(name.begin, name.end);
    Undetermined("the line defines more than " + std::to_string(kMaxFunctions) + " functions",
                 &where);
    return;
  }
  functions_.push_back({name.text, std::string(body), shell::Origin{}});
  FunctionDef& function = functions_.back();
  function.origin = origin.Nested(source, begin, end, function.body);
  // Called before it was defined (in a loop): the body runs with arguments
  // that were never bound here.
  if (called_.Contains(name.text)) {
    line_.frames.push_back(Frame{Frame::Mode::kUnknown, {}});
    bool saved = line_.in_definition;
    line_.in_definition = false;
    shell::ParseShell(function.body, function.origin, *this, state_, depth_hint_ + 1);
    line_.in_definition = saved;
    line_.frames.pop_back();
  }
}

void Walker::CallFunction(const FunctionDef& function, std::span<const Arg> args, const Ctx& ctx) {
  if (call_depth_ >= kMaxCallDepth) {
    Undetermined("functions call one another more than " + std::to_string(kMaxCallDepth) +
                     " deep",
                 &args[0]);
    return;
  }
  Frame frame{ctx.appended ? Frame::Mode::kUnknown : Frame::Mode::kBound, {}};
  for (const Arg& arg : args.subspan(1)) {
    bool placeholder = !line_.active_replace.empty() &&
                       arg.text.find(line_.active_replace) != std::string_view::npos;
    if (arg.literal() && !placeholder) {
      frame.params.emplace_back(std::string(arg.text));
    } else {
      frame.params.emplace_back(std::nullopt);
    }
  }
  line_.frames.push_back(std::move(frame));
  ++call_depth_;
  bool saved = line_.in_definition;
  line_.in_definition = false;
  shell::ParseShell(function.body, function.origin, *this, state_, ctx.command->depth + 1);
  line_.in_definition = saved;
  --call_depth_;
  line_.frames.pop_back();
}

// ---------------------------------------------------------------- variables

void Walker::RecordAssignment(const Arg& word, const Ctx& ctx, bool persists) {
  std::string_view text = word.text;
  std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) return;
  std::string_view name = text.substr(0, eq);
  bool append = !name.empty() && name.back() == '+';
  if (append) name.remove_suffix(1);
  std::string_view value = text.substr(eq + 1);
  std::size_t bracket = name.find('[');
  std::string_view base = name.substr(0, bracket);
  if (base == "PATH") path_changed_ = true;

  if (base == "BASH_ALIASES" || base == "BASH_CMDS") {
    // BASH_ALIASES[x]=CODE defines an alias, BASH_CMDS[x]=PATH hashes one.
    std::vector<std::string> values;
    if (word.flags & shell::kArray) {
      std::string_view raw = ctx.command->source.substr(
          word.raw_begin, word.raw_end - std::min(word.raw_end, word.raw_begin));
      std::size_t open = raw.find('(');
      if (open != std::string_view::npos) {
        for (std::string& element : SplitEnvString(raw.substr(open + 1, raw.rfind(')') - open - 1))) {
          std::size_t set = element.find("]=");
          values.push_back(set == std::string::npos ? element : element.substr(set + 2));
        }
      }
    } else {
      values.emplace_back(value);
    }
    for (const std::string& one : values) {
      if (base == "BASH_CMDS") {
        ProgramValue(word, one, ctx);
      } else {
        ctx.storage->push_front(one);
        Arg code = word;
        code.text = ctx.storage->front();
        ParseCodeArg("an alias", code, 0, ctx);
      }
    }
  } else if (base.starts_with("BASH_FUNC_")) {
    // env 'BASH_FUNC_f%%=() { ...; }' bash: a function the next bash imports.
    std::string_view function = base.substr(10);
    while (!function.empty() && (function.back() == '%' || function.back() == ')' ||
                                 function.back() == '(')) {
      function.remove_suffix(1);
    }
    std::string code = (shell::IsName(function) ? std::string(function) : std::string("f")) + " " +
                       std::string(value);
    ctx.storage->push_front(std::move(code));
    Arg arg = word;
    arg.text = ctx.storage->front();
    ParseCodeArg("an imported function", arg, 0, ctx);
  } else if (IsCodeVariable(base)) {
    // Lenient: an expansion inside stands for an unknown word, not for
    // unknown code, so GIT_SSH_COMMAND="ssh -i $KEY" stays readable.
    std::string code;
    for (char c : value) {
      if (c == kExpansionMark) {
        code += "$__";
      } else {
        code += c;
      }
    }
    ParseText(code, word.raw_begin, word.raw_end, ctx);
  } else if (base == "SHELL" || IsScriptShellVariable(base)) {
    ProgramValue(word, value, ctx);
  } else if (OneOf(base, {"PS0", "PS1", "PS2", "PS4", "BASH_ENV", "ENV"})) {
    // Expanded when a shell uses them: $(...) in the value runs.
    ExpandPrompt(value, word.begin, word.end);
    if ((base == "BASH_ENV" || base == "ENV") && word.literal()) {
      RunWrittenFile(value, true, Language::kShell, word, ctx);
    }
  } else if (OneOf(base, {"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"})) {
    if (word.literal()) {
      if (const WrittenFile* file = line_.files.Find(value, true);
          file != nullptr && file->kind == WrittenFile::Kind::kText) {
        GitConfigText(*this, word, file->content, ctx);
      }
    }
  }

  // An array's value is its elements, each ended by a NUL (the parser's
  // form); kept for names that are only data.
  bool special = base == "PATH" || base == "IFS" || base == "SHELL" || base.starts_with("BASH") ||
                 base.starts_with("GIT_") || IsCodeVariable(base) || IsScriptShellVariable(base);
  if (!word.literal() || value.find(kExpansionMark) != std::string_view::npos || append ||
      bracket != std::string_view::npos ||
      ((word.flags & shell::kArray) && (special || !(word.flags & shell::kListArray)))) {
    line_.vars.MarkUnknown(base);
    return;
  }
  std::uint32_t pipeline = persists && ctx.command->top_level ? ctx.command->pipeline_id : 0;
  line_.vars.Assign(base, value, pipeline);
}

void Walker::MarkWritten(std::span<const Arg> names) {
  for (const Arg& name : names) {
    if (!name.literal()) {
      line_.vars.MarkAllUnknown();
      return;
    }
    line_.vars.MarkUnknown(name.text.substr(0, name.text.find('[')));
  }
}

void Walker::OnLoopVariable(const shell::Word& name, std::span<const shell::Word> items,
                            bool has_list) {
  if (!name.literal()) return;
  bool known = has_list;
  for (const shell::Word& item : items) {
    if (!item.literal()) known = false;
  }
  if (!known) {
    line_.vars.MarkUnknown(name.text);
    return;
  }
  for (const shell::Word& item : items) line_.vars.Assign(name.text, item.text, 0);
}

void Walker::OnParameterOperator(std::string_view name, char op, std::size_t begin,
                                 std::size_t end) {
  if (op == '=') {
    line_.vars.MarkUnknown(name);
    return;
  }
  // ${x@P}: x's value is expanded like a prompt, $(...) included.
  const VariableFacts* facts = line_.vars.Find(name);
  Arg where;
  where.begin = begin;
  where.end = end;
  if (facts == nullptr || facts->unknown || line_.vars.all_unknown()) {
    Undetermined("${" + std::string(name) +
                     "@P} expands a value that is only known when the command runs",
                 &where);
  }
  if (facts == nullptr) return;
  std::vector<std::string> values = facts->values;
  for (const std::string& value : values) ExpandPrompt(value, begin, end);
}

void Walker::ExpandPrompt(std::string_view text, std::size_t begin, std::size_t end) {
  if (text.find_first_of("$`") == std::string_view::npos || prompt_depth_ >= kMaxPromptDepth) {
    return;
  }
  shell::Origin origin;
  origin.exact = false;
  origin.span_begin = begin;
  origin.span_end = end;
  ++prompt_depth_;
  shell::ParseExpansions(text, origin, *this, state_, depth_hint_ + 1);
  --prompt_depth_;
}

}  // namespace corral::policy
