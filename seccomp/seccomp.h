// seccomp/: the box's system-call filter. A profile model (default action,
// architectures, rules with argument conditions), the default profile for
// agents, its renderings (OCI linux.seccomp, libseccomp PFC, a summary), a
// comparison with another profile, and the compiled filter itself.
// The one public header of seccomp/.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "policy/config/config.h"

namespace corral::seccomp {

// ---------------------------------------------------------------- model

enum class Action { kAllow, kErrno, kKillThread, kKillProcess, kTrap, kLog };

// libseccomp's comparison operators. For kMaskedEq, `value` is the mask and
// `value_two` the datum: (arg & value) == value_two, as in OCI and libseccomp.
enum class Op { kNe, kLt, kLe, kEq, kGe, kGt, kMaskedEq };

struct ArgCondition {
  unsigned index = 0;  // 0..5
  Op op = Op::kEq;
  std::uint64_t value = 0;
  std::uint64_t value_two = 0;

  bool operator==(const ArgCondition&) const = default;
};

// One rule: the action for these system calls when every condition holds.
// At most one condition per argument index: runc and crun turn several
// conditions on one index into separate rules (OR), libseccomp into AND, so
// such a rule would mean different things to different engines.
struct Rule {
  std::vector<std::string> names;
  Action action = Action::kAllow;
  int errno_value = 0;  // for kErrno
  std::vector<ArgCondition> args;
  std::string comment;  // why the rule is there
};

enum class Arch { kX86_64, kX86, kX32, kAarch64, kArm };
inline constexpr Arch kAllArches[] = {Arch::kX86_64, Arch::kX86, Arch::kX32, Arch::kAarch64,
                                      Arch::kArm};
std::string_view ArchName(Arch arch);   // "x86_64", "x86", "x32", "aarch64", "arm"
std::string_view ArchToken(Arch arch);  // "SCMP_ARCH_X86_64", ...

struct Profile {
  Action default_action = Action::kErrno;
  int default_errno = ENOSYS;  // a system call newer than the list fails the way libc expects
  std::vector<Arch> architectures;  // empty: the host's own only
  std::vector<Rule> rules;
  // Things a person should know (a name this libseccomp does not know, an
  // allowance that weakens the box). BuildProfile does not log them: the
  // caller shows them once.
  std::vector<std::string> warnings;
};

// ---------------------------------------------------------------- building

struct Options {
  bool strict = false;  // a system-call name unknown to libseccomp: warning, or error when strict
  // The shim's first moments set the exec gate up (docs/exec-check.md): mount
  // and unshare(CLONE_NEWNS) are allowed, with the capabilities only PID 1
  // and the agent's first process hold until they drop them; the shim's own
  // filter refuses the mount family to the agent.
  bool exec_gate = false;
};

// The box's profile: the engine default's unconditional allowlist, less what
// an agent never needs or has been used to get out of containers (EPERM;
// ENOSYS for clone3 and io_uring_*), with the user's seccomp.* settings.
Result<Profile> BuildProfile(const policy::SeccompPolicy& user, const Options& options = {});

// Whether this libseccomp knows the name (on any architecture it supports).
bool IsKnownSyscall(std::string_view name);

// ---------------------------------------------------------------- renderings

// The flattened OCI linux.seccomp object: no includes/excludes/archMap (runc
// ignores them, which would make every capability-gated rule unconditional).
// Also what Docker takes inline (SecurityOpt "seccomp=<json>") and Podman as
// a file.
nlohmann::json ToOci(const Profile& profile);

// Reads a profile: a flattened OCI linux.seccomp object, a whole OCI
// config.json, or a Docker/Podman profile (archMap, includes/excludes). The
// latter is taken as it applies to a box with no capabilities on the
// architectures above; rules for other architectures are dropped.
Result<Profile> FromJson(const nlohmann::json& json);
Result<Profile> ReadProfileFile(const std::string& path);

// libseccomp's pseudo filter code (PFC) of the compiled filter.
Result<std::string> ToPfc(const Profile& profile);

struct FilterSize {
  std::size_t instructions = 0;  // BPF instructions (the kernel's limit is 4096)
  std::size_t bytes = 0;
};
// Size of the filter compiled for `arches` (all of the profile's when empty).
Result<FilterSize> CompiledSize(const Profile& profile, const std::vector<Arch>& arches = {});

// For people: what is allowed and refused, and the compiled filter's size.
std::string Summary(const Profile& profile);

// Compiles with libseccomp (binary-tree optimised) and installs the filter on
// the calling thread (threads it starts later inherit it). Sets
// no_new_privs, as an unprivileged process must. Irreversible.
Result<void> LoadIntoCurrentThread(const Profile& profile);

// ---------------------------------------------------------------- comparing

enum class Access { kAllowed, kConditional, kRefused };

// What a profile does with one system call name, arguments aside.
struct Verdict {
  Access access = Access::kRefused;
  std::string detail;  // "allow", "allow when arg0 == 0x0 or ...", "errno EPERM", ...
  std::vector<std::vector<ArgCondition>> conditions;  // kConditional: any one suffices
};
Verdict VerdictFor(const Profile& profile, std::string_view name);

struct Difference {
  std::string name;
  Verdict left;
  Verdict right;
};
struct ProfileDiff {
  std::vector<Difference> left_only;         // left allows, right refuses
  std::vector<Difference> right_only;        // right allows, left refuses
  std::vector<Difference> other_conditions;  // both allow some calls, not the same ones
  bool empty() const { return left_only.empty() && right_only.empty() && other_conditions.empty(); }
};
ProfileDiff Diff(const Profile& left, const Profile& right);

}  // namespace corral::seccomp
