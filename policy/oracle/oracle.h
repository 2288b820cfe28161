// policy/oracle/: the host side of the shim. The decision on one command
// line (a match, the policy and whether somebody is watching), and the
// server that makes it for a session on its unix socket.
// The one public header of policy/oracle/ (docs/architecture.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "policy/config/config.h"
#include "policy/inbox/inbox.h"
#include "policy/matcher/matcher.h"

namespace corral::policy {

// The verdict while nobody is watching, from a match and the policy's
// `undetermined` and `dangerous.action`.
enum class Decision { kAllow, kDeny };
struct Verdict {
  Decision decision = Decision::kAllow;
  std::string message;  // for the agent when refused
};
Verdict DecideUnattended(const MatchResult& match, const Policy& policy, bool list_empty);

// Why a verdict is what it is, as `corral check` and the session record say
// it: the text is prefix + detail.
struct ReasonText {
  std::string_view prefix, detail;
};
ReasonText ReasonFor(const MatchResult& match, const Verdict& verdict);

// The host side of the shim: answers "may this shell command run?" on a
// per-session unix socket (docs/architecture.md, "Wire format: shim ⇄ oracle").
struct OracleOptions {
  std::string socket_path;      // created mode 0600; the session is known by it
  LoadOptions policy_source;    // reloaded when the config file changes
  std::string deny_list_copy;   // the current list, one entry per line, for the
                                // shim's fallback ("" = none)
  // Told the copy's text each time it is rewritten (a config edit), for a
  // copy kept elsewhere (the network mode's session volume). Called under the
  // oracle's lock on a worker thread: it must return at once. May be empty.
  std::function<void(const std::string& text)> on_deny_list_copy;
  // Given each decision as one JSON line ({"event":"command",...}, the
  // fields of `corral check --json`); called on a worker thread. May be empty.
  std::function<void(std::string_view line)> record;
  std::string inbox_dir;        // refusals while away ("" = no inbox)
  std::string session, project, agent;
  // Somebody is watching; asked only when a command would be refused.
  std::function<bool()> watching;
  // Told of each refusal while away, after the inbox has it (notifications).
  // Called on a worker thread: it must return at once.
  std::function<void(const InboxItem&)> on_refused_while_away;
  int workers = 4;
};

struct OracleStats {
  std::uint64_t allowed = 0;
  std::uint64_t refused = 0;
  std::uint64_t refused_while_away = 0;  // listed or undetermined, nobody watching
};

class Oracle {
 public:
  // Loads the policy, binds the socket and starts answering.
  static Result<std::unique_ptr<Oracle>> Start(OracleOptions options);
  virtual ~Oracle() = default;
  // Stops answering and removes the socket. Idempotent.
  virtual void Stop() = 0;
  virtual OracleStats Stats() const = 0;
};

// One decision, as the oracle makes it (exposed for tests and `corral check`).
struct OracleAnswer {
  Decision decision = Decision::kAllow;
  std::string message;
  MatchResult match;
};
OracleAnswer DecideCommand(const Matcher& matcher, const Policy& policy, std::string_view command,
                           const std::function<bool()>& watching);

}  // namespace corral::policy
