// PLACEHOLDER: replaced by the real shell lexer/parser/matcher.
#include "policy/policy.h"

namespace corral::policy {

struct Matcher::Impl {
  std::vector<std::string> entries;
};

Matcher::Matcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Matcher::Matcher(Matcher&&) noexcept = default;
Matcher& Matcher::operator=(Matcher&&) noexcept = default;
Matcher::~Matcher() = default;

Result<Matcher> Matcher::Create(const std::vector<std::string>& entries) {
  auto impl = std::make_unique<Impl>();
  impl->entries = entries;
  return Matcher(std::move(impl));
}

bool Matcher::empty() const { return impl_->entries.empty(); }

MatchResult Matcher::Check(std::string_view) const { return {}; }

}  // namespace corral::policy
