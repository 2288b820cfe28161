// corral check --batch: one verdict line per input line. Audit jobs run it
// over whole histories, so the cost around the matcher is kept small: input is
// read and output written in large blocks, and a line of the usual shape
// ({"command": "..."} in ASCII) is read, and a verdict in ASCII written,
// without a JSON library. Any other line or text goes through nlohmann::json,
// which stays the reference: the output is the same bytes either way.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/cli/cli.h"
#include "policy/oracle/oracle.h"

namespace corral::cli {
namespace {

constexpr std::size_t kReadBlock = 64 * 1024;
constexpr std::size_t kWriteBlock = 64 * 1024;

// The command of a line shaped {"command": "..."} whose string is ASCII with
// no \u escape; false for anything else (the caller asks nlohmann::json then,
// so every error and every other shape reads as before). `command` views
// `line` when the string holds no escape (most do: nothing is copied), else
// `scratch`.
bool ReadCommandLine(std::string_view line, std::string& scratch, std::string_view& command) {
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < line.size() && IsJsonSpace(line[i])) ++i;
  };
  auto take = [&](std::string_view text) {
    if (line.substr(i, text.size()) != text) return false;
    i += text.size();
    return true;
  };
  skip_space();
  if (!take("{")) return false;
  skip_space();
  if (!take("\"command\"")) return false;
  skip_space();
  if (!take(":")) return false;
  skip_space();
  if (i >= line.size() || line[i] != '"') return false;
  std::size_t run = PlainJsonRunEnd(line, i + 1);
  if (run < line.size() && line[run] == '"') {
    command = line.substr(i + 1, run - i - 1);
    i = run + 1;
  } else {
    if (!ReadPlainJsonString(line, i, scratch)) return false;
    command = scratch;
  }
  skip_space();
  if (!take("}")) return false;
  skip_space();
  return i == line.size();
}

// Appends `text` as a JSON string, as nlohmann::json's dump(-1, ' ', false,
// replace) writes it: ASCII here, anything else by nlohmann::json itself.
void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t before = out.size();
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    std::size_t run = PlainJsonRunEnd(text, i);
    out.append(text, i, run - i);
    if (run == text.size()) break;
    unsigned char c = static_cast<unsigned char>(text[run]);
    i = run + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c >= 0x80) {  // UTF-8, perhaps invalid: nlohmann::json's own replacement
          out.resize(before);
          out += nlohmann::json(std::string(text))
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
          return;
        }
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xf]);
    }
  }
  out.push_back('"');
}

// What a verdict line is made of.
struct VerdictParts {
  const std::string* dangerous = nullptr;  // the category, or null
  bool deny = false;
  const std::string* entry = nullptr;  // the listed entry, or null
  policy::ReasonText reason;

  VerdictParts(const policy::MatchResult& match, const policy::Verdict& verdict)
      : dangerous(match.dangerous ? &match.dangerous->category : nullptr),
        deny(verdict.decision == policy::Decision::kDeny),
        entry(match.finding == policy::Finding::kListed ? &match.entry : nullptr),
        reason(policy::ReasonFor(match, verdict)) {}
};

// {"dangerous":...,"decision":...,"entry":...,"reason":...}: nlohmann::json's
// key order (sorted), no spaces.
void AppendVerdict(std::string& out, const VerdictParts& parts) {
  using namespace std::string_view_literals;
  out += "{\"dangerous\":"sv;
  if (parts.dangerous != nullptr) {
    AppendJsonString(out, *parts.dangerous);
  } else {
    out += "null"sv;
  }
  out += parts.deny ? ",\"decision\":\"deny\",\"entry\":"sv : ",\"decision\":\"allow\",\"entry\":"sv;
  if (parts.entry != nullptr) {
    AppendJsonString(out, *parts.entry);
  } else {
    out += "null"sv;
  }
  out += ",\"reason\":"sv;
  if (parts.reason.prefix.empty()) {
    AppendJsonString(out, parts.reason.detail);
  } else {
    AppendJsonString(out, std::string(parts.reason.prefix) + std::string(parts.reason.detail));
  }
  out += "}\n"sv;
}

