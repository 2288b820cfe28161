// launcher/: the commands the corral program runs (cli/ calls them): a
// session, the running sessions listed, stopped or entered, a session's
// report. The session plan's data is in session_plan.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/session_plan.h"
#include "policy/config/config.h"

namespace corral::launcher {

struct RunOptions {
  std::string engine;     // --engine URL, else policy/environment discovery
  bool print_only = false;
  bool headless = false;
  // --review (or review.projects names the project): the box works on an
  // overlay of the project; its work arrives as branch corral/SESSION.
  bool review = false;
  int events_fd = -1;  // --json-events: every record line is copied here too
  std::string build_context;  // --build DIR: builds the image from it when missing
  std::vector<PublishedPort> published;  // --publish
  // Where the policy came from: the oracle reloads it when the file changes.
  policy::LoadOptions policy_source;
};

// Runs one session: plan, engine, image, create, start, attach, wait,
// remove. Returns the agent's exit status, or 125 when the box could not be
// set up (the error is in the Result then).
struct RunOutcome {
  RunOutcome(int code = 0) : exit_code(code) {}  // NOLINT: an exit status is an outcome
  int exit_code = 0;
  std::uint64_t blocked_while_away = 0;  // commands the oracle refused
  std::vector<std::string> blocked_named;  // the first few of them (BlockedLine)
  std::uint64_t refused = 0;             // commands refused at all
  std::map<std::string, std::uint64_t> refused_hosts;  // by the proxy, with counts
  std::string record_path;               // the session record ("" when none)
  // The auto-run files held for review, and any that could not be put back
  // (launcher/autorun/): one line each, for the end of the session.
  std::vector<std::string> held_lines;
};
Result<RunOutcome> Run(const policy::Policy& policy, std::vector<std::string> agent_command,
                       const std::string& image, const RunOptions& options);

// "Had 2 commands blocked while you were away (`aws s3 ls`, `git push --force
// origin main`): corral inbox", or "" for none; `named`: the first few.
std::string BlockedLine(std::uint64_t refused_while_away, const std::vector<std::string>& named);
// corral report: the record of `session` (an id or its prefix; "" = the last
// one) summed up (docs/events.md, "corral report"), and that as text.
Result<nlohmann::json> ReportSession(const std::string& state_dir, const std::string& session);
std::string DescribeReport(const nlohmann::json& report);


// `corral ps`: one line per running session, and one per project volume of
// a session that is gone (the box's work kept there). `corral stop`: by
// session id, container name or id prefix; then the session's project
// volume, if any, copied back and removed; what it did, for the user.
Result<std::string> ListSessions(const policy::Policy& policy, const std::string& engine);
Result<std::string> StopSession(const policy::Policy& policy, const std::string& engine,
                                const std::string& id);
// `corral exec`: `command` (none: a shell) in session `id`'s running box as
// one of the agent's own processes; the command's exit status.
Result<int> ExecInSession(const policy::Policy& policy, const std::string& engine,
                          const std::string& id, const std::vector<std::string>& command);

// `corral project-copy in|back SESSION` (hidden, project_copy_trial.cc):
// the project copied into the session's volume, or the box's changes back
// (from the saved manifest), without an agent, for the tests.
struct ProjectCopyTrialOptions {
  std::string engine, action, session_id, project_dir, image;
  std::uint32_t uid = 0, gid = 0;
};
Result<std::string> ProjectCopyTrial(const policy::Policy& policy,
                                     const ProjectCopyTrialOptions& options);

// `corral relay --listen PATH` (hidden), in the network mode's sidecar: the
// shim's questions on PATH go out on stdout, the answers come in on stdin
// (docs/network-mode.md, "The oracle channel"). Returns when stdin ends.
Result<void> RunOracleRelay(const std::string& socket_path, const std::string& watchdog_path);

// `corral cache ls`: this user's package caches' volumes on the engine
// (docs/sessions.md, "Package caches"). `corral cache rm`: those named (a
// volume's name, or a tool's: npm, pip, cargo, go, go-build), or all; a
// volume a box uses stays, and `problems` says so.
Result<std::string> ListCaches(const policy::Policy& policy, const std::string& engine);
struct CachesRemoved {
  std::string lines;     // one per volume removed
  std::string problems;  // one per volume that stays or was not found; "" when none
};
// Each a tool's name or a cache volume's; else an error naming the tools.
Result<void> CheckCacheNames(const std::vector<std::string>& names);
Result<CachesRemoved> RemoveCaches(const policy::Policy& policy, const std::string& engine,
                                   const std::vector<std::string>& names);

inline constexpr int kExitBoxFailed = 125;
inline constexpr int kExitNotFound = 127;  // no such agent or program

}  // namespace corral::launcher
