// git: global options, configuration that names a program (from -c, from
// `git config`, from the environment, from config files written in the
// line), aliases, transports and hooks, and force pushes however spelled.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/dangerous.h"
#include "base/reused_vector.h"
#include "policy/matcher/wrappers.h"

namespace corral::policy {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Keys whose value git runs as a command (lower case, as git compares them).
bool RunsCode(std::string_view key) {
  static constexpr std::string_view kSuffixes[] = {
      "command", "editor", "pager", "textconv", ".clean", ".smudge", ".process", "program",
      "helper", "askpass", "fsmonitor", ".external", ".cmd", ".driver", "packobjectshook",
      "uploadpack", "receivepack", "gitproxy", "difffilter", "sendmailcmd", ".httpd", "browser"};
  for (std::string_view suffix : kSuffixes) {
    if (key.ends_with(suffix)) return true;
  }
  return key.starts_with("pager.") || (key.starts_with("browser.") && key.ends_with(".path"));
}

// Subcommands that take no repository or URL, and none of whose options
// runs a program named on the command line: a word only known at run time
// (a commit message from $(cat <<'EOF' ...)) is data to them, never an
// ext:: transport. Anything else (clone, fetch, remote, an alias from the
// user's configuration) may take one.
bool TakesNoRepository(std::string_view subcommand) {
  return OneOf(subcommand,
               {"add", "am", "apply", "blame", "branch", "cat-file", "check-ignore", "checkout",
                "cherry-pick", "clean", "commit", "describe", "diff", "for-each-ref",
                "format-patch", "hash-object", "log", "ls-files", "ls-tree", "merge",
                "merge-base", "mv", "notes", "range-diff", "reflog", "reset", "restore",
                "rev-list", "rev-parse", "revert", "rm", "shortlog", "show", "show-ref", "stash",
                "status", "switch", "symbolic-ref", "tag", "update-ref", "worktree"});
}

// Keys whose value is a repository URL, which may be an ext:: transport.
bool NamesRepository(std::string_view key) {
  return (key.starts_with("remote.") && (key.ends_with(".url") || key.ends_with(".pushurl"))) ||
         (key.starts_with("submodule.") && key.ends_with(".url"));
}

// --git-dir="$d": the option is fixed before the part only known at run
// time. "$o" or "-$x" may turn out to be -c, which makes the next word
// configuration, and --config-env takes a program from the environment.
bool FixedOptionName(const Arg& word) {
  std::string_view known = word.text.substr(0, word.text.find(shell::kExpansionMark));
  return known.starts_with("--") && known.find('=') != std::string_view::npos &&
         !known.starts_with("--config-env");
}

bool Truthy(std::string_view value) {
  return !OneOf(Lower(value), {"false", "no", "off", "0", ""});
}

// A value in a git config file: quotes removed, escapes undone, an inline
// comment dropped.
std::string ConfigValue(std::string_view raw) {
  std::string out;
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (c == '\\' && i + 1 < raw.size()) {
      char e = raw[++i];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
    } else if ((c == '#' || c == ';') && !quoted) {
      break;
    } else {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  std::size_t start = out.find_first_not_of(" \t");
  return start == std::string::npos ? std::string() : out.substr(start);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> GitConfigPairs(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string section;
  std::size_t pos = 0;
  while (pos < text.size() && pairs.size() < 1024) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    std::size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) continue;
    line = line.substr(start);
    if (line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      // [section "sub"] or [section.sub]; the subsection keeps its case.
      std::size_t close = line.rfind(']');
      std::string_view inside = line.substr(1, (close == std::string_view::npos ? line.size() : close) - 1);
      std::size_t quote = inside.find('"');
      if (quote != std::string_view::npos) {
        std::string_view name = inside.substr(0, quote);
        while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
        std::string_view sub = inside.substr(quote + 1);
        if (!sub.empty() && sub.back() == '"') sub.remove_suffix(1);
        section = Lower(name) + "." + std::string(sub);
      } else {
        section = Lower(inside);
      }
      line = close == std::string_view::npos ? std::string_view() : line.substr(close + 1);
      start = line.find_first_not_of(" \t");
      if (start == std::string_view::npos) continue;
      line = line.substr(start);
    }
    std::size_t eq = line.find('=');
    std::string_view key = line.substr(0, eq);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    std::string value = eq == std::string_view::npos ? "true" : ConfigValue(line.substr(eq + 1));
    pairs.emplace_back(section + "." + Lower(key), value);
  }
  return pairs;
}

void HandleGit(Walk& walk, std::span<const Arg> args, const CommandCtx& ctx) {
  std::vector<std::size_t> configs;
  std::vector<std::size_t> unknown_options;
  std::size_t sub = SkipGitGlobalOptions(args, &configs, &unknown_options);
  for (std::size_t index : unknown_options) {
    if (FixedOptionName(args[index])) continue;
    walk.Undetermined("git's option " + walk.Quote(args[index]) +
                     " is only known when it runs (it may be -c, configuring a program)",
                 &args[index]);
  }
  if (sub < args.size() && !args[sub].literal()) {
    // It may be -c, or a subcommand that runs later words (rebase -x, bisect run).
    walk.Undetermined("git's subcommand " + walk.Quote(args[sub]) + " is only known when it runs",
                 &args[sub]);
  }
  for (std::size_t index : configs) {
    std::string_view t = args[index].text;
    std::size_t eq = t.find('=');
    if (eq == std::string_view::npos) continue;
    GitConfigValue(walk, args[index], Lower(t.substr(0, eq)), t.substr(eq + 1), eq + 1, false, ctx);
  }
  for (std::size_t i = 1; i < sub; ++i) {
    std::string_view t = args[i].text;
    if (!t.starts_with("--config-env")) continue;
    std::string_view pair = t.size() > 13 ? t.substr(13) : (i + 1 < sub ? args[i + 1].text : "");
    if (RunsCode(Lower(pair.substr(0, pair.find('='))))) {
      walk.Undetermined("git --config-env takes " + walk.Quote(args[i]) + "'s program from the environment",
                   &args[i]);
    }
  }
  std::vector<Arg> pushes;
  GitConfigFromEnvironment(walk, args[0], ctx, &pushes);

  ReusedVector<Arg> reused;  // one buffer per git command, kept for the next
  std::vector<Arg>& normalized = *reused;
  normalized.reserve(args.size() + pushes.size());
  normalized.push_back(args[0]);
  for (std::size_t k = sub; k < args.size(); ++k) normalized.push_back(args[k]);
  std::string_view subcommand = normalized.size() > 1 ? normalized[1].text : "";
  bool push = subcommand == "push" || subcommand == "send-pack";
  if (subcommand == "send-pack") normalized[1].text = "push";  // push's plumbing
  if (push) {
    // git -c remote.origin.push=+main:main push forces through its config:
    // the refspec counts as if it were written on the command line.
    for (std::size_t index : configs) {
      std::string_view t = args[index].text;
      std::size_t eq = t.find('=');
      if (eq == std::string_view::npos) continue;
      std::string key = Lower(t.substr(0, eq));
      std::string_view value = t.substr(eq + 1);
      if (!key.starts_with("remote.")) continue;
      Arg word = args[index];
      word.flags &= ~shell::kGlob;  // refs/heads/* names refs, not files
      if (key.ends_with(".push")) {
        word.text = value;
      } else if (key.ends_with(".mirror") && Truthy(value)) {
        word.text = "--mirror";
      } else {
        continue;
      }
      normalized.push_back(word);
    }
    normalized.insert(normalized.end(), pushes.begin(), pushes.end());
  }
  walk.CheckList("git", normalized, push);
  walk.Danger(CheckDangerousCommand("git", normalized));
  RunGitHooks(walk, args[0], ctx);
  if (normalized.size() < 2) return;
  std::span<const Arg> rest = std::span<const Arg>(normalized).subspan(2);
  const bool may_take_repository = !TakesNoRepository(subcommand);
  for (std::size_t k = 0; k < rest.size(); ++k) {
    std::string_view t = rest[k].text;
    // Programs git starts for a transport: --upload-pack, --receive-pack,
    // --exec (run through the shell for local and ssh remotes), ext::CMD.
    for (std::string_view option : {"--upload-pack", "--receive-pack", "--exec"}) {
      if (t == option && k + 1 < rest.size()) {
        walk.ParseCodeArg("git " + std::string(option), rest[k + 1], 0, ctx);
      } else if (t.size() > option.size() && t.starts_with(option) && t[option.size()] == '=') {
        walk.ParseCodeArg("git " + std::string(option), rest[k], option.size() + 1, ctx);
      }
    }
    if (t == "-u" && k + 1 < rest.size() &&
        OneOf(subcommand, {"fetch", "clone", "ls-remote", "pull", "archive"})) {
      walk.ParseCodeArg("git -u", rest[k + 1], 0, ctx);
    }
    // A repository given as an option: archive --remote=URL, push --repo=URL.
    for (std::string_view option : {"--remote", "--repo"}) {
      if (t == option && k + 1 < rest.size()) {
        GitTransport(walk, rest[k + 1], 0, ctx);
      } else if (t.size() > option.size() && t.starts_with(option) && t[option.size()] == '=') {
        GitTransport(walk, rest[k], option.size() + 1, ctx);
      }
    }
    if (t.starts_with("ext::")) walk.ResolveWords(t.substr(5), rest[k], ctx);
    if (may_take_repository && !rest[k].literal() && CouldBe(rest[k], "ext::")) {
      walk.Undetermined("the git transport " + walk.Quote(rest[k]) + " is only known when it runs",
                   &rest[k]);
    }
  }
  if (subcommand == "config") {
    // git config [set] [--global | --file F | ...] KEY VALUE: written for every later git.
    std::size_t k = 0;
    if (k < rest.size() && rest[k].text == "set") ++k;
    std::vector<const Arg*> operands;
    bool reads = false;
    for (; k < rest.size(); ++k) {
      std::string_view t = rest[k].text;
      if (rest[k].option()) {
        if (OneOf(t, {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"})) ++k;
        if (OneOf(t, {"--get", "--get-all", "--get-regexp", "--unset", "--unset-all", "--list",
                      "-l", "--remove-section", "--rename-section", "--edit", "-e"})) {
          reads = true;
        }
        continue;
      }
      operands.push_back(&rest[k]);
    }
    if (!reads && operands.size() >= 2) {
      GitConfigValue(walk, *operands[1], Lower(operands[0]->text), operands[1]->text, 0, true, ctx);
    }
  } else if (subcommand == "bisect" && !rest.empty() && rest[0].text == "run") {
    walk.Resolve(rest.subspan(1), ctx);
  } else if (subcommand == "submodule" || subcommand == "rebase" ||
             subcommand == "filter-branch") {
    // submodule foreach CODE, rebase -x CODE / --exec CODE, filter-branch --*-filter CODE
    for (std::size_t k = 0; k + 1 < rest.size(); ++k) {
      std::string_view t = rest[k].text;
      if (t == "foreach" || t == "-x" || t == "--exec" ||
          (t.starts_with("--") && t.ends_with("-filter"))) {
        std::size_t code = k + 1;
        while (code < rest.size() && rest[code].option() && t == "foreach") ++code;
        if (code < rest.size()) walk.ParseCodeArg("git", rest[code], 0, ctx);
      }
    }
  }
}

void GitConfigValue(Walk& walk, const Arg& word, std::string_view key, std::string_view value,
                            std::size_t value_offset, bool persistent, const CommandCtx& ctx) {
  if (key.starts_with("alias.")) {
    Arg alias = word;
    alias.text = word.text.substr(std::min(value_offset, word.text.size()));
    HandleGitAlias(walk, alias, alias.text, ctx);
  } else if (RunsCode(key)) {
    std::size_t offset = value_offset + (value.starts_with("!") ? 1 : 0);
    walk.ParseCodeArg("git config " + std::string(key), word, offset, ctx);
  } else if (key == "core.hookspath") {
    // Hooks come from this folder: any written there run with git.
    if (word.literal() && walk.line().hooks_dirs.size() < 8) walk.line().hooks_dirs.emplace_back(value);
  } else if ((key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path"))) &&
             word.literal()) {
    if (const WrittenFile* file = walk.line().files.Find(value, true);
        file != nullptr && file->kind == WrittenFile::Kind::kText) {
      GitConfigText(walk, word, file->content, ctx);
    }
  } else if (NamesRepository(key)) {
    GitTransport(walk, word, value_offset, ctx);
  } else if (persistent && key.starts_with("remote.") &&
             ((key.ends_with(".push") && value.starts_with("+")) ||
              (key.ends_with(".mirror") && Truthy(value)))) {
    // Written to a config file, a forcing refspec makes every later plain
    // `git push` a force push: it counts as one now.
    Arg git = word;
    git.text = "git";
    git.flags = 0;
    Arg sub = git;
    sub.text = "push";
    Arg spec = word;
    spec.text = key.ends_with(".mirror") ? std::string_view("--mirror") : value;
    spec.flags &= ~shell::kGlob;
    std::vector<Arg> synthetic = {git, sub, spec};
    walk.CheckList("git", synthetic, true);
  }
}

void GitTransport(Walk& walk, const Arg& word, std::size_t offset, const CommandCtx& ctx) {
  Arg url = word;
  url.text = word.text.substr(std::min(offset, word.text.size()));
  if (url.text.starts_with("ext::")) {
    walk.ResolveWords(url.text.substr(5), word, ctx);
  } else if (!url.literal() && CouldBe(url, "ext::")) {
    walk.Undetermined("the git transport " + walk.Quote(word) + " is only known when it runs", &word);
  }
}

void GitConfigText(Walk& walk, const Arg& word, std::string_view text, const CommandCtx& ctx) {
  if (!walk.Charge(text.size())) return;
  for (auto& [key, value] : GitConfigPairs(text)) {
    ctx.storage->push_front(std::move(value));
    Arg arg = word;
    arg.text = ctx.storage->front();
    arg.flags = 0;
    GitConfigValue(walk, arg, key, arg.text, 0, true, ctx);
  }
}

void GitConfigFromEnvironment(Walk& walk, const Arg& word, const CommandCtx& ctx, std::vector<Arg>* pushes) {
  // GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n and
  // GIT_CONFIG_PARAMETERS: -c in the environment.
  if (walk.line().vars.empty()) return;
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int n = 0; n < 16; ++n) {
    std::string suffix = std::to_string(n);
    const std::string* key = walk.line().vars.Latest("GIT_CONFIG_KEY_" + suffix);
    if (key == nullptr) break;
    const VariableFacts* value = walk.line().vars.Find("GIT_CONFIG_VALUE_" + suffix);
    if (value == nullptr) continue;
    if ((value->unknown || value->values.empty()) && RunsCode(Lower(*key))) {
      walk.Undetermined("GIT_CONFIG_VALUE_" + suffix + " is only known when the command runs", &word);
      continue;
    }
    for (const std::string& one : value->values) pairs.emplace_back(Lower(*key), one);
  }
  if (const std::string* parameters = walk.line().vars.Latest("GIT_CONFIG_PARAMETERS")) {
    for (const std::string& pair : SplitEnvString(*parameters)) {
      std::size_t eq = pair.find('=');
      if (eq != std::string::npos) pairs.emplace_back(Lower(pair.substr(0, eq)), pair.substr(eq + 1));
    }
  }
  for (auto& [key, value] : pairs) {
    ctx.storage->push_front(std::move(value));
    Arg arg = word;
    arg.text = ctx.storage->front();
    arg.flags = 0;
    GitConfigValue(walk, arg, key, arg.text, 0, false, ctx);
    if (key.starts_with("remote.") && key.ends_with(".push")) pushes->push_back(arg);
    if (key.starts_with("remote.") && key.ends_with(".mirror") && Truthy(arg.text)) {
      arg.text = "--mirror";
      pushes->push_back(arg);
    }
  }
}

void RunGitHooks(Walk& walk, const Arg& word, const CommandCtx& ctx) {
  // Hooks written earlier in the line (.git/hooks/*, or a core.hooksPath
  // folder) run when git commits, checks out, merges, pushes, ...
  if (walk.line().files.empty()) return;
  for (const WrittenFile& file : walk.line().files.all()) {
    bool hook = file.path.starts_with(".git/hooks/") ||
                file.path.find("/.git/hooks/") != std::string::npos;
    for (const std::string& dir : walk.line().hooks_dirs) {
      std::string prefix = NormalPath(dir);
      if (!prefix.empty() && file.path.starts_with(prefix + "/")) hook = true;
    }
    if (!hook) continue;
    if (file.path.ends_with(".sample")) continue;
    walk.RunWrittenFile(file.path, true, Language::kOther, word, ctx);
    if (walk.listed()) return;
  }
  // A config file written here applies to this git command.
  for (const WrittenFile& file : walk.line().files.all()) {
    if (file.kind != WrittenFile::Kind::kText) continue;
    std::string_view base = shell::Basename(file.path);
    if ((base == "config" && file.path.find(".git/") != std::string::npos) ||
        base == ".gitconfig" || file.path.ends_with("git/config")) {
      GitConfigText(walk, word, file.content, ctx);
    }
  }
}

void HandleGitAlias(Walk& walk, const Arg& value_word, std::string_view value, const CommandCtx& ctx) {
  // A git alias is shell code after '!', git words otherwise; either runs
  // when the alias is used, so its body is checked where it is defined.
  if (!value_word.literal()) {
    walk.Undetermined("the git alias " + walk.Quote(value_word) + " is only known when it runs",
                 &value_word);
    return;
  }
  if (!value.empty() && value[0] == '!') {
    std::size_t offset = static_cast<std::size_t>(value.data() - value_word.text.data()) + 1;
    walk.ParseCodeArg("a git alias", value_word, offset, ctx);
    return;
  }
  std::vector<Arg> words = walk.WordsOf(value, value_word, ctx);
  if (words.empty()) return;
  Arg git = value_word;
  git.text = "git";
  git.flags = 0;
  git.var = {};
  words.insert(words.begin(), git);
  walk.Resolve(words, ctx);
}

}  // namespace corral::policy