// The verdict line written last and what it was made of: most lines of a
// history, repeated or not, get the same verdict, and the same parts make
// the same bytes, so writing it again is one copy.
class LastVerdict {
 public:
  void Append(std::string& out, const VerdictParts& parts) {
    if (!Same(parts)) {
      std::size_t start = out.size();
      AppendVerdict(out, parts);
      line_.assign(out, start);
      has_dangerous_ = parts.dangerous != nullptr;
      dangerous_ = has_dangerous_ ? *parts.dangerous : std::string();
      deny_ = parts.deny;
      has_entry_ = parts.entry != nullptr;
      entry_ = has_entry_ ? *parts.entry : std::string();
      prefix_.assign(parts.reason.prefix);
      detail_.assign(parts.reason.detail);
      return;
    }
    out += line_;
  }

 private:
  bool Same(const VerdictParts& parts) const {
    return !line_.empty() && (parts.dangerous != nullptr) == has_dangerous_ &&
           (!has_dangerous_ || *parts.dangerous == dangerous_) && parts.deny == deny_ &&
           (parts.entry != nullptr) == has_entry_ && (!has_entry_ || *parts.entry == entry_) &&
           parts.reason.prefix == prefix_ && parts.reason.detail == detail_;
  }
  std::string line_;
  bool has_dangerous_ = false, deny_ = false, has_entry_ = false;
  std::string dangerous_, entry_, prefix_, detail_;
};

void AppendError(std::string& out, std::size_t number) {
  using namespace std::string_view_literals;
  out += "{\"error\":\"line "sv;
  out += std::to_string(number);
  out += ": expected a JSON object like {\\\"command\\\": \\\"...\\\"}\"}\n"sv;
}

// A hash of a command text, eight bytes at a time (std::hash's byte-wise
// murmur was a tenth of the per-line cost outside the matcher); never 0,
// which marks an empty place below.
std::size_t TextHash(std::string_view text) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ull ^ text.size();
  auto mix = [&hash](std::uint64_t word) {
    hash = (hash ^ word) * 0xff51afd7ed558ccdull;
    hash ^= hash >> 32;
  };
  auto load = [&text](std::size_t at) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + at, 8);
    return word;
  };
  if (text.size() >= 8) {
    for (std::size_t i = 0; i + 8 < text.size(); i += 8) mix(load(i));
    mix(load(text.size() - 8));  // the last eight bytes, overlapping the loop's
  } else {
    std::uint64_t word = 0;
    for (char c : text) word = word << 8 | static_cast<unsigned char>(c);
    mix(word);
  }
  return hash == 0 ? 1 : static_cast<std::size_t>(hash);
}

// Verdict lines already written, by command text. The matcher reads nothing
// but the text and the list, so a command seen before gets the same bytes
// again; histories repeat themselves (git status, npm test), and for such a
// line a lookup replaces a parse. A text is kept the second time it is seen
// (the first only leaves its hash), in a fixed table, each text in one of two
// slots, the newer replacing the older: a stream of lines that never repeat pays a hash
// and a store for it, and nothing is rehashed or grows.
class VerdictMemo {
 public:
  VerdictMemo() : seen_(kSlots) {}

  // The kept verdict for `command` (its hash in `hash`), or null.
  const std::string* Find(std::string_view command, std::size_t& hash) const {
    hash = TextHash(command);
    if (slots_.empty()) return nullptr;
    for (std::size_t at : Places(hash)) {
      const Slot& slot = slots_[at];
      if (slot.hash == hash && slot.command == command) return &slot.line;
    }
    return nullptr;
  }
  void Keep(std::string_view command, std::size_t hash, std::string_view line) {
    auto [first, second] = Places(hash);
    if (seen_[first] != hash && seen_[second] != hash) {  // the first time: only its hash
      seen_[seen_[first] == 0 ? first : second] = hash;
      return;
    }
    if (command.size() > kMaxCommand) return;
    if (slots_.empty()) slots_.resize(kSlots);
    Slot& slot = slots_[first].hash == 0 || slots_[first].hash == hash ? slots_[first]
                                                                        : slots_[second];
    slot.hash = hash;
    slot.command.assign(command);
    slot.line.assign(line);
  }

