// Architectures and system-call names as libseccomp knows them. Private to
// seccomp/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "seccomp/seccomp.h"

namespace corral::seccomp {

std::uint32_t ScmpArch(Arch arch);                        // SCMP_ARCH_*
std::optional<Arch> ArchFromToken(std::string_view token);  // "SCMP_ARCH_X86_64"
std::optional<Arch> ArchFromGoName(std::string_view name);  // "amd64", as in includes.arches

// The system call's number on `arch`, or nothing when it has none there.
std::optional<int> ResolveOn(Arch arch, const std::string& name);

std::string LibseccompVersion();  // "libseccomp 2.5.4"

}  // namespace corral::seccomp
