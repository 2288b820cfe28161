// The doctor's checks of this host: corral's own programs, the session
// folder's file system, presence, the proxy, the CA bundle, the config.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "launcher/doctor/doctor.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session.h"
#include "netfilter/netfilter.h"
#include "policy/presence/presence.h"

namespace corral::launcher {
namespace {

DoctorCheck Passed(const char* name, std::string detail) {
  return {name, CheckStatus::kOk, std::move(detail), ""};
}

// The e_machine field of an ELF file's header, or -1 when it is not one.
int ElfMachine(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  unsigned char header[20] = {};
  if (!fd.valid() || ::read(fd.get(), header, sizeof header) != sizeof header ||
      std::memcmp(header,
                  "\x7f"
                  "ELF",
                  4) != 0) {
    return -1;
  }
  return header[5] == 1 ? header[18] | header[19] << 8 : header[18] << 8 | header[19];
}

std::string FileSystemName(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) return "";
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x01021994: return "tmpfs";
    case 0xEF53: return "ext4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x794c7630: return "overlay";
    case 0x6969: return "nfs";
    case 0x01021997: return "9p";
    case 0x65735546: return "fuse";
    default: return "";
  }
}

// Listens on and removes a unix socket at `path`; the error when it cannot.
Result<void> BindSocket(const std::string& path) {
  auto fd = ListenUnix(path);
  if (!fd) return fd.error();
  ::unlink(path.c_str());
  return Ok();
}

constexpr const char* kRuntimeFix =
    "set XDG_RUNTIME_DIR to a folder of yours on a local file system (a tmpfs such as "
    "/run/user/$(id -u))";

}  // namespace

std::size_t MaxSocketPath() { return MaxUnixListenPath(); }

std::size_t LongestSessionSocket(const std::string& runtime_dir) {
  // sessions/<12 hex>/oracle.sock, proxy.sock, watchdog.sock; the private
  // Podman's sessions/<12 hex>-engine/podman.sock is the longest.
  return runtime_dir.size() + std::strlen("/sessions/") + 12 +
         std::max({std::strlen("/") + std::strlen(kOracleSocket),
                   std::strlen("/") + std::strlen(kProxySocket), std::strlen("/watchdog.sock"),
                   std::strlen("-engine/podman.sock")});
}

DoctorCheck CheckSessionFolder(const std::string& runtime_dir) {
  if (std::size_t longest = LongestSessionSocket(runtime_dir); longest > MaxSocketPath()) {
    return {"session folder", CheckStatus::kFail,
            runtime_dir + " is too long: a session's sockets there would be " +
                std::to_string(longest) + " characters, more than the " +
                std::to_string(MaxSocketPath()) +
                " corral can listen on (a unix socket's path holds " +
                std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                ", and corral makes each under a longer working name first)",
            kRuntimeFix};
  }
  if (auto made = PrepareRuntimeDir(runtime_dir); !made) {
    return {"session folder", CheckStatus::kFail, made.error().message, kRuntimeFix};
  }
  std::string probe = runtime_dir + "/sessions/doctor-" + std::to_string(::getpid()) + ".sock";
  if (auto bound = BindSocket(probe); !bound) {
    return {"session folder", CheckStatus::kFail, bound.error().message, kRuntimeFix};
  }
  std::string fs = FileSystemName(runtime_dir);
  return Passed("session folder", runtime_dir + (fs.empty() ? "" : " (" + fs + ")") +
                                      ": a unix socket was bound there");
}

DoctorCheck CheckShim(const std::string& path, const std::string& named) {
  if (path.empty() && !named.empty()) {
    return {"shim", CheckStatus::kFail, "CORRAL_SHIM names " + named + ", which is not a file",
            "set CORRAL_SHIM to corral-shim's path, or unset it to use the one beside corral"};
  }
  if (path.empty()) {
    return {"shim", CheckStatus::kFail, "corral-shim was not found beside corral",
            "reinstall corral (corral-shim is installed beside it), or set CORRAL_SHIM to its "
            "path"};
  }
  // Without a mode it prints its usage and exits 2: it runs on this machine.
  auto ran = RunCapture({path}, std::chrono::seconds(5));
  if (!ran || ran->exit_status != 2) {
    return {"shim", CheckStatus::kFail,
            path + " does not run here (" +
                (ran ? "exit " + std::to_string(ran->exit_status) : ran.error().message) + ")",
            "reinstall corral, or rebuild corral-shim for this machine"};
  }
  return Passed("shim", path + " (runs)");
}

