// Files written earlier in the line (echo > f, printf, cat <<EOF > f, tee,
// cp, ln, install) and the programs copied into them, and running them
// later: as shell code, by their #! line, or as a copy of a listed program.
#include <algorithm>

#include "policy/matcher/command_util.h"
#include "policy/matcher/command_handlers.h"
#include "policy/matcher/command_walker.h"
#include "policy/matcher/name_hash.h"

namespace corral::policy {
namespace {

constexpr std::size_t kMaxLocated = 64;

// How a program writes files by its arguments (redirections aside).
enum class WriteRole : std::uint8_t { kNone, kTee, kCopy, kDownload, kEditInPlace };

// One lookup: asked for every command, and most write nothing this way.
WriteRole WriteRoleOf(std::string_view name) {
  static const auto* roles = [] {
    auto* table = new NameTable<WriteRole>();
    table->Add("tee", WriteRole::kTee);
    for (std::string_view n : {"cp", "mv", "ln", "install"}) table->Add(n, WriteRole::kCopy);
    for (std::string_view n : {"curl", "wget"}) table->Add(n, WriteRole::kDownload);
    for (std::string_view n : {"sed", "dd", "patch", "perl"}) table->Add(n, WriteRole::kEditInPlace);
    return table;
  }();
  const WriteRole* role = roles->Find(name);
  return role == nullptr ? WriteRole::kNone : *role;
}

}  // namespace

std::optional<std::string> Walker::OutputOf(std::span<const Arg> args, const Ctx& ctx) {
  if (args.empty()) return std::string();
  for (const Arg& arg : args) {
    if (!arg.literal()) return std::nullopt;
  }
  std::string_view name = shell::Basename(args[0].text);
  if (name == "echo") {
    std::size_t i = 1;
    bool newline = true;
    bool escapes = false;
    while (i < args.size() && OneOf(args[i].text, {"-n", "-e", "-E", "-ne", "-en"})) {
      if (args[i].text.find('n') != std::string_view::npos) newline = false;
      if (args[i].text.find('e') != std::string_view::npos) escapes = true;
      ++i;
    }
    std::string out;
    for (std::size_t k = i; k < args.size(); ++k) {
      if (k > i) out += ' ';
      out.append(args[k].text);
    }
    if (escapes) {
      std::string decoded;
      shell::DecodeAnsiC(out, decoded);
      out = std::move(decoded);
    }
    if (newline) out += '\n';
    return out;
  }
  if (name == "printf") {
    if (args.size() < 2 || args[1].text == "-v") return std::nullopt;
    std::size_t format = args[1].text == "--" ? 2 : 1;
    if (format >= args.size()) return std::nullopt;
    std::vector<std::string_view> operands;
    for (const Arg& arg : args.subspan(format + 1)) operands.push_back(arg.text);
    return PrintfOutput(args[format].text, operands);
  }
  if (name == "cat") {
    if (args.size() == 2) {
      const WrittenFile* file = line_.files.Find(args[1].text, true);
      if (file != nullptr && file->kind == WrittenFile::Kind::kText &&
          Charge(file->content.size())) {
        return file->content;
      }
      return std::nullopt;
    }
    if (args.size() == 1) return StdinText(ctx);
  }
  return std::nullopt;
}

void Walker::RecordWrites(std::span<const Arg> args, const Ctx& ctx) {
  const shell::SimpleCommand& command = *ctx.command;
  std::string_view name = args.empty() ? "" : shell::Basename(args[0].text);
  for (const shell::Redirect& redirect : command.redirects) {
    using shell::RedirectOp;
    bool append = redirect.op == RedirectOp::kAppend || redirect.op == RedirectOp::kAppendOutErr;
    if (!(append || redirect.op == RedirectOp::kOut || redirect.op == RedirectOp::kClobber ||
          redirect.op == RedirectOp::kOutErr)) {
      continue;
    }
    std::string_view path = redirect.target.text;
    if (!redirect.target.literal()) {
      const std::string* known = redirect.target.var.empty() ? nullptr
                                                             : line_.vars.Latest(redirect.target.var);
      if (known == nullptr) continue;
      path = *known;
    }
    std::optional<std::string> content;
    if (redirect.fd <= 1) content = OutputOf(args, ctx);
    const DenyEntry* copied = nullptr;
    if (name == "cat" && args.size() == 2) copied = LocatedProgram(args[1]);
    if (copied != nullptr) {
      line_.files.Write(path, WrittenFile::Kind::kListedCopy, "", false,
                   static_cast<std::size_t>(copied - &list_.entry(0)));
    } else if (content) {
      Charge(line_.files.Write(path, WrittenFile::Kind::kText, *content, append));
    } else {
      line_.files.Write(path, WrittenFile::Kind::kUnknown, "", append);
    }
  }
  switch (WriteRoleOf(name)) {
    case WriteRole::kNone:
      return;
    case WriteRole::kTee: {
      std::optional<std::string> content;
      if (command.pipe_index > 0 && line_.echo && line_.echo->pipeline == command.pipeline_id &&
          line_.echo->index + 1 == command.pipe_index) {
        content = line_.echo->text;
      }
      bool append = false;
      for (const Arg& arg : args.subspan(1)) {
        if (arg.text == "-a" || arg.text == "--append") append = true;
        if (arg.option() || !arg.literal()) continue;
        line_.files.Write(arg.text, content ? WrittenFile::Kind::kText : WrittenFile::Kind::kUnknown,
                     content.value_or(""), append);
      }
      return;
    }
    case WriteRole::kCopy:
      return RecordCopy(name, args);
    case WriteRole::kDownload:
      // curl -o FILE / -sSLo FILE / wget -O FILE: a download kept, maybe to run later.
      for (std::size_t i = 1; i + 1 < args.size(); ++i) {
        std::string_view t = args[i].text;
        bool output = OneOf(t, {"--output", "--output-document"}) ||
                      (t.size() > 1 && t[0] == '-' && t[1] != '-' &&
                       (t.back() == 'o' || t.back() == 'O'));
        if (output && args[i + 1].literal() && args[i + 1].text != "-") {
          line_.files.Write(args[i + 1].text, WrittenFile::Kind::kUnknown, "", false);
        }
      }
      return;
    case WriteRole::kEditInPlace:
      // Edited in place: the line's text is not the file's any more.
      for (const Arg& arg : args.subspan(1)) {
        std::string_view path = arg.text.starts_with("of=") ? arg.text.substr(3) : arg.text;
        const WrittenFile* file = arg.literal() ? line_.files.Find(path, true) : nullptr;
        if (file != nullptr && file->path == NormalPath(path)) {
          line_.files.Write(path, WrittenFile::Kind::kUnknown, "", false);
        }
      }
      return;
  }
}

void Walker::RecordCopy(std::string_view name, std::span<const Arg> args) {
  std::vector<const Arg*> operands;
  std::string_view target_dir;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::string_view t = args[i].text;
    if (t == "--") {
      for (++i; i < args.size(); ++i) operands.push_back(&args[i]);
      break;
    }
    if (args[i].option()) {
      bool takes = t == "-t" || t == "-S" ||
                   (name == "install" && (t == "-m" || t == "-o" || t == "-g"));
      if (t.starts_with("--target-directory=")) target_dir = t.substr(19);
      if (takes && i + 1 < args.size()) {
        if (t == "-t") target_dir = args[i + 1].text;
        ++i;
      }
      continue;
    }
    operands.push_back(&args[i]);
  }
  if (operands.empty()) return;
  std::vector<const Arg*> sources = operands;
  std::string_view dest = target_dir;
  bool into_folder = !target_dir.empty();
  if (!into_folder) {
    if (operands.size() < 2) return;
    dest = operands.back()->text;
    sources.pop_back();
    into_folder = sources.size() > 1 || dest.ends_with('/');
    if (!operands.back()->literal()) return;
  }
  for (const Arg* source : sources) {
    const DenyEntry* listed = LocatedProgram(*source);
    std::string path(dest);
    if (into_folder) {
      std::string_view base = listed != nullptr ? std::string_view(listed->words[0])
                                                : shell::Basename(source->text);
      path += "/";
      path += base;
    }
    if (listed != nullptr) {
      line_.files.Write(path, WrittenFile::Kind::kListedCopy, "", false,
                   static_cast<std::size_t>(listed - &list_.entry(0)));
    } else if (!source->literal() || DescriptorPath(source->text)) {
      // A link to /proc/self/fd/N names whatever the process running it holds there.
      line_.files.Write(path, WrittenFile::Kind::kUnknownCopy, "", false);
    } else if (const WrittenFile* file = line_.files.Find(source->text, true);
               file != nullptr && Charge(file->content.size())) {
      WrittenFile copy = *file;
      line_.files.Write(path, copy.kind, copy.content, false, copy.entry);
    } else {
      line_.files.Write(path, WrittenFile::Kind::kOnDisk, "", false);
    }
  }
}

