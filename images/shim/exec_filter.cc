// The exec filter in classic BPF: per architecture the process may call in
// (the native one and its 32-bit compat ABIs), the exec system calls go to
// the listener; everything else is left to the box's own profile.
#include "images/shim/exec_filter.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <vector>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

namespace corral::shim {
namespace {

struct ArchCalls {
  std::uint32_t arch;
  std::uint32_t execve, execveat;
  unsigned pointer_size;
};

#if defined(__x86_64__)
constexpr std::uint32_t kX32 = 0x40000000;
constexpr ArchCalls kArchCalls[] = {
    {AUDIT_ARCH_X86_64, 59, 322, 8},
    {AUDIT_ARCH_X86_64, kX32 + 520, kX32 + 545, 4},  // x32: same audit arch, own numbers
    {AUDIT_ARCH_I386, 11, 358, 4},
};
#elif defined(__aarch64__)
constexpr ArchCalls kArchCalls[] = {
    {AUDIT_ARCH_AARCH64, 221, 281, 8},
    {AUDIT_ARCH_ARM, 11, 387, 4},
};
#else
#error "the exec filter knows x86_64 and aarch64"
#endif

// Per entry: load arch; not this one: skip; load nr; exec calls jump to the
// final "notify". Falling through every entry: allow.
std::vector<sock_filter> BuildProgram() {
  std::vector<sock_filter> program;
  constexpr std::size_t kPerEntry = 5;
  const std::size_t entries = std::size(kArchCalls);
  const std::size_t notify_at = entries * kPerEntry + 1;
  for (std::size_t e = 0; e < entries; ++e) {
    const ArchCalls& calls = kArchCalls[e];
    std::size_t at = program.size();
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls.arch, 0, 3));  // next entry
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls.execve,
                               static_cast<std::uint8_t>(notify_at - (at + 4)), 0));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls.execveat,
                               static_cast<std::uint8_t>(notify_at - (at + 5)), 0));
  }
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  return program;
}

bool KernelAtLeast(int major, int minor) {
  utsname name{};
  int have_major = 0, have_minor = 0;
  if (::uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &have_major, &have_minor) != 2) {
    return true;  // unknown: let installing tell
  }
  return have_major > major || (have_major == major && have_minor >= minor);
}

}  // namespace

int InstallExecFilter() {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  std::vector<sock_filter> program = BuildProgram();
  sock_fprog prog{static_cast<unsigned short>(program.size()), program.data()};
  // Killable waits (Linux 5.19): a signal that arrives while the supervisor
  // decides does not restart the exec and notify it a second time.
  long fd =
      ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
  if (fd < 0 && errno == EINVAL) {
    fd = ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  }
  if (fd >= 0) ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
  return static_cast<int>(fd);
}

std::string ExecFilterUnavailable(int error) {
  if (!KernelAtLeast(5, 5)) {
    utsname name{};
    ::uname(&name);
    return std::string("this kernel (") + name.release +
           ") is older than Linux 5.5, which lets a seccomp listener pass an exec on";
  }
  switch (error) {
    case 0: return "";
    case EINVAL: return "this kernel does not offer seccomp user notification";
    case EBUSY: return "another seccomp listener is already installed for the box (one is allowed)";
    case EPERM:
    case EACCES:
    case ENOSYS:
      return "the box's seccomp profile refuses the seccomp() system call (" +
             std::string(std::strerror(error)) + ")";
    default: return std::string("installing the filter failed: ") + std::strerror(error);
  }
}

std::optional<ExecCall> ReadExecCall(const seccomp_data& data) {
  for (const ArchCalls& calls : kArchCalls) {
    if (data.arch != calls.arch) continue;
    const auto* a = data.args;
    if (static_cast<std::uint32_t>(data.nr) == calls.execve) {
      return ExecCall{AT_FDCWD, a[0], a[1], 0, calls.pointer_size};
    }
    if (static_cast<std::uint32_t>(data.nr) == calls.execveat) {
      return ExecCall{static_cast<int>(a[0]), a[1], a[2], static_cast<int>(a[4]),
                      calls.pointer_size};
    }
  }
  return std::nullopt;
}

}  // namespace corral::shim
