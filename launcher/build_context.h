// What `corral run --build DIR` sends to the engine: the folder, less what
// its .dockerignore (or .containerignore) excludes, as the docker CLI does.
// The engine's API takes the context as it is given, so without this a
// .env or node_modules would be sent and could be copied into the image.
// Private to launcher/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/base.h"

namespace corral::launcher {

// The patterns of an ignore file, read as Docker reads them: each line
// trimmed, '#' lines and blank lines skipped, '!' marks an exception, a
// pattern cleaned like a path with its leading '/' dropped. The glob is Go's
// filepath.Match ('*' and '?' stop at '/', [...] classes negated by '^', '\'
// escapes) plus '**', which matches any number of folders. A pattern
// excludes a path when it matches the path or one of its parent folders; the
// last pattern that matches decides.
class IgnoreRules {
 public:
  static Result<IgnoreRules> Parse(std::string_view text);

  // `path` is relative to the context's root, '/'-separated, without "./".
  bool Excludes(std::string_view path) const;
  bool has_exceptions() const { return has_exceptions_; }

 private:
  struct Token {
    enum Kind : unsigned char {
      kChar,        // one byte, as written
      kStar,        // *: any bytes but '/'
      kQuestion,    // ?: one byte but '/'
      kClass,       // [a-z...] or [^...]: `ranges` holds lo,hi pairs
      kAnyFolders,  // ** (and **/): nothing, or anything ending in '/'
      kAnything,    // ** at the end: anything at all
    } kind;
    explicit Token(Kind k, char byte = 0) : kind(k), c(byte) {}
    char c = 0;
    bool negated = false;
    std::string ranges;
  };
  struct Rule {
    std::vector<Token> tokens;
    bool exception = false;
  };
  static Result<Rule> Compile(std::string_view pattern, bool exception);
  static bool Matches(const Rule& rule, std::string_view path);

  std::vector<Rule> rules_;
  bool has_exceptions_ = false;
};

// The entries of `dir` to pack, as "./relative/path" (folders included, the
// root first as "."), or an empty list when the folder has no ignore file
// (then all of it is packed). The Dockerfile and the ignore file itself are
// always sent: the engine needs them.
Result<std::vector<std::string>> ContextEntries(const std::string& dir);

}  // namespace corral::launcher
