#include "launcher/plan/plan.h"

#include <algorithm>

#ifdef CORRAL_HAVE_SECCOMP
#include "seccomp/seccomp.h"
#endif

namespace corral::launcher {
namespace {

#ifndef CORRAL_HAVE_SECCOMP
constexpr int kEperm = 1;
constexpr int kEnosys = 38;
constexpr std::uint64_t kNamespaceFlags[] = {0x00020000, 0x02000000, 0x04000000, 0x08000000,
                                             0x10000000, 0x20000000, 0x40000000};

nlohmann::json StandIn(const policy::SeccompPolicy& user, bool exec_gate) {
  std::vector<std::string> refused = {
      "acct", "add_key", "bpf", "clock_adjtime", "clock_settime", "create_module",
      "delete_module", "finit_module", "fsconfig", "fsmount", "fsopen", "fspick",
      "get_kernel_syms", "init_module", "ioperm", "iopl", "kcmp", "kexec_file_load",
      "kexec_load", "keyctl", "lookup_dcookie", "mount", "mount_setattr", "move_mount",
      "name_to_handle_at", "nfsservctl", "open_by_handle_at", "open_tree", "perf_event_open",
      "pivot_root", "process_vm_readv", "process_vm_writev", "query_module", "quotactl",
      "reboot", "request_key", "setns", "settimeofday", "swapoff", "swapon", "sysfs",
      "_sysctl", "umount", "umount2", "unshare", "uselib", "userfaultfd", "ustat", "vm86",
      "vm86old"};
  if (!user.allow_ptrace) refused.push_back("ptrace");
  if (exec_gate) std::erase(refused, "mount");
  for (const auto& name : user.deny) refused.push_back(name);
  std::erase_if(refused, [&](const std::string& n) {
    return std::find(user.allow.begin(), user.allow.end(), n) != user.allow.end();
  });
  nlohmann::json syscalls = nlohmann::json::array();
  syscalls.push_back({{"names", refused}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", kEperm}});
  // glibc falls back to clone when clone3 says ENOSYS; clone's flags are checkable.
  syscalls.push_back({{"names", {"clone3"}}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", kEnosys}});
  for (std::uint64_t flag : kNamespaceFlags) {
    if (exec_gate && flag == 0x00020000) continue;  // CLONE_NEWNS: the gate's own namespace
    syscalls.push_back({{"names", {"clone"}},
                        {"action", "SCMP_ACT_ERRNO"},
                        {"errnoRet", kEperm},
                        {"args", {{{"index", 0}, {"value", flag}, {"valueTwo", flag},
                                   {"op", "SCMP_CMP_MASKED_EQ"}}}}});
  }
  return {{"defaultAction", "SCMP_ACT_ALLOW"},
          {"architectures", {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"}},
          {"syscalls", syscalls}};
}
#endif

}  // namespace

Result<nlohmann::json> SeccompJson(const policy::SeccompPolicy& user, bool exec_gate) {
#ifdef CORRAL_HAVE_SECCOMP
  auto profile = seccomp::BuildProfile(user, {.exec_gate = exec_gate});
  if (!profile) return profile.error().Context("seccomp profile");
  for (const auto& warning : profile->warnings) log::warn("seccomp: " + warning);
  return seccomp::ToOci(*profile);
#else
  return StandIn(user, exec_gate);
#endif
}

}  // namespace corral::launcher
