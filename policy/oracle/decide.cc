// The verdict while nobody is watching, and the message the agent reads.
#include "policy/oracle/oracle.h"

namespace corral::policy {
namespace {

constexpr std::string_view kLeaveIt = " Leave it for the user and tell them what it was for.";

}  // namespace

Verdict DecideUnattended(const MatchResult& match, const Policy& policy, bool list_empty) {
  Verdict verdict;
  switch (match.finding) {
    case Finding::kListed:
      verdict.decision = Decision::kDeny;
      verdict.message = "corral blocked this: `" + match.entry +
                        "` may not run while nobody is watching." + std::string(kLeaveIt);
      return verdict;
    case Finding::kUndetermined:
      if (policy.undetermined == Undetermined::kDeny && !list_empty) {
        verdict.decision = Decision::kDeny;
        verdict.message = "corral blocked this: " + match.reason +
                          ", so it could be on the deny list, and such commands may not run while "
                          "nobody is watching. Name the program literally, or" +
                          std::string(kLeaveIt).replace(1, 1, "l");
        return verdict;
      }
      break;
    case Finding::kNone:
      break;
  }
  if (match.dangerous && policy.dangerous_action == DangerousAction::kDenyUnattended) {
    verdict.decision = Decision::kDeny;
    verdict.message = "corral blocked this: it looks dangerous (" + match.dangerous->category +
                      ": " + match.dangerous->description +
                      ") and may not run while nobody is watching." + std::string(kLeaveIt);
  }
  return verdict;
}

ReasonText ReasonFor(const MatchResult& match, const Verdict& verdict) {
  if (!match.reason.empty()) return {"", match.reason};
  if (verdict.decision == Decision::kDeny && match.dangerous) {
    return {"dangerous pattern: ", match.dangerous->description};
  }
  return {"", "no command on the deny list"};
}

}  // namespace corral::policy
