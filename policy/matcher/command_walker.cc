#include "policy/matcher/command_handlers.h"
#include "policy/matcher/command_walker.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "policy/shell/shell.h"
#include "policy/matcher/dangerous.h"
#include "base/reused_vector.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {
namespace {

// The variable a word expands: NAME for $NAME and for "${NAME[@]}".
std::string_view VariableName(const Arg& word) {
  std::string_view name = word.var;
  if (name.ends_with("[@]")) name.remove_suffix(3);
  return name;
}

using shell::kExpansionMark;

constexpr std::size_t kMaxHops = 100000;        // resolutions per command line
constexpr std::size_t kMaxWrapperDepth = 64;    // sudo nice env ... one inside another
constexpr std::size_t kMaxBraceWords = 256;     // words one brace expansion may make
constexpr std::size_t kReasonWordLength = 60;

constexpr std::string_view kUndeterminedPrefix = "the program could not be determined: ";

// * ? and an extglob group always match file names; [ only with a ] after
// it, so the test command `[` stays a plain name.
bool LooksLikePattern(std::string_view text) {
  if (text.find_first_of("*?(") != std::string_view::npos) return true;
  std::size_t open = text.find('[');
  return open != std::string_view::npos && text.find(']', open + 1) != std::string_view::npos;
}

}  // namespace

Walker::Walker(const DenyList& list, std::string_view input, shell::ParseState& state)
    : list_(list), input_(input), state_(state) {}

void Walker::OnSimpleCommand(const shell::SimpleCommand& command) {
  if (state_.aborted()) return;
  std::forward_list<std::string> storage;
  Ctx ctx;
  ctx.command = &command;
  ctx.storage = &storage;
  bool saved_definition = line_.in_definition;
  int saved_depth = depth_hint_;
  line_.in_definition = line_.in_definition || command.in_function;
  depth_hint_ = command.depth;

  ReusedVector<Arg> reused;  // one buffer per command, kept for the next
  std::vector<Arg>& args = *reused;
  BuildArgs(command, ctx, &args);

  for (const shell::Redirect& redirect : command.redirects) {
    using shell::RedirectOp;
    if (redirect.op == RedirectOp::kOut || redirect.op == RedirectOp::kAppend ||
        redirect.op == RedirectOp::kClobber || redirect.op == RedirectOp::kOutErr ||
        redirect.op == RedirectOp::kAppendOutErr || redirect.op == RedirectOp::kInOut) {
      Danger(CheckDangerousRedirect(redirect.target.text));
    }
  }
  if (line_.history_expansion) {
    for (const Arg& arg : args) {
      if (arg.text.find('!') != std::string_view::npos) {
        Undetermined("history expansion is on, and `!` re-runs earlier text", &arg);
        break;
      }
    }
  }

  std::size_t first = 0;
  bool bare = std::all_of(args.begin(), args.end(),
                          [](const Arg& a) { return a.flags & shell::kAssignment; });
  while (first < args.size() && (args[first].flags & shell::kAssignment)) {
    RecordAssignment(args[first], ctx, bare);
    ++first;
  }
  std::span<const Arg> rest = std::span<const Arg>(args).subspan(first);
  if (!rest.empty()) Resolve(rest, ctx);
  RecordWrites(rest, ctx);
  line_.in_definition = saved_definition;
  depth_hint_ = saved_depth;
}

void Walker::Resolve(std::span<const Arg> args, const Ctx& ctx) {
  if (args.empty() || state_.aborted()) return;
  if (++hops_ > kMaxHops) {
    state_.limit = "the command runs more than " + std::to_string(kMaxHops) + " programs";
    return;
  }
  if (resolve_depth_ >= kMaxWrapperDepth) {
    state_.limit = "wrappers are nested more than " + std::to_string(kMaxWrapperDepth) + " deep";
    return;
  }
  ++resolve_depth_;
  ResolveOne(args, ctx);
  --resolve_depth_;
}

