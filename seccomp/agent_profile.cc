// BuildProfile: the engine default's unconditional allowlist, less what an
// agent never needs (tables.cc), with argument checks where a call is needed
// but some of its uses are not, then the user's seccomp.* settings.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <linux/sched.h>

#include "seccomp/arch.h"
#include "seccomp/seccomp.h"
#include "seccomp/tables.h"

namespace corral::seccomp {
namespace {

// Every flag that makes a new namespace. clone's low byte is the exit signal,
// so CLONE_NEWTIME (0x80) is a namespace flag for unshare only.
constexpr std::uint64_t kCloneNamespaceFlags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |
                                               CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID |
                                               CLONE_NEWNET;
constexpr std::uint64_t kUnshareNamespaceFlags = kCloneNamespaceFlags | CLONE_NEWTIME;

// Allowed without namespace flags; EPERM with any of them. One rule per flag
// because a rule can test an argument only once (see Rule); the rules are
// disjoint, so their order does not matter.
std::vector<Rule> WithoutNamespaces(const std::string& name, std::uint64_t flags) {
  std::vector<Rule> rules;
  rules.push_back({{name}, Action::kAllow, 0, {{0, Op::kMaskedEq, flags, 0}},
                   "allowed without namespace flags"});
  for (std::uint64_t bit = 1; bit != 0; bit <<= 1) {
    if ((flags & bit) == 0) continue;
    rules.push_back({{name}, Action::kErrno, EPERM, {{0, Op::kMaskedEq, bit, bit}},
                     "refused with a namespace flag: new namespaces are how escapes begin"});
  }
  return rules;
}

// socket(): every address family the kernel has, with two exceptions.
// Audit netlink answers EINVAL, as in the engine default for a box without
// CAP_AUDIT_WRITE (AF_NETLINK = 16, NETLINK_AUDIT = 9). AF_VSOCK (40)
// answers EAFNOSUPPORT: vsock is not confined by the network namespace and
// reaches the VM host's services, past the box's only way out, the proxy.
// The kernel reads the family as an int, so each test masks the low 32 bits;
// the rules are disjoint (one aligned block of families each), so their
// order does not matter, and a family above 63 (none exists) gets the
// default action.
std::vector<Rule> SocketRules() {
  constexpr std::uint64_t kNetlink = 16, kVsock = 40, kLow32 = 0xffffffffULL;
  auto families = [](std::uint64_t first, std::uint64_t count) {
    return ArgCondition{0, Op::kMaskedEq, kLow32 & ~(count - 1), first};
  };
  std::vector<Rule> rules;
  // Aligned power-of-two blocks covering 0..63 but 16 and 40.
  for (auto [first, count] : {std::pair<std::uint64_t, std::uint64_t>{0, 16}, {17, 1}, {18, 2},
                              {20, 4}, {24, 8}, {32, 8}, {41, 1}, {42, 2}, {44, 4}, {48, 16}}) {
    rules.push_back({{"socket"}, Action::kAllow, 0, {families(first, count)},
                     "any address family but vsock"});
  }
  rules.push_back({{"socket"}, Action::kAllow, 0, {families(kNetlink, 1), {2, Op::kNe, 9, 0}},
                   "netlink, but not audit"});
  rules.push_back({{"socket"}, Action::kErrno, EINVAL,
                   {families(kNetlink, 1), {2, Op::kEq, 9, 0}},
                   "audit netlink: the host's audit log"});
  rules.push_back({{"socket"}, Action::kErrno, EAFNOSUPPORT, {families(kVsock, 1)},
                   "vsock: reaches the VM host past the network namespace and the proxy"});
  return rules;
}

// The engine default's argument-checked allowances, kept as they are.
std::map<std::string, std::vector<Rule>> ConditionalRules() {
  std::map<std::string, std::vector<Rule>> rules;
  rules["clone"] = WithoutNamespaces("clone", kCloneNamespaceFlags);
  rules["unshare"] = WithoutNamespaces("unshare", kUnshareNamespaceFlags);
  // PER_LINUX, PER_LINUX32, UNAME26 and both, and 0xffffffff (query): what
  // the engine default allows; other values get the default action.
  for (std::uint64_t persona : {0x0ULL, 0x8ULL, 0x20000ULL, 0x20008ULL, 0xffffffffULL}) {
    rules["personality"].push_back({{"personality"}, Action::kAllow, 0,
                                    {{0, Op::kEq, persona, 0}},
                                    "the usual personalities and the query"});
  }
  rules["socket"] = SocketRules();
  return rules;
}

// A bad name is always an error; a well-formed one this libseccomp does not
// know is a warning (a newer runtime may know it), or an error when strict.
// Returns whether the name goes into the filter.
Result<bool> CheckName(const std::string& name, std::string_view where, const Options& options,
                       std::vector<std::string>& warnings) {
  bool well_formed = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!well_formed) {
    return Error(std::string(where) + ": '" + name +
                 "' is not a system call name (lower-case letters, digits and _)");
  }
  if (IsKnownSyscall(name)) return true;
  std::string message = std::string(where) + ": '" + name + "' is not a system call that " +
                        LibseccompVersion() + " knows";
  std::string near = Nearest(name, internal::EngineAllowlist());
  if (!near.empty()) message += " (did you mean '" + near + "'?)";
  if (options.strict) return Error(message + "; remove it, or drop --strict");
  warnings.push_back(message + "; it is left out of the filter");
  return false;
}

std::string_view WhyRefused(const std::string& name) {
  for (const auto& refusal : internal::Refusals()) {
    if (std::find(refusal.names.begin(), refusal.names.end(), name) != refusal.names.end()) {
      return refusal.why;
    }
  }
  return {};
}

}  // namespace

