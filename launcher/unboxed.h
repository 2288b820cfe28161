// Whether a session is boxed (DESIGN.md "Levels"), and the unboxed session:
// the agent runs on the host as the user, with the shim in front of its
// shell, so the deny list still applies. Private to launcher/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/base.h"
#include "launcher/launcher.h"
#include "policy/policy.h"

namespace corral::launcher {

struct BoxDecision {
  bool boxed = true;
  std::string why;  // one line: "level is always", "nobody is watching", ...
};

// always → boxed; off → unboxed; unattended → boxed when started in the
// background (--headless, no terminal) or when nobody is watching. Decided
// once, at start. `watching` is asked only when it matters.
BoxDecision DecideBox(policy::Level level, bool headless, bool at_terminal,
                      const std::function<bool()>& watching);

// The environment an unboxed agent gets: this one, with the session's shim
// folder first in PATH and named by SHELL and CLAUDE_CODE_SHELL.
std::vector<std::string> UnboxedEnvironment(const std::vector<std::string>& current,
                                            const std::string& session_dir,
                                            const std::string& session_id);

// An unboxed session's folder (0700): bin/ holds the shell names, each a
// link to the host's corral-shell. The oracle's socket goes beside them.
Result<void> PrepareUnboxedSessionDir(const std::string& dir, const std::string& shell);

// Runs the agent on the host; the oracle answers its shell commands.
Result<RunOutcome> RunUnboxed(const policy::Policy& policy, const PlanInput& input,
                              const RunOptions& options, const std::string& why);

}  // namespace corral::launcher