void Walker::ResolveOne(std::span<const Arg> args, const Ctx& ctx) {
  std::string_view name;
  const Arg& word = args[0];
  bool known_variable = false;
  if (!CommandName(word, ctx, &name, &known_variable)) {
    TryKnownValue(args, ctx, known_variable);
    return;
  }
  if (name.empty()) return;
  if (word.literal() && ResolveDescriptorProgram(args, ctx)) return;
  if (word.literal()) {
    bool has_slash = word.text.find('/') != std::string_view::npos;
    if (!has_slash) {
      called_.Add(word.text);
      // A call may define more functions: the end is read again each time.
      for (auto it = functions_.begin(); it != functions_.end(); ++it) {
        if (it->name == word.text) CallFunction(*it, args, ctx);
      }
    }
    RunWrittenFile(word.text, has_slash, Language::kOther, word, ctx);
  }
  if (name == "git") {
    HandleGit(*this, args, ctx);
    return;
  }
  CheckList(name, args, false);
  Danger(CheckDangerousCommand(name, args));
  Dispatch(*this, name, args, ctx);
}

bool Walker::ResolveDescriptorProgram(std::span<const Arg> args, const Ctx& ctx) {
  auto fd = DescriptorPath(args[0].text);
  if (!fd) return false;
  // The last redirection of that descriptor on this command opens it.
  const shell::Redirect* opened = nullptr;
  for (const shell::Redirect& redirect : ctx.command->redirects) {
    bool input = redirect.op == shell::RedirectOp::kIn || redirect.op == shell::RedirectOp::kInOut ||
                 redirect.op == shell::RedirectOp::kDupIn || redirect.op == shell::RedirectOp::kHeredoc ||
                 redirect.op == shell::RedirectOp::kHereString;
    int number = redirect.fd >= 0 ? redirect.fd : (input ? 0 : 1);
    if (number == *fd) opened = &redirect;
  }
  bool file = opened != nullptr &&
              (opened->op == shell::RedirectOp::kIn || opened->op == shell::RedirectOp::kInOut) &&
              opened->target.literal();
  if (!file) {
    Undetermined(Quote(args[0]) + " in command position is a descriptor's file, known only when it runs",
                 &args[0]);
    return true;
  }
  ctx.storage->push_front(opened->target.text);
  std::vector<Arg> replaced(args.begin(), args.end());
  replaced[0].text = ctx.storage->front();
  Resolve(replaced, ctx);
  return true;
}

bool Walker::CommandName(const Arg& word, const Ctx& ctx, std::string_view* name,
                         bool* known_variable) {
  std::string_view text = word.text;
  if (!line_.active_replace.empty() && text.find(line_.active_replace) != std::string_view::npos) {
    Undetermined(Quote(word) + " in command position is filled in from the input", &word);
    return false;
  }
  std::size_t slash = text.rfind('/');
  std::string_view base = slash == std::string_view::npos ? text : text.substr(slash + 1);
  if (word.flags & shell::kExpansion) {
    if (base.find(kExpansionMark) != std::string_view::npos) {
      if (KnownProgramVariable(word, ctx)) {
        *known_variable = true;
        return false;
      }
      Undetermined(Quote(word) + " in command position is only known when the command runs",
                   &word);
      return false;
    }
  }
  if ((word.flags & shell::kGlob) && LooksLikePattern(base)) {
    Undetermined(Quote(word) + " in command position is a file-name pattern", &word);
    return false;
  }
  if ((word.flags & shell::kTilde) && slash == std::string_view::npos) {
    Undetermined(Quote(word) + " in command position is a tilde expansion", &word);
    return false;
  }
  if (ctx.package && base.size() > 1) {
    std::size_t at = base.find('@', 1);
    if (at != std::string_view::npos) base = base.substr(0, at);
  }
  *name = base;
  return true;
}

bool Walker::KnownProgramVariable(const Arg& word, const Ctx& ctx) const {
  // X=ls; $X: every value X can have is known when each write to it is a
  // literal and one of them, alone at the top level of the line and before
  // this command, replaced whatever the environment held.
  if (word.var.empty() || !shell::IsName(VariableName(word)) || line_.vars.all_unknown()) return false;
  const VariableFacts* facts = line_.vars.Find(VariableName(word));
  if (facts == nullptr || facts->unknown || facts->values.empty()) return false;
  if (word.flags & shell::kUnquotedExpansion) {
    if (line_.vars.ifs_written()) return false;  // the value splits differently
    for (const std::string& value : facts->values) {
      if (value.find_first_of("*?[") != std::string::npos) return false;  // a pattern
    }
  }
  for (std::uint32_t pipeline : facts->set_by) {
    // X=ls | ... and X=ls & set X in a subshell.
    if (pipeline != ctx.command->pipeline_id && !state_.InSubshell(pipeline)) return true;
  }
  return false;
}

