#include "netfilter/forge/forge_text.h"
#include "netfilter/forge/repo_path.h"

#include <cstddef>
#include <set>

#include <nlohmann/json.hpp>

namespace corral::netfilter::forge {
namespace {

constexpr std::size_t kMaxSegment = 100;  // GitHub's limit for a name

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One segment with its escapes decoded. A decoded byte that would split or read
// the path differently (an escaped '/' is where forges and proxies disagree),
// or a '%' that a second decoding would turn into something else, is refused.
Result<std::string> DecodeSegment(std::string_view raw) {
  std::string out;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '%') {
      out += raw[i];
      continue;
    }
    int high = i + 2 < raw.size() ? HexValue(raw[i + 1]) : -1;
    int low = i + 2 < raw.size() ? HexValue(raw[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return Error(Quoted(raw.substr(i, 3)) + " is not a %-escape (two hex digits)");
    }
    unsigned char byte = static_cast<unsigned char>(high * 16 + low);
    if (byte == '/' || byte == '\\' || byte == '?' || byte == '#' || byte == '%' ||
        IsControl(byte) || byte >= 0x80) {
      return Error(Quoted(raw.substr(i, 3)) +
                   " escapes a character that servers read differently; write the path "
                   "without it");
    }
    out += static_cast<char>(byte);
    i += 2;
  }
  return out;
}

// The path's segments with dot segments resolved. With `keep_empty`, empty
// segments take part as RFC 3986 says ("a//.." is "a/"); without, they are
// dropped first, as servers that merge slashes do.
Result<std::vector<std::string>> RemoveDotSegments(const std::vector<std::string>& decoded,
                                                   bool keep_empty) {
  std::vector<std::string> out;
  for (const std::string& segment : decoded) {
    if (segment.empty() && !keep_empty) continue;
    if (segment == ".") continue;
    if (segment == "..") {
      if (out.empty()) return Error("'..' climbs above the root");
      out.pop_back();
      continue;
    }
    out.push_back(segment);
  }
  std::erase(out, std::string());
  return out;
}

std::string JoinSegments(std::span<const std::string> segments) {
  std::string out;
  for (const std::string& segment : segments) out += "/" + segment;
  return out.empty() ? "/" : out;
}

// Where git's part of a path could begin, and what it would be.
enum class Endpoint {
  kInfoRefs,
  kUploadPack,
  kReceivePack,
  kLfsBatch,
  kLfsLocks,
  kLfsObject,
  kLfsOther,
  kDumb
};
struct Reading {
  Endpoint endpoint;
  bool exact_case;  // spelled as git spells it
};

bool IsLfsOid(std::string_view text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// Git's part of the path, if `tail` (the segments after the repository) is
// one. Names that can start a write are matched without regard to case, as a
// forge might, so that a different spelling is refused rather than let by;
// the dumb protocol's reads must be spelled exactly.
std::optional<Reading> ReadingOf(std::span<const std::string> tail) {
  std::size_t n = tail.size();
  auto is = [&](std::size_t i, std::string_view word) { return AsciiLower(tail[i]) == word; };
  auto exact = [&](std::size_t words) {
    for (std::size_t i = 0; i < words; ++i) {
      if (tail[i] != AsciiLower(tail[i])) return false;
    }
    return true;
  };
  if (n == 2 && is(0, "info") && is(1, "refs")) return Reading{Endpoint::kInfoRefs, exact(2)};
  if (n == 1 && is(0, "git-upload-pack")) return Reading{Endpoint::kUploadPack, exact(1)};
  if (n == 1 && is(0, "git-receive-pack")) return Reading{Endpoint::kReceivePack, exact(1)};
  if (n >= 2 && is(0, "info") && is(1, "lfs")) {
    if (n == 4 && is(2, "objects") && is(3, "batch")) return Reading{Endpoint::kLfsBatch, exact(4)};
    if (n >= 3 && is(2, "locks")) return Reading{Endpoint::kLfsLocks, exact(3)};
    if (n == 4 && is(2, "objects") && IsLfsOid(tail[3])) {
      return Reading{Endpoint::kLfsObject, exact(3)};
    }
    return Reading{Endpoint::kLfsOther, exact(2)};
  }
  if (n == 1 && tail[0] == "HEAD") return Reading{Endpoint::kDumb, true};
  if (n >= 3 && tail[0] == "objects") return Reading{Endpoint::kDumb, true};
  return std::nullopt;
}

// The request a reading makes, given its method and query.
Result<std::optional<GitRequest>> Judge(std::string_view method, std::string_view query,
                                        Endpoint endpoint, const RepoPath& repo) {
  auto made = [&](GitOp op, bool write) -> Result<std::optional<GitRequest>> {
    return std::optional<GitRequest>(GitRequest{repo, op, write});
  };
  auto refused = [&](std::string_view why) {
    return Error("git request for " + Quoted(repo.path) + " " + std::string(why));
  };
  bool get = method == "GET", head = method == "HEAD", post = method == "POST";
  if (!query.empty() && endpoint != Endpoint::kInfoRefs && endpoint != Endpoint::kLfsLocks) {
    return refused("has a query, which git never sends there");
  }
  switch (endpoint) {
    case Endpoint::kInfoRefs:
      if (query.empty()) {  // the dumb protocol
        if (get || head) return made(GitOp::kDumb, false);
        return refused("uses " + Quoted(method) + " on info/refs; git uses GET");
      }
      if (!get) return refused("uses " + Quoted(method) + " on info/refs; git uses GET");
      if (query == "service=git-upload-pack") return made(GitOp::kAdvertiseUpload, false);
      if (query == "service=git-receive-pack") return made(GitOp::kAdvertiseReceive, true);
      return refused("asks info/refs for " + Quoted(query) +
                     "; git asks for exactly service=git-upload-pack or "
                     "service=git-receive-pack");
    case Endpoint::kUploadPack:
      if (post) return made(GitOp::kUploadPack, false);
      return refused("uses " + Quoted(method) + " on git-upload-pack; git uses POST");
    case Endpoint::kReceivePack:
      if (post) return made(GitOp::kReceivePack, true);
      return refused("uses " + Quoted(method) + " on git-receive-pack; git uses POST");
    case Endpoint::kLfsBatch:
      if (post) return made(GitOp::kLfsBatch, false);
      return refused("uses " + Quoted(method) + " on the LFS batch API; it takes POST");
    case Endpoint::kLfsLocks: return made(GitOp::kLfsLocks, !get);
    case Endpoint::kLfsObject:
      if (get || head) return made(GitOp::kLfsObject, false);
      if (post || method == "PUT") return made(GitOp::kLfsObject, true);
      return refused("uses " + Quoted(method) + " on an LFS object");
    case Endpoint::kLfsOther:
      return refused(
          "is an LFS request corral does not know; it knows objects/batch, "
          "objects/<oid> and locks");
    case Endpoint::kDumb:
      if (get || head) return made(GitOp::kDumb, false);
      return refused("uses " + Quoted(method) + " on the dumb protocol, which only reads");
  }
  return refused("is of no kind corral knows");
}

// Reads an LFS batch body's top-level "operation" without building the
// document, refusing a duplicate key at any depth (two parsers could pick
// different values).
class BatchOperation : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> operation;
  std::string problem;

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool string(string_t& text) override {
    if (awaiting_operation_) operation = text;
    awaiting_operation_ = false;
    return Value();
  }
  bool start_object(std::size_t) override {
    if (!Value(/*is_object=*/true)) return false;
    keys_.emplace_back();
    ++depth_;
    return true;
  }
  bool key(string_t& name) override {
    if (!keys_.back().insert(name).second) return Fail("has the key " + Quoted(name) + " twice");
    awaiting_operation_ = depth_ == 1 && name == "operation";
    return true;
  }
  bool end_object() override {
    keys_.pop_back();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (!Value()) return false;
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return Fail("is not valid JSON");
  }

 private:
  // Any value: the document itself must be an object, and "operation" a string.
  bool Value(bool is_object = false) {
    if (awaiting_operation_) return Fail("has an \"operation\" that is not a string");
    if (depth_ == 0 && !is_object) return Fail("is not a JSON object");
    return true;
  }
  bool Fail(std::string why) {
    if (problem.empty()) problem = std::move(why);
    return false;
  }

  std::vector<std::set<std::string>> keys_;  // one per open object
  std::size_t depth_ = 0;                    // objects and arrays open
  bool awaiting_operation_ = false;          // the top level's "operation" key was just read
};

}  // namespace

