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
  // What the agent never calls: the mount family (the gate's covers stay).
  std::vector<std::uint32_t> refused;
};

// The new mount API has one set of numbers everywhere (Linux 5.2):
// open_tree, move_mount, fsopen, fsconfig, fsmount, fspick; mount_setattr.
std::vector<std::uint32_t> MountFamily(std::uint32_t base, std::vector<std::uint32_t> old) {
  for (std::uint32_t nr : {428u, 429u, 430u, 431u, 432u, 433u, 442u}) old.push_back(base + nr);
  return old;
}

#if defined(__x86_64__)
constexpr std::uint32_t kX32 = 0x40000000;
const ArchCalls kArchCalls[] = {
    // mount, umount2, pivot_root
    {AUDIT_ARCH_X86_64, 59, 322, 8, MountFamily(0, {165, 166, 155})},
    {AUDIT_ARCH_X86_64, kX32 + 520, kX32 + 545, 4,  // x32: same audit arch, own numbers
     MountFamily(kX32, {kX32 + 165, kX32 + 166, kX32 + 155})},
    // mount, umount, umount2, pivot_root
    {AUDIT_ARCH_I386, 11, 358, 4, MountFamily(0, {21, 22, 52, 217})},
};
#elif defined(__aarch64__)
const ArchCalls kArchCalls[] = {
    // mount, umount2, pivot_root
    {AUDIT_ARCH_AARCH64, 221, 281, 8, MountFamily(0, {40, 39, 41})},
    {AUDIT_ARCH_ARM, 11, 387, 4, MountFamily(0, {21, 52, 218})},
};
#else
#error "the exec filter knows x86_64 and aarch64"
#endif

// Per entry: load arch; not this one: on to the next; load nr; exec calls
// jump to "notify", the refused ones to "refuse". Past every entry: allow.
std::vector<sock_filter> BuildProgram() {
  std::vector<sock_filter> program;
  enum Target { kNext, kNotify, kRefuse };
  struct Jump {
    std::size_t at;
    Target target;
    bool on_true;
  };
  std::vector<Jump> jumps;
  std::vector<std::size_t> entry_ends;
  for (const ArchCalls& calls : kArchCalls) {
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    jumps.push_back({program.size(), kNext, false});
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls.arch, 0, 0));
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    for (std::uint32_t nr : {calls.execve, calls.execveat}) {
      jumps.push_back({program.size(), kNotify, true});
      program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 0));
    }
    for (std::uint32_t nr : calls.refused) {
      jumps.push_back({program.size(), kRefuse, true});
      program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 0));
    }
    entry_ends.push_back(program.size());
  }
  const std::size_t allow_at = program.size();
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  const std::size_t notify_at = program.size();
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
  const std::size_t refuse_at = program.size();
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
  std::size_t entry = 0;
  for (const Jump& jump : jumps) {
    while (entry_ends[entry] <= jump.at) ++entry;
    // A failed arch test goes to the next entry; past the last one, allow.
    std::size_t to = jump.target == kNotify   ? notify_at
                     : jump.target == kRefuse ? refuse_at
                                              : entry_ends[entry];
    if (jump.target == kNext && entry + 1 == entry_ends.size()) to = allow_at;
    auto offset = static_cast<std::uint8_t>(to - (jump.at + 1));
    (jump.on_true ? program[jump.at].jt : program[jump.at].jf) = offset;
  }
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
