// The session folder on the host, mounted read-only at /run/corral: the
// masks, the shim's mount point and shell names, the seccomp profile; the
// watchdog, oracle and proxy sockets are added by the session.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session.h"

namespace corral::launcher {

Result<void> WriteFile(const std::string& path, const std::string& text, unsigned mode) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.valid()) return Error::FromErrno("cannot create " + path);
  if (!text.empty() && ::write(fd.get(), text.data(), text.size()) !=
                           static_cast<ssize_t>(text.size())) {
    return Error::FromErrno("cannot write " + path);
  }
  return Ok();
}

namespace {

// bin/sh, bin/bash, ...: each a symlink to `target`.
Result<void> LinkShellNames(const std::string& bin, const std::string& target) {
  for (const char* name : kShellNames) {
    std::string link = bin + "/" + name;
    ::unlink(link.c_str());
    if (::symlink(target.c_str(), link.c_str()) != 0) {
      return Error::FromErrno("cannot create " + link);
    }
  }
  return Ok();
}

}  // namespace

Result<void> PrepareRuntimeDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Error::FromErrno("cannot create corral's runtime folder " + dir);
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return Error::FromErrno("cannot read " + dir);
  if (!S_ISDIR(st.st_mode)) {
    return Error(dir + ", corral's runtime folder, is not a folder (a link or a file): it holds "
                 "the sessions' sockets; remove it, or set XDG_RUNTIME_DIR to a folder of yours");
  }
  if (st.st_uid != ::getuid()) {
    return Error(dir + ", corral's runtime folder, belongs to uid " + std::to_string(st.st_uid) +
                 ", not to you: whoever made it could replace the sessions' sockets. Remove it, "
                 "or set XDG_RUNTIME_DIR to a folder of yours");
  }
  if ((st.st_mode & 077) != 0 && ::chmod(dir.c_str(), 0700) != 0) {
    return Error::FromErrno("cannot make " + dir + " private (chmod 0700)");
  }
  if (::mkdir((dir + "/sessions").c_str(), 0700) != 0 && errno != EEXIST) {
    return Error::FromErrno("cannot create " + dir + "/sessions");
  }
  return Ok();
}

Result<void> PrepareSessionDir(const SessionPlan& plan) {
  std::error_code ec;
  const std::string& dir = plan.session_dir;
  std::filesystem::create_directories(dir + "/bin", ec);
  if (ec) return Error("cannot create the session folder " + dir + ": " + ec.message());
  // The user's alone: the box runs as the user (rootless Podman: mapped by
  // keep-id), and nobody else may reach the oracle's socket.
  ::chmod(dir.c_str(), 0700);
  std::filesystem::create_directories(dir + "/emptydir", ec);
  ::chmod((dir + "/emptydir").c_str(), 0555);
  for (const auto& [path, text, mode] :
       {std::tuple{dir + "/empty", std::string(), 0444},
        std::tuple{dir + "/bin/corral-shim", std::string(), 0555},
        std::tuple{dir + "/bin/corral-shell", std::string(), 0555},
        std::tuple{plan.seccomp_path, plan.seccomp.dump(2) + "\n", 0444}}) {
    if (auto ok = WriteFile(path, text, static_cast<unsigned>(mode)); !ok) return ok;
  }
  // The shell names, first in the box's PATH, all corral-shell (mounted over
  // bin/corral-shell). Relative links, so they resolve inside the box too.
  return LinkShellNames(dir + "/bin", "corral-shell");
}

Result<void> PrepareUnboxedSessionDir(const std::string& dir, const std::string& shell) {
  std::error_code ec;
  std::filesystem::create_directories(dir + "/bin", ec);
  if (ec) return Error("cannot create the session folder " + dir + ": " + ec.message());
  ::chmod(dir.c_str(), 0700);
  return LinkShellNames(dir + "/bin", shell);
}

void RemoveSessionDir(const SessionPlan& plan) {
  std::error_code ec;
  if (!plan.session_dir.empty()) std::filesystem::remove_all(plan.session_dir, ec);
}

}  // namespace corral::launcher
