#include "base/paths.h"
#include "launcher/engine/engine.h"

#include <filesystem>


namespace corral::launcher {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kSpace = " \t\n\v\f\r";  // isspace's set

// Go's filepath.Clean on a '/'-separated path, then its leading '/' dropped.
std::string CleanPattern(std::string_view pattern) {
  std::string clean = NormalPath(std::string(pattern));
  if (clean.size() > 1 && clean.front() == '/') clean.erase(0, 1);
  return clean.empty() ? "." : clean;
}

bool InClass(const std::string& ranges, char c) {
  for (std::size_t i = 0; i + 1 < ranges.size(); i += 2) {
    if (c >= ranges[i] && c <= ranges[i + 1]) return true;
  }
  return false;
}

}  // namespace

Result<IgnoreRules::Rule> IgnoreRules::Compile(std::string_view pattern, bool exception) {
  Rule rule;
  rule.exception = exception;
  for (std::size_t i = 0; i < pattern.size();) {
    char c = pattern[i];
    if (c == '*' && i + 1 < pattern.size() && pattern[i + 1] == '*') {
      i += 2;
      if (i < pattern.size() && pattern[i] == '/') ++i;
      rule.tokens.emplace_back(i == pattern.size() ? Token::kAnything : Token::kAnyFolders);
    } else if (c == '*') {
      rule.tokens.emplace_back(Token::kStar);
      ++i;
    } else if (c == '?') {
      rule.tokens.emplace_back(Token::kQuestion);
      ++i;
    } else if (c == '\\') {
      rule.tokens.emplace_back(Token::kChar, i + 1 < pattern.size() ? pattern[i + 1] : '\\');
      i += 2;
    } else if (c == '[') {
      Token token{Token::kClass};
      std::size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') {
        token.negated = true;
        ++j;
      }
      bool closed = false;
      for (bool first = true; j < pattern.size(); first = false) {
        if (pattern[j] == ']' && !first) {
          closed = true;
          ++j;
          break;
        }
        char lo = pattern[j] == '\\' && j + 1 < pattern.size() ? pattern[++j] : pattern[j];
        ++j;
        char hi = lo;
        if (j + 1 < pattern.size() && pattern[j] == '-' && pattern[j + 1] != ']') {
          hi = pattern[j + 1] == '\\' && j + 2 < pattern.size() ? pattern[j + 2] : pattern[j + 1];
          j += pattern[j + 1] == '\\' ? 3 : 2;
          if (hi < lo) {
            return Error("the range " + std::string{lo} + "-" + std::string{hi} +
                         " in the pattern \"" + std::string(pattern) + "\" runs backwards");
          }
        }
        token.ranges += lo;
        token.ranges += hi;
      }
      if (!closed) {
        return Error("the pattern \"" + std::string(pattern) + "\" has a [ without its ]");
      }
      rule.tokens.push_back(std::move(token));
      i = j;
    } else {
      rule.tokens.emplace_back(Token::kChar, c);
      ++i;
    }
  }
  return rule;
}

Result<IgnoreRules> IgnoreRules::Parse(std::string_view text) {
  IgnoreRules rules;
  int number = 0;
  while (!text.empty()) {
    std::size_t newline = text.find('\n');
    std::string_view line = Trim(text.substr(0, newline), kSpace);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (line.empty() || line.front() == '#') continue;
    bool exception = line.front() == '!';
    if (exception) {
      line = Trim(line.substr(1), kSpace);
      if (line.empty()) {
        return Error("line " + std::to_string(number) + ": a lone ! excludes nothing; remove it");
      }
    }
    auto rule = Compile(CleanPattern(line), exception);
    if (!rule) return rule.error().Context("line " + std::to_string(number));
    rules.has_exceptions_ = rules.has_exceptions_ || exception;
    rules.rules_.push_back(std::move(*rule));
  }
  return rules;
}

// Whether the whole of `path` matches: a table over (token, offset), filled
// from the end, so no pattern can take exponential time.
bool IgnoreRules::Matches(const Rule& rule, std::string_view path) {
  const std::size_t n = path.size();
  std::vector<char> next(n + 1, 0), here(n + 1, 0);
  next[n] = 1;  // no tokens left: matches only at the end
  for (std::size_t t = rule.tokens.size(); t-- > 0;) {
    const Token& token = rule.tokens[t];
    bool slash_then_rest = false;  // for **: some '/' at or after j, then the rest
    for (std::size_t j = n + 1; j-- > 0;) {
      bool ok = false;
      char c = j < n ? path[j] : '\0';
      switch (token.kind) {
        case Token::kChar: ok = j < n && c == token.c && next[j + 1]; break;
        case Token::kQuestion: ok = j < n && c != '/' && next[j + 1]; break;
        case Token::kClass:
          ok = j < n && InClass(token.ranges, c) != token.negated && next[j + 1];
          break;
        case Token::kStar: ok = next[j] || (j < n && c != '/' && here[j + 1]); break;
        case Token::kAnyFolders:
          slash_then_rest = slash_then_rest || (j < n && c == '/' && next[j + 1]);
          ok = next[j] || slash_then_rest;
          break;
        case Token::kAnything: ok = true; break;
      }
      here[j] = ok;
    }
    next.swap(here);
  }
  return next[0];
}

bool IgnoreRules::Excludes(std::string_view path) const {
  bool excluded = false;
  for (const Rule& rule : rules_) {
    // Only a rule that could change the answer is tried.
    if (rule.exception != excluded) continue;
    bool match = Matches(rule, path);
    for (std::size_t slash = path.find('/'); !match && slash != std::string_view::npos;
         slash = path.find('/', slash + 1)) {
      match = Matches(rule, path.substr(0, slash));
    }
    if (match) excluded = !rule.exception;
  }
  return excluded;
}

Result<std::vector<std::string>> ContextEntries(const std::string& dir) {
  std::error_code error;
  std::string ignore_name = ".dockerignore";
  if (!fs::exists(dir + "/" + ignore_name, error)) ignore_name = ".containerignore";
  if (!fs::exists(dir + "/" + ignore_name, error)) return std::vector<std::string>{};
  auto rules = IgnoreRules::Parse(ReadWholeFile(dir + "/" + ignore_name).value_or(""));
  if (!rules) return rules.error().Context(dir + "/" + ignore_name);

  std::vector<std::string> entries = {"."};
  fs::recursive_directory_iterator it(dir, error), end;
  for (; !error && it != end; it.increment(error)) {
    std::string relative = it->path().lexically_relative(dir).generic_string();
    bool folder = it->is_directory(error) && !it->is_symlink(error);
    bool always = relative == "Dockerfile" || relative == ignore_name;
    if (!always && rules->Excludes(relative)) {
      // Nothing under an excluded folder can come back without an exception.
      if (folder && !rules->has_exceptions()) it.disable_recursion_pending();
      continue;
    }
    entries.push_back("./" + relative);
  }
  if (error) {
    return Error("cannot read " + dir + " for the build: " + error.message() +
                 "; check that every folder in it is readable");
  }
  return entries;
}

}  // namespace corral::launcher