void Walker::RecordLocate(std::span<const Arg> args) {
  // which aws, command -v aws, type -P aws: their output is a listed
  // program's path, wherever it is used ($(which aws)).
  if (args.empty() || located_.size() >= kMaxLocated) return;
  for (const Arg& arg : args.subspan(1)) {
    if (arg.option() || !arg.literal()) continue;
    const std::vector<std::size_t>* entries = list_.ForCommand(shell::Basename(arg.text));
    if (entries == nullptr) continue;
    located_.push_back({args.front().begin, args.back().end, entries->front()});
    return;
  }
}

const DenyEntry* Walker::LocatedProgram(const Arg& word) const {
  if (word.literal()) {
    const std::vector<std::size_t>* entries = list_.ForCommand(shell::Basename(word.text));
    if (entries != nullptr) return &list_.entry(entries->front());
    const WrittenFile* file = line_.files.Find(word.text, true);
    if (file != nullptr && file->kind == WrittenFile::Kind::kListedCopy &&
        NormalPath(file->path) == NormalPath(word.text)) {
      return &list_.entry(file->entry);
    }
    return nullptr;
  }
  for (const Located& located : located_) {
    if (located.begin >= word.begin && located.end <= word.end) return &list_.entry(located.entry);
  }
  return nullptr;
}

