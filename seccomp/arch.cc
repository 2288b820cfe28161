#include "seccomp/arch.h"

#include <seccomp.h>

namespace corral::seccomp {
namespace {

struct ArchRow {
  Arch arch;
  std::string_view name;      // ours, for people
  std::string_view token;     // OCI and libseccomp
  std::string_view go_name;   // Docker/Podman includes.arches
  std::uint32_t scmp;
};

constexpr ArchRow kArchRows[] = {
    {Arch::kX86_64, "x86_64", "SCMP_ARCH_X86_64", "amd64", SCMP_ARCH_X86_64},
    {Arch::kX86, "x86", "SCMP_ARCH_X86", "x86", SCMP_ARCH_X86},
    {Arch::kX32, "x32", "SCMP_ARCH_X32", "x32", SCMP_ARCH_X32},
    {Arch::kAarch64, "aarch64", "SCMP_ARCH_AARCH64", "arm64", SCMP_ARCH_AARCH64},
    {Arch::kArm, "arm", "SCMP_ARCH_ARM", "arm", SCMP_ARCH_ARM},
};

const ArchRow& Row(Arch arch) {
  for (const auto& row : kArchRows) {
    if (row.arch == arch) return row;
  }
  return kArchRows[0];  // unreachable: every Arch has a row
}

}  // namespace

std::string_view ArchName(Arch arch) { return Row(arch).name; }
std::string_view ArchToken(Arch arch) { return Row(arch).token; }
std::uint32_t ScmpArch(Arch arch) { return Row(arch).scmp; }

std::optional<Arch> ArchFromToken(std::string_view token) {
  for (const auto& row : kArchRows) {
    if (row.token == token) return row.arch;
  }
  return std::nullopt;
}

std::optional<Arch> ArchFromGoName(std::string_view name) {
  for (const auto& row : kArchRows) {
    if (row.go_name == name) return row.arch;
  }
  return std::nullopt;
}

std::optional<int> ResolveOn(Arch arch, const std::string& name) {
  // Negative numbers are libseccomp's placeholders for "not on this arch".
  int nr = seccomp_syscall_resolve_name_arch(ScmpArch(arch), name.c_str());
  if (nr < 0) return std::nullopt;
  return nr;
}

bool IsKnownSyscall(std::string_view name) {
  // Placeholders (negative, not __NR_SCMP_ERROR) are names libseccomp knows
  // on other architectures than the host's.
  return seccomp_syscall_resolve_name(std::string(name).c_str()) != __NR_SCMP_ERROR;
}

std::string LibseccompVersion() {
  const scmp_version* v = seccomp_version();
  return "libseccomp " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->micro);
}

}  // namespace corral::seccomp