Result<Profile> BuildProfile(const policy::SeccompPolicy& user, const Options& options) {
  Profile profile;
  profile.default_action = Action::kErrno;
  profile.default_errno = ENOSYS;
  profile.architectures.assign(std::begin(kAllArches), std::end(kAllArches));

  std::set<std::string> allowed;
  for (auto name : internal::EngineAllowlist()) allowed.emplace(name);
  for (auto name : internal::EngineArchAllowlist()) allowed.emplace(name);
  auto conditional = ConditionalRules();
  std::set<std::string> refused;
  for (const auto& refusal : internal::Refusals()) {
    if (refusal.group == "ptrace" && user.allow_ptrace) continue;
    for (auto name : refusal.names) refused.emplace(name);
  }
  if (options.exec_gate) {
    refused.erase("mount");
    conditional["unshare"] = WithoutNamespaces("unshare", kUnshareNamespaceFlags & ~CLONE_NEWNS);
  }
  if (user.allow_ptrace) {
    profile.warnings.push_back(
        "seccomp.allow_ptrace is on: processes in the box can trace and read each other");
  }

  std::set<std::string> denied;
  for (const auto& name : user.deny) {
    auto known = CheckName(name, "seccomp.deny", options, profile.warnings);
    if (!known) return known.error();
    if (*known) denied.insert(name);
  }
  for (const auto& name : user.allow) {
    auto known = CheckName(name, "seccomp.allow", options, profile.warnings);
    if (!known) return known.error();
    if (!*known) continue;
    if (denied.count(name)) {
      profile.warnings.push_back("seccomp.allow and seccomp.deny both name '" + name +
                                 "': it stays refused");
      continue;
    }
    std::string why(WhyRefused(name));
    if (refused.count(name)) {
      profile.warnings.push_back("seccomp.allow opens up '" + name + "', which the box refuses (" +
                                 why + ")");
    } else if (conditional.count(name)) {
      profile.warnings.push_back("seccomp.allow opens up every use of '" + name +
                                 "', which the box allows only with some arguments");
    } else if (!allowed.count(name)) {
      profile.warnings.push_back("seccomp.allow opens up '" + name +
                                 "', which the engine's default profile refuses too");
    }
    refused.erase(name);
    conditional.erase(name);
    allowed.insert(name);
  }
  for (const auto& name : denied) {
    allowed.erase(name);
    refused.erase(name);
    conditional.erase(name);
  }
  for (const auto& name : refused) allowed.erase(name);
  for (const auto& [name, rules] : conditional) allowed.erase(name);

  // Built-in names too: on an older libseccomp they are left out, with a word.
  std::set<std::string> unknown;
  for (const auto* list : {&internal::EngineAllowlist(), &internal::EngineArchAllowlist()}) {
    for (auto name : *list) {
      if (!IsKnownSyscall(name)) unknown.emplace(name);
    }
  }
  for (const auto& refusal : internal::Refusals()) {
    for (auto name : refusal.names) {
      if (!IsKnownSyscall(name)) unknown.emplace(name);
    }
  }
  for (const auto& name : unknown) {
    auto known = CheckName(name, "built-in profile", options, profile.warnings);
    if (!known) return known.error();
    allowed.erase(name);
    refused.erase(name);
  }

  profile.rules.push_back({{allowed.begin(), allowed.end()},
                           Action::kAllow,
                           0,
                           {},
                           "the engine default's unconditional allowlist, less what the box "
                           "refuses"});
  for (auto& [name, rules] : conditional) {
    for (auto& rule : rules) profile.rules.push_back(std::move(rule));
  }
  for (const auto& refusal : internal::Refusals()) {
    Rule rule{{}, Action::kErrno, refusal.errno_value, {}, std::string(refusal.why)};
    for (auto name : refusal.names) {
      if (refused.count(std::string(name))) rule.names.emplace_back(name);
    }
    if (!rule.names.empty()) profile.rules.push_back(std::move(rule));
  }
  if (!denied.empty()) {
    profile.rules.push_back(
        {{denied.begin(), denied.end()}, Action::kErrno, EPERM, {}, "refused by seccomp.deny"});
  }
  return profile;
}

}  // namespace corral::seccomp
