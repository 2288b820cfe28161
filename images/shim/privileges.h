// PID 1's short privileged phase (docs/exec-check.md, "The gate"): the box
// starts as root with the capabilities to set the gate up, and every
// process leaves that phase as the agent's user with no capability, as a
// runtime's init does. Private to the shim.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corral::shim {

// The user the agent runs as: `init --user UID:GID`. Its other groups are
// the image's /etc/group entries naming its /etc/passwd name, as an engine
// gives them for a numeric user.
struct AgentUser {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
};
std::optional<AgentUser> ParseAgentUser(std::string_view text);
// The other groups of the user named for `uid` in `passwd`, from `group` (file texts).
std::vector<gid_t> GroupsOf(uid_t uid, gid_t gid, std::string_view passwd, std::string_view group);

// Becomes `user`, keeping the capabilities it has as permitted only (none
// in effect); the process stays readable by its own user until the agent
// starts. "" or why it failed.
std::string BecomeAgentUser(const AgentUser& user);

// Puts the kept capabilities in effect again (for the gate's mounts).
std::string RaiseKeptCapabilities();

// Drops every capability for good: effective, permitted, inheritable,
// ambient and the bounding set; checked afterwards. "" or why it failed.
std::string DropAllCapabilities();

// Whether this process holds any capability at all (permitted).
bool HoldsCapabilities();

}  // namespace corral::shim
