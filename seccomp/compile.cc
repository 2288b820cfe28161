// Profile → libseccomp filter, and what is done with it: PFC text, BPF size,
// installing it.
#include "seccomp/compile.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <set>

#include "seccomp/arch.h"

namespace corral::seccomp {
namespace {

std::uint32_t ScmpAction(Action action, int errno_value) {
  switch (action) {
    case Action::kAllow: return SCMP_ACT_ALLOW;
    case Action::kErrno: return SCMP_ACT_ERRNO(static_cast<std::uint16_t>(errno_value));
    case Action::kKillThread: return SCMP_ACT_KILL_THREAD;
    case Action::kKillProcess: return SCMP_ACT_KILL_PROCESS;
    case Action::kTrap: return SCMP_ACT_TRAP;
    case Action::kLog: return SCMP_ACT_LOG;
  }
  return SCMP_ACT_KILL_PROCESS;
}

scmp_compare ScmpOp(Op op) {
  switch (op) {
    case Op::kNe: return SCMP_CMP_NE;
    case Op::kLt: return SCMP_CMP_LT;
    case Op::kLe: return SCMP_CMP_LE;
    case Op::kEq: return SCMP_CMP_EQ;
    case Op::kGe: return SCMP_CMP_GE;
    case Op::kGt: return SCMP_CMP_GT;
    case Op::kMaskedEq: return SCMP_CMP_MASKED_EQ;
  }
  return SCMP_CMP_EQ;
}

// Adds the rule for the names that exist on `arch`. libseccomp would add a
// placeholder comparison for the others (it does in 2.5.4), which makes the
// tree deeper for nothing.
Result<void> AddRule(const FilterContext& filter, Arch arch, const Rule& rule) {
  std::vector<scmp_arg_cmp> args;
  std::set<unsigned> indexes;
  for (const auto& arg : rule.args) {
    if (arg.index > 5) return Error("argument index " + std::to_string(arg.index) + " (0..5)");
    if (!indexes.insert(arg.index).second) {
      return Error("two conditions on argument " + std::to_string(arg.index) +
                   ": engines read that differently; write two rules");
    }
    args.push_back({arg.index, ScmpOp(arg.op), arg.value, arg.value_two});
  }
  for (const auto& name : rule.names) {
    if (!ResolveOn(arch, name)) continue;
    // Rules take the host's number (or libseccomp's placeholder for it) and
    // libseccomp translates it by name for the filter's architecture.
    int nr = seccomp_syscall_resolve_name(name.c_str());
    int rc = seccomp_rule_add_array(filter.get(), ScmpAction(rule.action, rule.errno_value), nr,
                                    static_cast<unsigned>(args.size()), args.data());
    if (rc < 0) {
      return Error::FromErrno("rule for " + name + " on " + std::string(ArchName(arch)), -rc);
    }
  }
  return Ok();
}

// The filter for one architecture; they are merged into one afterwards.
Result<FilterContext> CompileArch(const Profile& profile, Arch arch) {
  FilterContext filter(seccomp_init(ScmpAction(profile.default_action, profile.default_errno)));
  if (filter.get() == nullptr) return Error("seccomp_init failed (bad default action?)");
  std::uint32_t token = ScmpArch(arch);
  if (token != seccomp_arch_native()) {
    if (int rc = seccomp_arch_add(filter.get(), token); rc < 0) {
      return Error::FromErrno("adding architecture " + std::string(ArchName(arch)), -rc);
    }
    seccomp_arch_remove(filter.get(), seccomp_arch_native());
  }
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
  // 2: a binary tree of system-call numbers instead of a linear list.
  if (int rc = seccomp_attr_set(filter.get(), SCMP_FLTATR_CTL_OPTIMIZE, 2); rc < 0) {
    return Error::FromErrno("asking libseccomp for a binary-tree filter", -rc);
  }
#endif
  for (const auto& rule : profile.rules) {
    // libseccomp refuses a rule that repeats the default action (EACCES);
    // it would change nothing, and runc skips it too.
    if (rule.action == profile.default_action &&
        (rule.action != Action::kErrno || rule.errno_value == profile.default_errno)) {
      continue;
    }
    if (auto added = AddRule(filter, arch, rule); !added) return added.error();
  }
  return filter;
}

// Writes via fd-based libseccomp exports into an anonymous file.
template <class Export>
Result<std::string> ExportToString(const FilterContext& filter, Export export_fn,
                                   std::string_view what) {
  UniqueFd fd(memfd_create("corral-seccomp", MFD_CLOEXEC));
  if (!fd.valid()) return Error::FromErrno("memfd_create");
  if (int rc = export_fn(filter.get(), fd.get()); rc < 0) {
    return Error::FromErrno(std::string(what), -rc);
  }
  std::string text;
  char buffer[8192];
  ssize_t n;
  off_t offset = 0;
  while ((n = pread(fd.get(), buffer, sizeof buffer, offset)) > 0) {
    text.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  if (n < 0) return Error::FromErrno(std::string(what));
  return text;
}

}  // namespace

Result<FilterContext> Compile(const Profile& profile, const std::vector<Arch>& arches) {
  std::vector<Arch> wanted = arches.empty() ? profile.architectures : arches;
  if (wanted.empty()) {
    for (Arch arch : kAllArches) {
      if (ScmpArch(arch) == seccomp_arch_native()) wanted.push_back(arch);
    }
    if (wanted.empty()) return Error("this host's architecture is not one corral filters for");
  }
  std::optional<FilterContext> merged;
  for (Arch arch : wanted) {
    auto one = CompileArch(profile, arch);
    if (!one) return one.error().Context("compiling the seccomp filter");
    if (!merged) {
      merged.emplace(std::move(*one));
      continue;
    }
    // On success libseccomp takes over (and frees) the merged-in context.
    if (int rc = seccomp_merge(merged->get(), one->get()); rc < 0) {
      return Error::FromErrno("merging the filter for " + std::string(ArchName(arch)), -rc);
    }
    one->Release();
  }
  return std::move(*merged);
}

Result<std::string> ToPfc(const Profile& profile) {
  auto filter = Compile(profile);
  if (!filter) return filter.error();
  return ExportToString(*filter, seccomp_export_pfc, "exporting the filter as PFC");
}

Result<FilterSize> CompiledSize(const Profile& profile, const std::vector<Arch>& arches) {
  auto filter = Compile(profile, arches);
  if (!filter) return filter.error();
  auto bpf = ExportToString(*filter, seccomp_export_bpf, "exporting the filter as BPF");
  if (!bpf) return bpf.error();
  // Each BPF instruction is a struct sock_filter: 8 bytes.
  return FilterSize{bpf->size() / 8, bpf->size()};
}

Result<void> LoadIntoCurrentThread(const Profile& profile) {
  auto filter = Compile(profile);
  if (!filter) return filter.error();
  // libseccomp sets no_new_privs first (SCMP_FLTATR_CTL_NNP is on by default).
  if (int rc = seccomp_load(filter->get()); rc < 0) {
    return Error::FromErrno("installing the seccomp filter", -rc);
  }
  return Ok();
}

}  // namespace corral::seccomp
