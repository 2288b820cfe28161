// What the exec check asks the host's oracle: whether somebody is watching
// (kept for a moment, so an exec never waits on it), and the verdict on a
// listed exec, which the oracle logs and keeps for the inbox. Private to the
// shim.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "images/shim/exec_decision.h"

namespace corral::shim {

class HostAnswers {
 public:
  virtual ~HostAnswers() = default;
  // Somebody is watching, as last heard within a moment; never waits (a
  // stale answer is asked for again in the background, and means "no").
  virtual bool Watching() = 0;
  // A listed exec while nobody is known to watch: true when the host refuses
  // it (nobody watching now, or the host cannot be asked).
  virtual bool Refuses(const ExecVerdict& verdict, std::string_view program,
                       std::string_view cwd) = 0;
};

// The oracle on the unix socket at `socket_path` (docs/architecture.md, "Wire
// format: shim ⇄ oracle"): `{"v":1,"ask":"watching"}` and an exec as a
// command from shell "exec".
std::unique_ptr<HostAnswers> OracleAnswers(std::string socket_path);

}  // namespace corral::shim
