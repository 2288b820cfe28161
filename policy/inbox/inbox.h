// policy/inbox/: the commands and hosts refused while the user was away,
// kept in a locked file until they look.
// The one public header of policy/inbox/ (docs/architecture.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/base.h"

namespace corral::policy {

// A command refused while the user was away, kept until they look.
struct InboxItem {
  std::string time;  // ISO 8601, UTC
  std::string session;
  std::string project;
  std::string agent;
  std::string command;  // kind "host": the host name; else the agent's whole text
  std::string entry;    // the list line, or "" when undetermined/dangerous
  std::string kind = "command";  // or "host": a host the proxy refused
  std::uint64_t times = 1;       // kind "host": refusals in that session
  // The simple command the deny list matched in `command` (an agent's wrapper, such
  // as Claude Code's `eval '...'`, taken off); "" when none was found.
  std::string refused{};
};

// The inbox lives in <state_dir>/inbox.jsonl; both calls take an exclusive
// lock, so concurrent sessions never lose or tear an item.
Result<void> InboxAdd(const std::string& state_dir, const InboxItem& item);
// Returns every item, oldest first; clears the inbox unless `keep`.
Result<std::vector<InboxItem>> InboxTake(const std::string& state_dir, bool keep);

}  // namespace corral::policy