 private:
  static constexpr std::size_t kSlots = 8192;  // a power of two
  static constexpr std::size_t kMaxCommand = 4096;
  struct Slot {
    std::size_t hash = 0;
    std::string command, line;
  };
  // Two places a text may sit, from two parts of its hash, so that two
  // texts that share one place do not keep pushing each other out.
  static std::array<std::size_t, 2> Places(std::size_t hash) {
    return {hash & (kSlots - 1), (hash >> 32) & (kSlots - 1)};
  }
  std::vector<std::size_t> seen_;
  std::vector<Slot> slots_;
};

// Bytes read and not yet decided. Room for a read is not zero-filled first,
// as std::string::resize did (a memset of every block, 2% of a line's cost).
class ReadBuffer {
 public:
  std::string_view view() const { return {data_.get(), size_}; }
  // Drops the first `n` bytes.
  void Consume(std::size_t n) {
    if (n == 0) return;
    std::memmove(data_.get(), data_.get() + n, size_ - n);
    size_ -= n;
  }
  // Appends up to `block` bytes read from `fd`: read's answer (0 at the end).
  ssize_t ReadFrom(int fd, std::size_t block) {
    if (capacity_ - size_ < block) Grow(size_ + block);
    ssize_t n = read(fd, data_.get() + size_, block);
    while (n < 0 && errno == EINTR) n = read(fd, data_.get() + size_, block);
    if (n > 0) size_ += static_cast<std::size_t>(n);
    return n;
  }

 private:
  void Grow(std::size_t need) {
    std::size_t capacity = std::max(need, capacity_ * 2);
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = capacity;
  }
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

// Writes all of `out` to stdout and empties it. After a failed write the
// rest is dropped, as std::cout did (a closed pipe ends the process first).
void Flush(std::string& out, bool& broken) {
  if (!broken && !out.empty()) broken = !WriteAll(STDOUT_FILENO, out.data(), out.size());
  out.clear();
}

}  // namespace

int RunCheckBatch(int fd, const policy::Matcher& matcher, const policy::Policy& policy) {
  ReadBuffer in;
  std::string out, scratch;
  out.reserve(kWriteBlock + 4096);
  std::size_t start = 0, number = 0;
  bool at_end = false, broken = false;
  VerdictMemo memo;
  LastVerdict last;
  auto decide = [&](std::string_view line) {
    ++number;
    std::string_view text;
    nlohmann::json parsed;
    if (!ReadCommandLine(line, scratch, text)) {
      parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_object() || !parsed.contains("command") || !parsed["command"].is_string()) {
        AppendError(out, number);
        return;
      }
      text = parsed["command"].get_ref<const std::string&>();
    }
    std::size_t hash = 0;
    if (const std::string* seen = memo.Find(text, hash)) {
      out += *seen;
      return;
    }
    std::size_t start_of_line = out.size();
    auto match = matcher.Check(text);
    last.Append(out, VerdictParts(match, policy::DecideUnattended(match, policy, matcher.empty())));
    memo.Keep(text, hash, std::string_view(out).substr(start_of_line));
  };
  while (!at_end) {
    // Before a read that may wait, the verdicts so far go out: a caller that
    // writes one line and waits for its answer gets it.
    Flush(out, broken);
    in.Consume(start);
    start = 0;
    std::size_t have = in.view().size();
    at_end = in.ReadFrom(fd, kReadBlock) <= 0;
    std::string_view view = in.view();
    // What was kept from the last block holds no newline: search the new bytes
    // only, so a line of many blocks is scanned once.
    for (std::size_t end, from = have; (end = view.find('\n', from)) != std::string_view::npos;
         start = from = end + 1) {
      decide(view.substr(start, end - start));
      if (out.size() >= kWriteBlock) Flush(out, broken);
    }
    if (at_end && start < view.size()) decide(view.substr(start));  // no final newline
  }
  Flush(out, broken);
  return kExitOk;
}

}  // namespace corral::cli