Result<RepoPath> RepoPathFromSegments(std::span<const std::string> segments) {
  constexpr std::string_view kForm = "; a repository is written owner/name or group/sub/name";
  if (segments.size() < 2) {
    return Error(Quoted(JoinSegments(segments)) + " has fewer than two segments" +
                 std::string(kForm));
  }
  RepoPath repo;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    std::string segment = AsciiLower(segments[i]);
    for (char c : segment) {
      if (!IsNameChar(c)) {
        return Error(Quoted(segments[i]) + " may hold only letters, digits, '.', '_' and '-'" +
                     std::string(kForm));
      }
    }
    // Forges take "name.git" for "name", once.
    if (i + 1 == segments.size() && segment.ends_with(".git")) segment.resize(segment.size() - 4);
    if (segment.empty() || segment == "." || segment == "..") {
      return Error(Quoted(segments[i]) + " is not a name" + std::string(kForm));
    }
    if (segment.size() > kMaxSegment) {
      return Error(Quoted(segments[i]) + " is longer than 100 characters");
    }
    if (i > 0) repo.path += '/';
    repo.path += segment;
  }
  return repo;
}

Result<RepoPath> ParseRepoPath(std::string_view text) {
  std::string_view body = text;
  if (text.find("://") != std::string_view::npos) {
    return Error(Quoted(text) + " is a URL; write the repository as owner/name, without the host");
  }
  if (body.starts_with('/')) body.remove_prefix(1);
  if (body.ends_with('/')) body.remove_suffix(1);
  std::vector<std::string> segments;
  for (std::size_t start = 0;;) {
    std::size_t slash = body.find('/', start);
    std::string_view segment = body.substr(start, slash - start);
    if (segment.empty()) {
      return Error(Quoted(text) +
                   " has an empty segment; write it as owner/name or group/sub/name");
    }
    segments.emplace_back(segment);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  auto repo = RepoPathFromSegments(segments);
  if (!repo) return repo.error().Context("repository " + Quoted(text));
  return repo;
}

Result<Target> ResolveTarget(std::string_view origin_form_target) {
  std::string_view text = origin_form_target;
  if (text.empty() || text[0] != '/') {
    return Error("request target " + Quoted(text) + " is not a path beginning with '/'");
  }
  if (text.find('#') != std::string_view::npos) {
    return Error(Quoted(text) + " holds a '#', which a client never sends");
  }
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == ' ' || IsControl(byte) || byte >= 0x80) {
      return Error(Quoted(text) + " holds a backslash, space, control or non-ASCII byte");
    }
  }
  std::size_t question = text.find('?');
  Target target;
  if (question != std::string_view::npos) target.query = std::string(text.substr(question + 1));
  std::string_view path = text.substr(0, question);

  std::vector<std::string> decoded;
  for (std::size_t start = 1;;) {
    std::size_t slash = path.find('/', start);
    auto segment = DecodeSegment(path.substr(start, slash - start));
    if (!segment) return segment.error().Context("path " + Quoted(path));
    decoded.push_back(std::move(*segment));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  // Segments that are "." or ".." only once decoded ("%2e%2E") are resolved
  // as RFC 3986 resolves them; servers differ here, and a literal ".." is never
  // a repository's name. Where merging doubled slashes first would give another
  // path ("a//.."), the target is ambiguous and refused.
  auto as_rfc = RemoveDotSegments(decoded, /*keep_empty=*/true);
  auto merged = RemoveDotSegments(decoded, /*keep_empty=*/false);
  if (!as_rfc || !merged) {
    return (!as_rfc ? as_rfc : merged).error().Context("path " + Quoted(path));
  }
  if (*as_rfc != *merged) {
    return Error("path " + Quoted(path) +
                 " resolves to two paths, depending on whether a server merges doubled "
                 "slashes before '..'");
  }
  target.segments = std::move(*as_rfc);
  return target;
}

