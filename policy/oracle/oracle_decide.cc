// One decision: matcher x presence x policy. Presence is asked only when the
// command would be refused, so ordinary commands never wait on it.
#include "policy/oracle/oracle.h"

namespace corral::policy {

OracleAnswer DecideCommand(const Matcher& matcher, const Policy& policy, std::string_view command,
                           const std::function<bool()>& watching) {
  OracleAnswer answer;
  answer.match = matcher.Check(command);
  if (answer.match.finding == Finding::kNone && !answer.match.dangerous) return answer;
  Verdict verdict = DecideUnattended(answer.match, policy, matcher.empty());
  if (verdict.decision == Decision::kDeny && !(watching && watching())) {
    answer.decision = Decision::kDeny;
    answer.message = std::move(verdict.message);
  }
  return answer;
}

}  // namespace corral::policy
