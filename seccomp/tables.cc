// The data behind the box's default profile: the engine default's
// unconditional allowlist, and what the box refuses on top of it.
#include "seccomp/tables.h"

#include <cerrno>

namespace corral::seccomp::internal {

// The system calls that Podman's default profile (containers-common 0.50.1,
// /usr/share/containers/seccomp.json, its one unconditional SCMP_ACT_ALLOW
// rule) allows on every architecture, without capability or argument
// conditions. Copied as data so the build downloads nothing; the unit test
// engine_subset_test checks it against the installed file.
const std::vector<std::string_view>& EngineAllowlist() {
  static const std::vector<std::string_view> kNames = {
      "_llseek", "_newselect", "accept", "accept4", "access", "adjtimex", "alarm", "bind", "brk",
      "capget", "capset", "chdir", "chmod", "chown", "chown32", "clock_adjtime",
      "clock_adjtime64", "clock_getres", "clock_getres_time64", "clock_gettime",
      "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "clone", "clone3", "close",
      "close_range", "connect", "copy_file_range", "creat", "dup", "dup2", "dup3", "epoll_create",
      "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait", "epoll_pwait2", "epoll_wait",
      "epoll_wait_old", "eventfd", "eventfd2", "execve", "execveat", "exit", "exit_group",
      "faccessat", "faccessat2", "fadvise64", "fadvise64_64", "fallocate", "fanotify_mark",
      "fchdir", "fchmod", "fchmodat", "fchown", "fchown32", "fchownat", "fcntl", "fcntl64",
      "fdatasync", "fgetxattr", "flistxattr", "flock", "fork", "fremovexattr", "fsconfig",
      "fsetxattr", "fsmount", "fsopen", "fspick", "fstat", "fstat64", "fstatat64", "fstatfs",
      "fstatfs64", "fsync", "ftruncate", "ftruncate64", "futex", "futex_time64", "futimesat",
      "get_mempolicy", "get_robust_list", "get_thread_area", "getcpu", "getcwd", "getdents",
      "getdents64", "getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32",
      "getgroups", "getgroups32", "getitimer", "getpeername", "getpgid", "getpgrp", "getpid",
      "getppid", "getpriority", "getrandom", "getresgid", "getresgid32", "getresuid",
      "getresuid32", "getrlimit", "getrusage", "getsid", "getsockname", "getsockopt", "gettid",
      "gettimeofday", "getuid", "getuid32", "getxattr", "inotify_add_watch", "inotify_init",
      "inotify_init1", "inotify_rm_watch", "io_cancel", "io_destroy", "io_getevents", "io_setup",
      "io_submit", "ioctl", "ioprio_get", "ioprio_set", "ipc", "keyctl", "kill",
      "landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self", "lchown",
      "lchown32", "lgetxattr", "link", "linkat", "listen", "listxattr", "llistxattr",
      "lremovexattr", "lseek", "lsetxattr", "lstat", "lstat64", "madvise", "mbind", "membarrier",
      "memfd_create", "memfd_secret", "mincore", "mkdir", "mkdirat", "mknod", "mknodat", "mlock",
      "mlock2", "mlockall", "mmap", "mmap2", "mount", "mount_setattr", "move_mount", "mprotect",
      "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64",
      "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "mremap", "msgctl", "msgget", "msgrcv",
      "msgsnd", "msync", "munlock", "munlockall", "munmap", "name_to_handle_at", "nanosleep",
      "newfstatat", "open", "open_tree", "openat", "openat2", "pause", "pidfd_getfd",
      "pidfd_open", "pidfd_send_signal", "pipe", "pipe2", "pivot_root", "pkey_alloc", "pkey_free",
      "pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl", "pread64", "preadv", "preadv2",
      "prlimit64", "process_mrelease", "process_vm_readv", "process_vm_writev", "pselect6",
      "pselect6_time64", "ptrace", "pwrite64", "pwritev", "pwritev2", "read", "readahead",
      "readdir", "readlink", "readlinkat", "readv", "reboot", "recv", "recvfrom", "recvmmsg",
      "recvmmsg_time64", "recvmsg", "remap_file_pages", "removexattr", "rename", "renameat",
      "renameat2", "restart_syscall", "rmdir", "rseq", "rt_sigaction", "rt_sigpending",
      "rt_sigprocmask", "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
      "rt_sigtimedwait_time64", "rt_tgsigqueueinfo", "sched_get_priority_max",
      "sched_get_priority_min", "sched_getaffinity", "sched_getattr", "sched_getparam",
      "sched_getscheduler", "sched_rr_get_interval", "sched_rr_get_interval_time64",
      "sched_setaffinity", "sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield",
      "seccomp", "select", "semctl", "semget", "semop", "semtimedop", "semtimedop_time64", "send",
      "sendfile", "sendfile64", "sendmmsg", "sendmsg", "sendto", "set_mempolicy",
      "set_robust_list", "set_thread_area", "set_tid_address", "setfsgid", "setfsgid32",
      "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups", "setgroups32", "setitimer",
      "setns", "setpgid", "setpriority", "setregid", "setregid32", "setresgid", "setresgid32",
      "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit", "setsid", "setsockopt",
      "setuid", "setuid32", "setxattr", "shmat", "shmctl", "shmdt", "shmget", "shutdown",
      "sigaction", "sigaltstack", "signal", "signalfd", "signalfd4", "sigpending", "sigprocmask",
      "sigreturn", "sigsuspend", "socketcall", "socketpair", "splice", "stat", "stat64", "statfs",
      "statfs64", "statx", "symlink", "symlinkat", "sync", "sync_file_range", "syncfs", "syscall",
      "sysinfo", "syslog", "tee", "tgkill", "time", "timer_create", "timer_delete",
      "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime", "timer_settime64",
      "timerfd", "timerfd_create", "timerfd_gettime", "timerfd_gettime64", "timerfd_settime",
      "timerfd_settime64", "times", "tkill", "truncate", "truncate64", "ugetrlimit", "umask",
      "umount", "umount2", "uname", "unlink", "unlinkat", "unshare", "utime", "utimensat",
      "utimensat_time64", "utimes", "vfork", "wait4", "waitid", "waitpid", "write", "writev",
  };
  return kNames;
}

// Allowed by the engine default only on some architectures; ours are the
// x86 and Arm families. Flattened, the OCI format cannot say "only on x86_64":
// a name that does not exist on an architecture is skipped there, and the
// one that does (arch_prctl on 32-bit x86) only reads or sets CPUID faulting.
const std::vector<std::string_view>& EngineArchAllowlist() {
  static const std::vector<std::string_view> kNames = {
      "arch_prctl",  "modify_ldt", "arm_fadvise64_64", "arm_sync_file_range",
      "breakpoint",  "cacheflush", "set_tls",          "sync_file_range2",
  };
  return kNames;
}

const std::vector<Refusal>& Refusals() {
  static const std::vector<Refusal> kRefusals = {
      {"io_uring", ENOSYS, {"io_uring_setup", "io_uring_enter", "io_uring_register"},
      "a large, often-exploited kernel surface; Node/libuv fall back to epoll on ENOSYS"},
      {"clone3", ENOSYS, {"clone3"},
      "its flags sit in memory a filter cannot read; libc falls back to clone on ENOSYS, "
      "whose flags are checked"},
      {"ptrace", EPERM, {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"},
      "reads and changes other processes; seccomp.allow_ptrace: true opens it for debuggers"},
      {"namespaces", EPERM, {"setns"},
      "new or other namespaces are how container escapes begin (unshare and clone are "
      "refused only with namespace flags)"},
      {"mount", EPERM,
       {"mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen",
        "fsconfig", "fsmount", "fspick", "mount_setattr"},
      "an agent never mounts; the box's mounts are set up before it starts"},
      {"file handles", EPERM, {"open_by_handle_at", "name_to_handle_at"},
      "open_by_handle_at reads files outside the container's root"},
      {"keys", EPERM, {"keyctl", "add_key", "request_key"},
      "the kernel keyring is not namespaced and has a history of escapes"},
      {"bpf and perf", EPERM, {"bpf", "perf_event_open"},
      "kernel programs and performance counters: large surfaces, used to get around filters"},
      {"userfaultfd", EPERM, {"userfaultfd"}, "used to stall the kernel at will in exploits"},
      {"kernel", EPERM,
       {"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
        "query_module"},
      "loading kernels and kernel modules"},
      {"host administration", EPERM,
       {"reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "iopl", "ioperm"},
      "the host's, not the box's, to change or read"},
      {"clock", EPERM,
       {"settimeofday", "stime", "clock_settime", "clock_settime64", "adjtimex", "clock_adjtime",
        "clock_adjtime64"},
      "the clock is the host's"},
  };
  return kRefusals;
}

}  // namespace corral::seccomp::internal