Result<std::optional<GitRequest>> ClassifyGitRequest(std::string_view method,
                                                     const Target& target) {
  std::span<const std::string> segments = target.segments;
  std::optional<Reading> chosen;
  RepoPath repo;
  // Every place git's part could begin is tried: a target that two of them
  // would read as requests for two repositories is refused, not guessed. No
  // forge has a repository of fewer than two segments.
  for (std::size_t start = 2; start < segments.size(); ++start) {
    std::optional<Reading> reading = ReadingOf(segments.subspan(start));
    if (!reading) continue;
    auto named = RepoPathFromSegments(segments.first(start));
    if (!named) {
      return named.error().Context(Quoted(JoinSegments(segments)) +
                                   " is shaped like a git request");
    }
    if (chosen) {
      return Error(Quoted(JoinSegments(segments)) + " reads as a git request for both " +
                   Quoted(repo.path) + " and " + Quoted(named->path) +
                   "; refusing rather than guessing");
    }
    chosen = reading;
    repo = std::move(*named);
  }
  if (!chosen) return std::optional<GitRequest>();
  if (!chosen->exact_case) {
    return Error(Quoted(JoinSegments(segments)) +
                 " spells git's endpoint in a case git never sends; refusing rather than "
                 "guessing how the forge reads it");
  }
  return Judge(method, target.query, chosen->endpoint, repo);
}

Result<bool> LfsBatchIsUpload(std::string_view json_body) {
  // nlohmann takes a NUL byte for the end of the input; JSON has none.
  if (json_body.find('\0') != std::string_view::npos) {
    return Error("LFS batch request body holds a NUL byte, which JSON never does");
  }
  BatchOperation reader;
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(json_body.begin(), json_body.end(), &reader);
  } catch (const nlohmann::json::exception&) {
    parsed = false;
  }
  if (!parsed) {
    return Error("LFS batch request body " +
                 (reader.problem.empty() ? "is not valid JSON" : reader.problem));
  }
  if (reader.operation == "upload") return true;
  if (reader.operation == "download") return false;
  if (!reader.operation) return Error("LFS batch request body has no \"operation\"");
  return Error("LFS batch request's operation " + Quoted(*reader.operation) +
               " is neither \"upload\" nor \"download\"");
}

}  // namespace corral::netfilter::forge