void Walker::TryKnownValue(std::span<const Arg> args, const Ctx& ctx, bool known) {
  // X=aws; $X s3 ls: the values assigned earlier in the line are tried. When
  // they are all that X can be (known), none listed means the command is
  // allowed, unless X is written again later (checked in Finish).
  const Arg& word = args[0];
  if (word.var.empty()) return;
  const VariableFacts* facts = line_.vars.Find(VariableName(word));
  if (facts == nullptr) return;
  bool all_elements = word.var.ends_with("[@]");
  std::vector<std::string> values = facts->values;  // resolving may assign X again
  if (known) {
    if (pending_variables_.size() >= 256) {
      Undetermined(Quote(word) + " in command position is only known when the command runs",
                   &word);
    } else {
      pending_variables_.push_back(
          {std::string(VariableName(word)), values.size(),
           Quote(word) + " in command position is assigned again later in the line",
           word.begin, word.end});
    }
  }
  std::size_t tried = 0;
  for (auto it = values.rbegin(); it != values.rend() && (known || tried < 4); ++it, ++tried) {
    std::vector<Arg> replaced;
    std::string_view value = *it;
    auto add = [&](std::string_view piece) {
      ctx.storage->push_front(std::string(piece));
      Arg arg = word;
      arg.text = ctx.storage->front();
      arg.flags = 0;
      arg.var = {};
      replaced.push_back(arg);
    };
    // An array's value: its elements ("${a[@]}"), or its first one ($a).
    std::vector<std::string_view> pieces;
    bool array = value.find('\0') != std::string_view::npos || (all_elements && value.empty());
    for (std::size_t at = 0; at < value.size();) {
      std::size_t end = array ? value.find('\0', at) : value.size();
      pieces.push_back(value.substr(at, end - at));
      at = end + 1;
      if (!all_elements) break;
    }
    for (std::string_view piece : pieces) {
      if (!(word.flags & shell::kUnquotedExpansion)) {
        add(piece);
        continue;
      }
      std::size_t i = 0;
      while (i < piece.size()) {
        while (i < piece.size() && (piece[i] == ' ' || piece[i] == '\t' || piece[i] == '\n')) ++i;
        std::size_t start = i;
        while (i < piece.size() && piece[i] != ' ' && piece[i] != '\t' && piece[i] != '\n') ++i;
        if (i > start) add(piece.substr(start, i - start));
      }
    }
    // Nothing left ($X empty and unquoted, an empty array): the next word is
    // the command. A quoted empty "$X" stays a command that is not found.
    bool vanishes = (word.flags & shell::kUnquotedExpansion) || all_elements;
    if (replaced.empty() && !vanishes) continue;
    replaced.insert(replaced.end(), args.begin() + 1, args.end());
    if (replaced.empty()) continue;
    std::string_view saved = line_.active_replace;
    Resolve(replaced, ctx);
    line_.active_replace = saved;
  }
}

void Walker::ProgramValue(const Arg& word, std::string_view value, const Ctx& ctx) {
  if (!word.literal() || value.find(kExpansionMark) != std::string_view::npos) {
    Undetermined("the program " + Quote(word) + " names is only known when it runs", &word);
    return;
  }
  std::vector<Arg> words = WordsOf(value, word, ctx);
  if (words.empty()) return;
  std::string_view name = shell::Basename(words[0].text);
  if (IsShellName(name)) {
    // SHELL=/bin/bash: a shell here is given code later, not standard input.
    CheckList(name, words, false);
    return;
  }
  Resolve(words, ctx);
}

bool Walker::Charge(std::size_t bytes) {
  state_.work += bytes;
  if (state_.work > state_.work_limit && state_.limit.empty()) {
    state_.limit = "the command needs more reading work than the limit allows";
  }
  return !state_.aborted();
}

void Walker::Finish() {
  if (positional_used_ && line_.positional_rewritten) {
    Arg where;
    std::tie(where.begin, where.end) = *positional_used_;
    Undetermined("\"$@\" in command position: the parameters are set again elsewhere in the line", &where);
  }
  for (const PendingVariable& pending : pending_variables_) {
    const VariableFacts* facts = line_.vars.Find(pending.name);
    if (facts != nullptr && !facts->unknown && facts->values.size() == pending.values &&
        !line_.vars.all_unknown()) {
      continue;
    }
    Arg where;
    where.begin = pending.begin;
    where.end = pending.end;
    Undetermined(pending.reason, &where);
  }
}

