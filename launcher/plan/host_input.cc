// The facts about this host a plan needs: who we are, where things live.
#include <limits.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "launcher/session_plan.h"
#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

bool IsFile(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string HomeDir() {
  std::string home = Env("HOME");
  if (!home.empty()) return home;
  if (const passwd* pw = ::getpwuid(::getuid())) return pw->pw_dir;
  return "";
}

std::string SelfDir() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::filesystem::path(std::string(buf, n)).parent_path().string();
}

// $CORRAL_SHIM, else beside corral, the build tree, then an installed
// layout. A CORRAL_SHIM that names no file finds none: the user named that
// one, as --config names a file, and another shim would go into the box.
std::string FindShim() {
  std::string named = Env("CORRAL_SHIM");
  if (!named.empty()) {
    return IsFile(named) ? std::filesystem::path(named).lexically_normal().string() : "";
  }
  std::string self = SelfDir();
  for (const std::string& candidate :
       {self + "/corral-shim", self + "/../images/corral-shim",
        self + "/../lib/corral/corral-shim", std::string("/usr/lib/corral/corral-shim")}) {
    if (IsFile(candidate)) return std::filesystem::path(candidate).lexically_normal().string();
  }
  return "";
}

std::string FindCaBundle() {
  for (const std::string& candidate :
       {Env("SSL_CERT_FILE"), std::string("/etc/ssl/certs/ca-certificates.crt"),
        std::string("/etc/pki/tls/certs/ca-bundle.crt"), std::string("/etc/ssl/ca-bundle.pem"),
        std::string("/etc/ssl/cert.pem")}) {
    if (IsFile(candidate)) return candidate;
  }
  return "";
}

std::uint64_t HardLimit(int resource, std::uint64_t fallback) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0 || limit.rlim_max == RLIM_INFINITY) return fallback;
  return limit.rlim_max;
}

}  // namespace

std::string RuntimeDirFor(std::uint32_t uid, const std::string& xdg_runtime_dir) {
  if (!xdg_runtime_dir.empty()) return xdg_runtime_dir + "/corral";
  return uid == 0 ? std::string("/run/corral") : "/tmp/corral-" + std::to_string(uid);
}

PlanInput HostPlanInput(const policy::Policy& policy) {
  PlanInput input;
  input.policy = &policy;
  std::error_code ec;
  input.cwd = std::filesystem::current_path(ec).string();
  input.uid = ::getuid();
  input.gid = ::getgid();
  input.home = HomeDir();
  std::string config_home = Env("XDG_CONFIG_HOME");
  std::string state_home = Env("XDG_STATE_HOME");
  input.config_dir = (config_home.empty() ? input.home + "/.config" : config_home) + "/corral";
  input.state_dir = (state_home.empty() ? input.home + "/.local/state" : state_home) + "/corral";
  input.runtime_dir = RuntimeDirFor(input.uid, Env("XDG_RUNTIME_DIR"));
  for (auto& registry : ToolRegistries(input.home, [](const char* name) { return std::getenv(name); })) {
    input.tool_registries.emplace_back(std::move(registry.entry), std::move(registry.from));
  }
  input.last_refused_hosts = LastRefusedHosts(input.state_dir, ProjectFolderOf(input.cwd));
  if (auto hosts = ReadProjectHosts(input.state_dir)) {
    input.project_hosts = std::move(*hosts);
  } else {
    log::warn(hosts.error().message);  // the session goes on without them
  }
  input.shim_path = FindShim();
  if (std::string shell = std::filesystem::path(input.shim_path).replace_filename("corral-shell");
      !input.shim_path.empty() && IsFile(shell)) {
    input.shell_path = shell;
  }
  input.ca_bundle = FindCaBundle();
  input.tty = ::isatty(STDIN_FILENO) && ::isatty(STDOUT_FILENO);
  input.nofile_hard = HardLimit(RLIMIT_NOFILE, 1024);
  input.nproc_hard = HardLimit(RLIMIT_NPROC, 4096);
  input.getenv = [](const char* name) { return std::getenv(name); };
  return input;
}

}  // namespace corral::launcher
