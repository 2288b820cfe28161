// Matcher: the deny list compiled once, and Check, which parses a command
// line and walks every program it runs.
#include "policy/matcher/command_walker.h"
#include "policy/matcher/deny_list.h"
#include "policy/matcher/matcher.h"
#include "policy/shell/shell.h"

namespace corral::policy {
namespace {

// Past these the answer is "undetermined" (fail closed), never a crash or
// a long wait.
constexpr std::size_t kMaxInputBytes = 2 * 1024 * 1024;
constexpr std::size_t kMaxNesting = 48;
// Nested texts (bash -c '...', eval, backquotes) are parsed again; their
// total is bounded by a multiple of the input.
constexpr std::size_t kWorkFactor = 8;
constexpr std::size_t kMinWork = 256 * 1024;

constexpr std::string_view kUndetermined = "the program could not be determined: ";

}  // namespace

struct Matcher::Impl {
  DenyList list;
};

Matcher::Matcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Result<Matcher> Matcher::Create(const std::vector<std::string>& entries) {
  Result<DenyList> list = DenyList::Compile(entries);
  if (!list.ok()) return list.error();
  auto impl = std::make_unique<Impl>();
  impl->list = std::move(list.value());
  return Matcher(std::move(impl));
}

bool Matcher::empty() const { return impl_->list.empty(); }

bool Matcher::ListsCommand(std::string_view name) const { return impl_->list.ForCommand(name) != nullptr; }

MatchResult Matcher::Check(std::string_view command) const {
  MatchResult result;
  if (command.size() > kMaxInputBytes) {
    result.finding = Finding::kUndetermined;
    result.reason = std::string(kUndetermined) + "the command is longer than the " +
                    std::to_string(kMaxInputBytes / (1024 * 1024)) + " MiB limit";
    return result;
  }
  shell::ParseState state;
  state.max_depth = kMaxNesting;
  state.work_limit = std::max(command.size() * kWorkFactor, kMinWork);
  Walker walker(impl_->list, command, state);
  shell::ParseShell(command, shell::Origin{}, walker, state, 0);
  walker.Finish();
  walker.Fill(&result);
  if (result.finding == Finding::kListed) return result;
  // A limit beats the walker's own reason: the rest of the line went unread.
  if (state.aborted()) {
    result.finding = Finding::kUndetermined;
    result.words.clear();
    result.reason = std::string(kUndetermined) + state.limit;
    return result;
  }
  if (result.finding == Finding::kNone && !state.error.empty()) {
    result.finding = Finding::kUndetermined;
    result.reason = std::string(kUndetermined) + "the command could not be parsed (" +
                    state.error + ")";
  }
  return result;
}

}  // namespace corral::policy
