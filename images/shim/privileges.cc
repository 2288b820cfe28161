#include "images/shim/privileges.h"

#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "base/files.h"

namespace corral::shim {
namespace {

constexpr int kLastCapability = 63;  // past CAP_LAST_CAP: PR_CAPBSET_DROP says EINVAL

struct Capabilities {
  __user_cap_data_struct data[2] = {};
};

bool Get(Capabilities& caps) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  return ::syscall(SYS_capget, &header, caps.data) == 0;
}

bool Set(const Capabilities& caps) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  return ::syscall(SYS_capset, &header, caps.data) == 0;
}

std::string Failed(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

template <typename T>
bool ParseNumber(std::string_view text, T& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && !text.empty();
}

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    std::size_t colon = line.find(':', start);
    fields.push_back(line.substr(start, colon - start));
    if (colon == std::string_view::npos) return fields;
    start = colon + 1;
  }
}

template <typename F>
void ForEachLine(std::string_view text, F each) {
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    each(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::optional<AgentUser> ParseAgentUser(std::string_view text) {
  std::size_t colon = text.find(':');
  AgentUser user;
  if (colon == std::string_view::npos || !ParseNumber(text.substr(0, colon), user.uid) ||
      !ParseNumber(text.substr(colon + 1), user.gid)) {
    return std::nullopt;
  }
  return user;
}

std::vector<gid_t> GroupsOf(uid_t uid, gid_t gid, std::string_view passwd, std::string_view group) {
  std::string_view name;
  ForEachLine(passwd, [&](std::string_view line) {
    auto fields = Fields(line);
    uid_t found = 0;
    if (name.empty() && fields.size() >= 3 && ParseNumber(fields[2], found) && found == uid) {
      name = fields[0];
    }
  });
  std::vector<gid_t> groups;
  if (name.empty()) return groups;
  ForEachLine(group, [&](std::string_view line) {
    auto fields = Fields(line);
    gid_t found = 0;
    if (fields.size() < 4 || !ParseNumber(fields[2], found) || found == gid) return;
    std::string_view members = fields[3];
    for (std::size_t start = 0; start <= members.size();) {
      std::size_t comma = members.find(',', start);
      if (comma == std::string_view::npos) comma = members.size();
      if (members.substr(start, comma - start) == name) {
        groups.push_back(found);
        break;
      }
      start = comma + 1;
    }
  });
  return groups;
}

std::string BecomeAgentUser(const AgentUser& user) {
  std::vector<gid_t> groups = user.groups;
  if (groups.empty()) {
    groups = GroupsOf(user.uid, user.gid, ReadWholeFile("/etc/passwd").value_or(""),
                      ReadWholeFile("/etc/group").value_or(""));
  }
  if (::prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) return Failed("keeping capabilities");
  if (::setgroups(groups.size(), groups.data()) != 0) return Failed("setting the groups");
  if (::setresgid(user.gid, user.gid, user.gid) != 0) return Failed("becoming the agent's group");
  if (::setresuid(user.uid, user.uid, user.uid) != 0) return Failed("becoming the agent's user");
  ::prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
  Capabilities caps;
  if (!Get(caps)) return Failed("reading capabilities");
  for (auto& half : caps.data) {
    half.effective = 0;
    half.inheritable = 0;
  }
  if (!Set(caps)) return Failed("putting capabilities out of effect");
  // A change of user makes the process unreadable; PID 1 reads the agent's
  // first process (its child) before it runs anything, so stay as before.
  ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  return "";
}

std::string RaiseKeptCapabilities() {
  Capabilities caps;
  if (!Get(caps)) return Failed("reading capabilities");
  for (auto& half : caps.data) half.effective = half.permitted;
  if (!Set(caps)) return Failed("putting capabilities in effect");
  return "";
}

std::string DropAllCapabilities() {
  // The bounding set needs CAP_SETPCAP in effect.
  if (std::string raised = RaiseKeptCapabilities(); !raised.empty()) return raised;
  for (int cap = 0; cap <= kLastCapability; ++cap) {
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) != 1) continue;
    if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return Failed("dropping the bounding set");
  }
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  Capabilities none;
  if (!Set(none)) return Failed("dropping capabilities");
  Capabilities left;
  if (!Get(left)) return Failed("reading capabilities");
  for (const auto& half : left.data) {
    if (half.effective || half.permitted || half.inheritable) return "capabilities are left";
  }
  for (int cap = 0; cap <= kLastCapability; ++cap) {
    if (::prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) return "the bounding set is not empty";
  }
  return "";
}

bool HoldsCapabilities() {
  Capabilities caps;
  return Get(caps) && (caps.data[0].permitted || caps.data[1].permitted);
}

}  // namespace corral::shim