void Walker::CheckList(std::string_view name, std::span<const Arg> args, bool force_push) {
  const std::vector<std::size_t>* indices = list_.ForCommand(name);
  if (indices == nullptr || listed_) return;
  // The last pass matches as the loop below asks again: its first answers
  // are kept rather than matched twice.
  std::array<ArgMatch, 8> last{};
  for (int pass = 0; pass < (force_push ? 2 : 1); ++pass) {
    for (std::size_t k = 0; k < indices->size(); ++k) {
      const DenyEntry& entry = list_.entry((*indices)[k]);
      EntryMatch match = MatchEntry(entry, args, pass == 1);
      if (match.result == ArgMatch::kYes) {
        Listed(entry, args, match.positions);
        return;
      }
      if (k < last.size()) last[k] = match.result;
    }
  }
  if (!line_.vars.empty() && TryKnownArguments(name, args, force_push)) return;
  for (std::size_t k = 0; k < indices->size(); ++k) {
    const DenyEntry& entry = list_.entry((*indices)[k]);
    ArgMatch result = k < last.size() ? last[k] : MatchEntry(entry, args, force_push).result;
    if (result == ArgMatch::kPossible) {
      const Arg* unknown = nullptr;
      for (const Arg& arg : args.subspan(1)) {
        if (!arg.literal()) {
          unknown = &arg;
          break;
        }
      }
      Undetermined("whether this is `" + entry.line + "` is only known when it runs (" +
                       (unknown ? Quote(*unknown) : std::string("an argument")) +
                       " could be one of its words)",
                   unknown ? unknown : &args[0]);
      return;
    }
  }
}

bool Walker::TryKnownArguments(std::string_view name, std::span<const Arg> args,
                               bool force_push) {
  // F=--force; git push origin $F: arguments that are variables assigned
  // earlier in the line are tried with that value.
  std::forward_list<std::string> storage;
  std::vector<Arg> replaced;
  bool any = false;
  for (const Arg& arg : args) {
    const std::string* value = arg.var.empty() ? nullptr : line_.vars.Latest(arg.var);
    if (value == nullptr) {
      replaced.push_back(arg);
      continue;
    }
    any = true;
    Arg known = arg;
    known.flags = 0;
    known.var = {};
    storage.push_front(*value);
    known.text = storage.front();
    replaced.push_back(known);
  }
  if (!any) return false;
  const std::vector<std::size_t>* indices = list_.ForCommand(name);
  for (int pass = 0; pass < (force_push ? 2 : 1); ++pass) {
    for (std::size_t index : *indices) {
      const DenyEntry& entry = list_.entry(index);
      EntryMatch match = MatchEntry(entry, replaced, pass == 1);
      if (match.result == ArgMatch::kYes) {
        Listed(entry, replaced, match.positions);
        return true;
      }
    }
  }
  return false;
}

namespace {

// One word of a refused command, for a person to read.
std::string ShownWord(const Arg& arg) {
  if (!arg.var.empty()) return "\"$" + std::string(arg.var) + "\"";
  std::string text;
  bool expansion = false;
  for (char c : arg.text) {
    if (c == shell::kExpansionMark) {
      expansion = true;
      text += "\xe2\x80\xa6";  // …
    } else {
      text += c;
    }
  }
  // A glob, ~ or braces stay as the shell reads them (quoted, they would not expand).
  bool expands = arg.flags & (shell::kGlob | shell::kTilde | shell::kBrace);
  return expansion || expands ? text : QuoteWord(text);
}

std::string CommandText(std::span<const Arg> args) {
  std::string text;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i == kMaxCommandWords) return text + " \xe2\x80\xa6";
    text += (i == 0 ? "" : " ") + ShownWord(args[i]);
  }
  return text;
}

}  // namespace