DoctorCheck CheckShell(const std::string& path, const std::string& shim_path) {
  const char* fix =
      "reinstall corral (corral-shell is installed beside corral-shim), or set "
      "CORRAL_SHIM to a shim that has corral-shell in its folder";
  if (shim_path.empty()) {
    return {"shell", CheckStatus::kFail, "not looked for: no corral-shim to look beside", fix};
  }
  if (path.empty()) {
    return {"shell", CheckStatus::kFail, "corral-shell is not beside " + shim_path, fix};
  }
  if (::access(path.c_str(), X_OK) != 0) {
    return {"shell", CheckStatus::kFail, path + " is not executable", "chmod 0755 " + path};
  }
  int machine = ElfMachine(path);
  if (machine < 0 || machine != ElfMachine("/proc/self/exe")) {
    return {"shell", CheckStatus::kFail, path + " is not a program for this machine", fix};
  }
  return Passed("shell", path + " (a program for this machine)");
}

DoctorCheck CheckPresenceSources(const policy::PresencePolicy& presence) {
  auto sources = policy::MakePresenceSources(presence);
  if (!sources) {
    return {"presence", CheckStatus::kFail, sources.error().message,
            "set presence.sources to some of: tty, logind, heartbeat"};
  }
  if (sources->empty()) {
    return {"presence", CheckStatus::kWarn,
            "no presence sources: nobody is ever taken to be watching",
            "set presence.sources (tty, logind, heartbeat)"};
  }
  auto verdict = policy::CheckPresence(*sources);
  std::string detail;
  for (const auto& report : verdict.reports) {
    detail += (detail.empty() ? "" : "; ") + report.source + ": " + report.detail;
  }
  return Passed("presence", detail + (verdict.watching ? " (somebody is watching now)"
                                                       : " (nobody is watching now)"));
}

DoctorCheck CheckProxy(const policy::NetworkPolicy& network) {
  char dir[] = "/tmp/corral-doctor-XXXXXX";
  if (::mkdtemp(dir) == nullptr) {
    return {"proxy", CheckStatus::kFail, Error::FromErrno("cannot make a folder in /tmp").message,
            "make /tmp writable (mode 1777)"};
  }
  netfilter::ProxyConfig config = netfilter::FromPolicy(network);
  config.listen = std::string("unix:") + dir + "/" + kProxySocket;
  config.threads = 1;
  auto proxy = netfilter::Proxy::Start(config);
  std::string where = proxy ? (*proxy)->address() : "";
  if (proxy) (*proxy)->Stop();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!proxy) {
    return {"proxy", CheckStatus::kFail, proxy.error().message,
            "check network.* in the config (corral config show)"};
  }
  return Passed("proxy", "listened on " + where + " and stopped");
}

DoctorCheck CheckCaBundle(const std::string& path) {
  const char* fix = "apt-get install ca-certificates, or set SSL_CERT_FILE to your CA bundle";
  if (path.empty()) {
    return {"CA bundle", CheckStatus::kWarn,
            "none found (SSL_CERT_FILE, /etc/ssl/certs/ca-certificates.crt, ...): agent images "
            "cannot be built, and a network that inspects TLS is not trusted in the box",
            fix};
  }
  std::string text = ReadText(path);
  std::size_t certificates = 0;
  for (std::size_t at = text.find("BEGIN CERTIFICATE"); at != std::string::npos;
       at = text.find("BEGIN CERTIFICATE", at + 1)) {
    ++certificates;
  }
  if (certificates == 0) {
    return {"CA bundle", CheckStatus::kFail, path + " holds no certificates", fix};
  }
  return Passed("CA bundle", path + " (" + std::to_string(certificates) + " certificates)");
}

DoctorCheck CheckConfig(const policy::Policy& policy, const std::optional<Error>& error) {
  if (error) {
    return {
        "config", CheckStatus::kFail,
        error->message + " (the checks above used the built-in defaults)",
        "correct it there (docs/configuration.md lists the keys), then run corral config check"};
  }
  return Passed("config", policy.config_path.empty() ? "no config file; the defaults apply"
                                                     : policy.config_path + " is valid");
}

}  // namespace corral::launcher