bool Walker::RunWrittenFile(std::string_view path, bool named, Language language, const Arg& word,
                            const Ctx& ctx) {
  if (line_.files.empty()) return false;
  const WrittenFile* file = line_.files.Find(path, named);
  if (file == nullptr) return false;
  bool copy = file->kind == WrittenFile::Kind::kListedCopy ||
              file->kind == WrittenFile::Kind::kUnknownCopy;
  // A bare name runs a file from PATH: only copies, or any file once PATH
  // was changed in the line.
  if (!named && !copy && !path_changed_) return false;
  if (std::find(running_files_.begin(), running_files_.end(), file) != running_files_.end()) {
    return true;  // a file that runs itself: already being read
  }
  if (!Charge(file->content.size() + 1)) return true;
  switch (file->kind) {
    case WrittenFile::Kind::kListedCopy: {
      const DenyEntry& entry = list_.entry(file->entry);
      Listed(entry, std::span<const Arg>(&word, 1), {});
      if (listed_ && entry_ == entry.line && listed_reason_.find("copy") == std::string::npos) {
        listed_reason_ = "`" + entry.line + "` is on the deny list and " + Quote(word) +
                         " is a copy of it made earlier in the line";
      }
      return true;
    }
    case WrittenFile::Kind::kUnknown:
    case WrittenFile::Kind::kUnknownCopy:
      Undetermined(Quote(word) + " runs a file written earlier in the line with content only "
                                 "known when it runs",
                   &word);
      return true;
    case WrittenFile::Kind::kOnDisk:
      return true;
    case WrittenFile::Kind::kText:
      break;
  }
  running_files_.push_back(file);
  RunFileText(file->content, language, word, ctx);
  running_files_.pop_back();
  return true;
}

void Walker::RunFileText(std::string_view text, Language language, const Arg& word,
                         const Ctx& ctx) {
  if (language == Language::kOther) {
    language = Language::kShell;
    if (text.starts_with("#!")) {
      std::string_view line = text.substr(2, text.find('\n') - 2);
      std::vector<std::string> words = SplitEnvString(line);
      std::size_t at = 0;
      if (!words.empty() && shell::Basename(words[0]) == "env") {
        at = 1;
        while (at < words.size() && words[at].starts_with("-")) ++at;
      }
      std::string_view interpreter = at < words.size() ? shell::Basename(words[at]) : "sh";
      language = LanguageOf(interpreter);
      if (language == Language::kOther) {
        // #!/usr/local/bin/aws: the interpreter named is the program that runs.
        ProgramValue(word, line, ctx);
        return;
      }
    }
  }
  line_.frames.push_back(Frame{Frame::Mode::kUnknown, {}});
  if (language == Language::kShell) {
    ParseText(text, word.raw_begin, word.raw_end, ctx);
  } else {
    Arg code = word;
    code.text = text;
    code.flags = 0;
    ScanInlineCode(*this, LanguageName(language), code, ctx);
  }
  line_.frames.pop_back();
}

}  // namespace corral::policy