std::string QuoteWord(std::string_view word) {
  if (word.empty()) return "''";
  bool plain = std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("@%+=:,./_-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

void Walker::Listed(const DenyEntry& entry, std::span<const Arg> args,
                    const std::vector<std::size_t>& positions) {
  if (listed_) return;
  listed_ = true;
  entry_ = entry.line;
  auto add = [&](const Arg& arg) {
    std::size_t begin = std::min(arg.begin, input_.size());
    std::size_t end = std::clamp(arg.end, begin, input_.size());
    words_.push_back(MatchedWord{std::string(arg.text), begin, end - begin});
  };
  add(args[0]);
  for (std::size_t position : positions) add(args[position]);
  command_ = CommandText(args);
  listed_reason_ = "`" + entry.line + "` is on the deny list";
}

void Walker::ListedBy(const DenyEntry& entry, const Arg& word, std::string_view how) {
  if (listed_) return;
  Listed(entry, std::span<const Arg>(&word, 1), {});
  listed_reason_ = "`" + entry.line + "` is on the deny list " + std::string(how);
}

void Walker::Undetermined(std::string reason, const Arg* word) {
  if (undetermined_) return;
  undetermined_ = true;
  undetermined_reason_ = std::string(kUndeterminedPrefix) + reason;
  if (word != nullptr) {
    std::size_t begin = std::min(word->begin, input_.size());
    std::size_t end = std::clamp(word->end, begin, input_.size());
    undetermined_words_.push_back(
        MatchedWord{std::string(input_.substr(begin, end - begin)), begin, end - begin});
  }
}

void Walker::Danger(std::optional<DangerousMatch> match) {
  if (!match) return;
  if (!dangerous_ || DangerRank(match->category) < DangerRank(dangerous_->category)) {
    dangerous_ = std::move(match);
  }
}

std::string Walker::Quote(const Arg& word) const {
  std::size_t begin = std::min(word.begin, input_.size());
  std::size_t end = std::clamp(word.end, begin, input_.size());
  std::string_view raw = input_.substr(begin, end - begin);
  if (raw.size() > kReasonWordLength) {
    return "`" + std::string(raw.substr(0, kReasonWordLength)) + "...`";
  }
  return "`" + std::string(raw) + "`";
}

void Walker::Fill(MatchResult* result) const {
  if (listed_) {
    result->finding = Finding::kListed;
    result->entry = entry_;
    result->words = words_;
    result->command = command_;
    result->reason = listed_reason_;
  } else if (undetermined_) {
    result->finding = Finding::kUndetermined;
    result->words = undetermined_words_;
    result->reason = undetermined_reason_;
  }
  result->dangerous = dangerous_;
}

void Walker::ParseText(std::string_view text, std::size_t raw_begin, std::size_t raw_end,
                       const Ctx& ctx) {
  if (state_.aborted()) return;
  const shell::SimpleCommand& command = *ctx.command;
  shell::Origin origin = command.origin->Nested(command.source, raw_begin, raw_end, text);
  shell::ParseShell(text, origin, *this, state_, command.depth + 1);
}

void Walker::ParseJoined(std::span<const Arg> args, const Ctx& ctx) {
  if (args.empty()) return;
  for (const Arg& arg : args) {
    if (!arg.literal()) {
      Undetermined("the shell code " + Quote(arg) + " is only known when it runs", &arg);
      CheckDownloadInto(arg);
      return;
    }
  }
  std::string joined;
  for (const Arg& arg : args) {
    if (!joined.empty()) joined += ' ';
    joined.append(arg.text);
  }
  ParseText(joined, args.front().raw_begin, args.back().raw_end, ctx);
}

void Walker::ParseCodeArg(std::string_view who, const Arg& arg, std::size_t offset,
                          const Ctx& ctx) {
  if (!arg.literal()) {
    Undetermined("the shell code " + Quote(arg) + " given to " + std::string(who) +
                     " is only known when it runs",
                 &arg);
    CheckDownloadInto(arg);
    return;
  }
  ParseText(arg.text.substr(std::min(offset, arg.text.size())), arg.raw_begin, arg.raw_end, ctx);
}

void Walker::RunCode(std::string_view program, const Arg& code, const Ctx& ctx) {
  ScanInlineCode(*this, program, code, ctx);
}

void Walker::CheckDownloadInto(const Arg& word) {
  // bash -c "$(curl ...)" and bash <(curl ...): the download ran inside it.
  for (const auto& [begin, end] : line_.downloads) {
    if (begin >= word.begin && end <= word.end) {
      Danger(DangerousMatch{std::string(kPipeToShell), "runs downloaded code as shell code"});
      return;
    }
  }
}

}  // namespace corral::policy
