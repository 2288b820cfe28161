// What the commands read so far in one line set up for the commands after
// them: variables and their literal values, files written, copies of
// programs, functions defined. The walker asks these where the text of a
// single command would leave the program unknown. Private to policy/matcher/.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "policy/shell/shell.h"

namespace corral::policy {

struct VariableFacts {
  std::vector<std::string> values;  // literal values assigned anywhere so far, in order
  bool unknown = false;             // a write whose value the text does not give
  // Pipelines of bare assignments at the top level of the line: after one of
  // them the environment's value is gone.
  std::vector<std::uint32_t> set_by;
};

class Variables {
 public:
  // NAME=VALUE with a literal value; `top_level_pipeline` is 0 unless the
  // assignment stands alone at the top level of the line.
  void Assign(std::string_view name, std::string_view value, std::uint32_t top_level_pipeline);
  // A write the text does not give the value of (read NAME, NAME=$(...)).
  void MarkUnknown(std::string_view name);
  // Code the matcher cannot read ran in this shell (source FILE).
  void MarkAllUnknown() { all_unknown_ = true; }

  // Facts about NAME, nullptr when nothing was written to it; facts that
  // cannot be relied on (too many names, unread code) come back unknown.
  const VariableFacts* Find(std::string_view name) const;
  const std::string* Latest(std::string_view name) const;
  bool all_unknown() const { return all_unknown_ || overflow_; }
  bool ifs_written() const { return ifs_written_; }
  bool empty() const { return facts_.empty(); }

 private:
  VariableFacts* Slot(std::string_view name);
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, VariableFacts, Hash, std::equal_to<>> facts_;
  bool all_unknown_ = false;
  bool overflow_ = false;
  bool ifs_written_ = false;
};

struct WrittenFile {
  enum class Kind : std::uint8_t {
    kText,          // content known from the line (echo, printf, a heredoc)
    kUnknown,       // written by a program whose output the text does not give
    kListedCopy,    // a copy or link of a listed program
    kUnknownCopy,   // a copy of a file named at run time
    kOnDisk,        // a copy of a file that was there before the line: runs as it would
  };
  std::string path;  // as written, without leading ./
  Kind kind = Kind::kUnknown;
  std::string content;
  std::size_t entry = 0;  // kListedCopy: the deny-list entry
};

class WrittenFiles {
 public:
  // Records a write; `append` adds to text already known (an unknown file
  // being appended to stays as it was on disk: its start is not ours).
  // Returns the bytes of text kept (the caller counts them as work).
  std::size_t Write(std::string_view path, WrittenFile::Kind kind, std::string_view content,
                    bool append, std::size_t entry = 0);
  // The latest write to `path`, else to a file of the same name in any
  // folder (cd and relative paths are not followed); nullptr when none.
  // `named`: the path names a file to run (not a bare command name), so
  // past the limit on files kept it comes back unknown.
  const WrittenFile* Find(std::string_view path, bool named) const;
  // The latest write under `folder` (hooks in a hooks folder), or nullptr.
  const WrittenFile* FindUnder(std::string_view folder) const;
  bool empty() const { return files_.empty(); }
  const std::list<WrittenFile>& all() const { return files_; }

 private:
  // Stable addresses: their text is parsed in place. A list, not a deque:
  // a deque allocates when made, and most lines write no file.
  std::list<WrittenFile> files_;
  bool overflow_ = false;
};

// Command names run so far in a line, for a function defined after its call
// (in a loop). Most lines run a few programs: those are kept in place, and
// only past them in a hash set, so a line costs no allocation per name.
class CalledNames {
 public:
  // Adds `name` unless kMaxNames different names are kept already.
  void Add(std::string_view name);
  bool Contains(std::string_view name) const;

 private:
  static constexpr std::size_t kFew = 8;
  static constexpr std::size_t kMaxNames = 4096;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::array<std::string, kFew> few_;
  std::size_t few_used_ = 0;
  std::unordered_set<std::string, Hash, std::equal_to<>> more_;
};

// The file path as the matcher compares it: "./a//b" is "a/b".
std::string NormalPath(std::string_view path);

// A function defined in the line: its body, re-read at each call with the
// call's arguments as $1, $2, ...
struct FunctionDef {
  std::string name;
  std::string body;
  shell::Origin origin;
};

// Positional parameters where code runs: a function call's arguments,
// bash -c CODE's operands. kDeferred binds them to nothing (a function body
// read where it is defined: its calls are read later, with their values).
struct Frame {
  enum class Mode : std::uint8_t { kBound, kUnknown, kDeferred };
  Mode mode = Mode::kUnknown;
  std::vector<std::optional<std::string>> params;  // $1, $2, ...; nullopt: known only at run time
};

}  // namespace corral::policy
