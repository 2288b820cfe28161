#include "policy/command_walker.h"

#include <algorithm>

#include "policy/brace_expansion.h"
#include "policy/dangerous.h"
#include "policy/wrappers.h"

namespace corral::policy {
namespace {

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

  std::vector<Arg> args;
  args.reserve(command.words.size());
  for (const shell::Word& word : command.words) {
    Arg arg;
    arg.text = word.text;
    arg.flags = word.flags;
    arg.var = word.var;
    arg.raw_begin = word.begin;
    arg.raw_end = word.end;
    std::tie(arg.begin, arg.end) = command.origin->Map(word.begin, word.end);
    if (!(word.flags & shell::kBrace)) {
      args.push_back(arg);
      continue;
    }
    std::vector<std::string> expanded;
    if (!ExpandBraces(word.text, kMaxBraceWords, &expanded)) {
      // Too many words to list: treat it as a pattern of unknown words.
      storage.push_front(RestoreBraceMarks(word.text) + kExpansionMark);
      arg.text = storage.front();
      arg.flags = (arg.flags & ~shell::kBrace) | shell::kExpansion | shell::kUnquotedExpansion;
      args.push_back(arg);
      continue;
    }
    for (std::string& text : expanded) {
      storage.push_front(std::move(text));
      Arg piece = arg;
      piece.text = storage.front();
      piece.flags &= ~shell::kBrace;
      if (piece.text.find(kExpansionMark) == std::string_view::npos) {
        piece.flags &= ~(shell::kExpansion | shell::kUnquotedExpansion);
        piece.var = {};
      }
      if (piece.text.find_first_of("*?[") == std::string_view::npos) piece.flags &= ~shell::kGlob;
      args.push_back(piece);
    }
  }

  for (const shell::Redirect& redirect : command.redirects) {
    using shell::RedirectOp;
    if (redirect.op == RedirectOp::kOut || redirect.op == RedirectOp::kAppend ||
        redirect.op == RedirectOp::kClobber || redirect.op == RedirectOp::kOutErr ||
        redirect.op == RedirectOp::kAppendOutErr || redirect.op == RedirectOp::kInOut) {
      Danger(CheckDangerousRedirect(redirect.target.text));
    }
  }

  std::size_t first = 0;
  while (first < args.size() && (args[first].flags & shell::kAssignment)) {
    RecordAssignment(args[first], ctx);
    ++first;
  }
  if (first < args.size()) Resolve(std::span<const Arg>(args).subspan(first), ctx);
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
  if (!CommandName(args[0], ctx, &name)) {
    TryKnownValue(args, ctx);
    return;
  }
  if (name.empty()) return;
  if (name == "git") {
    HandleGit(args, ctx);
    return;
  }
  CheckList(name, args, false);
  Danger(CheckDangerousCommand(name, args));
  Dispatch(name, args, ctx);
}

bool Walker::CommandName(const Arg& word, const Ctx& ctx, std::string_view* name) {
  std::string_view text = word.text;
  if (!active_replace_.empty() && text.find(active_replace_) != std::string_view::npos) {
    Undetermined(Quote(word) + " in command position is filled in from the input", &word);
    return false;
  }
  std::size_t slash = text.rfind('/');
  std::string_view base = slash == std::string_view::npos ? text : text.substr(slash + 1);
  if (word.flags & shell::kExpansion) {
    if (base.find(kExpansionMark) != std::string_view::npos) {
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

void Walker::TryKnownValue(std::span<const Arg> args, const Ctx& ctx) {
  // X=aws; $X s3 ls: the undetermined finding stands, but a value assigned
  // earlier in the same line is tried too, so a listed one is reported.
  const Arg& word = args[0];
  if (word.var.empty()) return;
  int tried = 0;
  for (auto it = vars_.rbegin(); it != vars_.rend() && tried < 4; ++it) {
    if (it->first != word.var) continue;
    ++tried;
    std::vector<Arg> replaced;
    std::string_view value = it->second;
    auto add = [&](std::string_view piece) {
      ctx.storage->push_front(std::string(piece));
      Arg arg = word;
      arg.text = ctx.storage->front();
      arg.flags = 0;
      arg.var = {};
      replaced.push_back(arg);
    };
    if (word.flags & shell::kUnquotedExpansion) {
      std::size_t i = 0;
      while (i < value.size()) {
        while (i < value.size() && (value[i] == ' ' || value[i] == '\t' || value[i] == '\n')) ++i;
        std::size_t start = i;
        while (i < value.size() && value[i] != ' ' && value[i] != '\t' && value[i] != '\n') ++i;
        if (i > start) add(value.substr(start, i - start));
      }
    } else {
      add(value);
    }
    if (replaced.empty()) continue;
    replaced.insert(replaced.end(), args.begin() + 1, args.end());
    std::string_view saved = active_replace_;
    Resolve(replaced, ctx);
    active_replace_ = saved;
  }
}

void Walker::CheckList(std::string_view name, std::span<const Arg> args, bool force_push) {
  const std::vector<std::size_t>* indices = list_.ForCommand(name);
  if (indices == nullptr || listed_) return;
  for (int pass = 0; pass < (force_push ? 2 : 1); ++pass) {
    for (std::size_t index : *indices) {
      const DenyEntry& entry = list_.entry(index);
      EntryMatch match = MatchEntry(entry, args, pass == 1);
      if (match.result == ArgMatch::kYes) {
        Listed(entry, args, match.positions);
        return;
      }
    }
  }
  if (!vars_.empty() && TryKnownArguments(name, args, force_push)) return;
  for (std::size_t index : *indices) {
    const DenyEntry& entry = list_.entry(index);
    if (MatchEntry(entry, args, force_push).result == ArgMatch::kPossible) {
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
    const std::string* value = nullptr;
    if (!arg.var.empty()) {
      for (auto it = vars_.rbegin(); it != vars_.rend(); ++it) {
        if (it->first == arg.var) {
          value = &it->second;
          break;
        }
      }
    }
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
  listed_reason_ = "`" + entry.line + "` is on the deny list";
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

void Walker::CheckDownloadInto(const Arg& word) {
  // bash -c "$(curl ...)" and bash <(curl ...): the download ran inside it.
  for (const auto& [begin, end] : downloads_) {
    if (begin >= word.begin && end <= word.end) {
      Danger(DangerousMatch{std::string(kPipeToShell), "runs downloaded code as shell code"});
      return;
    }
  }
}

void Walker::RecordAssignment(const Arg& word, const Ctx& ctx) {
  std::string_view text = word.text;
  std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) return;
  std::string_view name = text.substr(0, eq);
  if (!name.empty() && name.back() == '+') name.remove_suffix(1);
  std::string_view value = text.substr(eq + 1);
  // Variables whose value programs run as shell code.
  static constexpr std::string_view kCodeVariables[] = {
      "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_PAGER", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF",
      "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "EDITOR", "VISUAL", "PAGER", "MANPAGER",
      "PROMPT_COMMAND", "LESSOPEN", "LESSCLOSE", "SUDO_EDITOR", "SYSTEMD_PAGER", "BROWSER",
      "FCEDIT", "GIT_PROXY_COMMAND"};
  if (std::find(std::begin(kCodeVariables), std::end(kCodeVariables), name) !=
      std::end(kCodeVariables)) {
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
  }
  if (!word.literal() || value.find(kExpansionMark) != std::string_view::npos) return;
  if (name.find('[') != std::string_view::npos || vars_.size() >= 256) return;
  vars_.emplace_back(std::string(name), std::string(value));
}

}  // namespace corral::policy
