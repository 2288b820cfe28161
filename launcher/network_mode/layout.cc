// The network mode's objects, as names and create bodies (pure).
#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {

using nlohmann::json;

namespace {
std::string InRelay(const char* socket) { return std::string(kRelayMount) + "/" + socket; }
TarEntry DenyListEntry(const std::string& text) {
  return {TarEntry::kFile, kDenyListFile, text, 0444, 0, 0};
}
}  // namespace

Layout LayoutFor(const std::string& session_id) {
  std::string base = "corral-" + session_id;
  return {session_id,
          base + "-network",
          base + "-session",
          base + "-proxy",
          {{kLabelSession, session_id}},
          base + "-project",
          base + "-copier",
          base + "-relay"};
}

std::optional<std::string> SessionVolumeTar(const SessionFiles& files, std::int64_t mtime,
                                            const std::string& mount, bool programs) {
  std::vector<TarEntry> entries = {
      {TarEntry::kFolder, "", "", kSessionVolumeMode, files.owner, kSidecarUid},
      {TarEntry::kFolder, "bin", "", 0555, 0, 0},
  };
  if (programs) {
    entries.push_back({TarEntry::kFile, "bin/corral-shim", files.shim, 0555, 0, 0});
    entries.push_back({TarEntry::kFile, "bin/corral-shell", files.shell, 0555, 0, 0});
  }
  for (const char* name : kShellNames) {
    entries.push_back({TarEntry::kSymlink, std::string("bin/") + name, "corral-shell", 0777, 0, 0});
  }
  entries.push_back({TarEntry::kFile, "empty", "", 0444, 0, 0});
  entries.push_back({TarEntry::kFolder, "emptydir", "", 0555, 0, 0});
  entries.push_back({TarEntry::kFile, "seccomp.json", files.seccomp, 0444, 0, 0});
  entries.push_back(DenyListEntry(files.deny_list));
  if (files.passwd) entries.push_back({TarEntry::kFile, "passwd", *files.passwd, 0444, 0, 0});
  if (files.group) entries.push_back({TarEntry::kFile, "group", *files.group, 0444, 0, 0});
  if (files.ca_bundle) entries.push_back({TarEntry::kFile, kCaFile, *files.ca_bundle, 0444, 0, 0});
  // The sidecar's sockets are in relay/ (the sidecar's; the agent may enter
  // it and connect, not create): the shim's usual paths lead there.
  entries.push_back({TarEntry::kFolder, kRelayFolder, "", 0755, kSidecarUid, kSidecarUid});
  for (const char* socket : {kOracleSocket, kProxySocket, kWatchdogSocket}) {
    entries.push_back(
        {TarEntry::kSymlink, socket, std::string(kRelayFolder) + "/" + socket, 0777, 0, 0});
  }
  // Named from the mount's parent, where it is PUT.
  std::string root = mount.substr(mount.rfind('/') + 1);
  for (TarEntry& entry : entries) entry.path = root + (entry.path.empty() ? "" : "/" + entry.path);
  return WriteTar(entries, mtime);
}

std::optional<std::string> DenyListTar(const std::string& text, std::int64_t mtime) {
  return WriteTar({DenyListEntry(text)}, mtime);
}

json ForEngine(json body, const Engine& engine) {
  if (engine.podman() && engine.rootless()) body["HostConfig"]["UsernsMode"] = "keep-id";
  return body;
}

json FillerBody(const Layout& layout, const std::string& image) {
  json labels = layout.labels;
  labels[kLabelPart] = "filler";
  return {{"Image", image},
          {"Entrypoint", {"/corral-fills-a-volume"}},  // never started
          {"Cmd", json::array()},
          {"NetworkDisabled", true},
          {"Labels", labels},
          {"HostConfig",
           {{"NetworkMode", "none"},
            {"Mounts",
             {{{"Type", "volume"},
               {"Source", layout.session_volume},
               {"Target", kCopierSessionMount}}}}}}};
}

json SidecarBody(const SessionPlan& plan, const Layout& layout, const std::string& image,
                 const std::string& network, bool podman, const SidecarProxy& proxy) {
  json command = {"proxy", "--listen", std::string("unix:") + InRelay(kProxySocket),
                  "--socket-mode", "0666", "--log", "-"};
  for (const std::string& host : plan.allowed_domains) {
    command.push_back("--allow");
    command.push_back(host);
  }
  for (auto [flag, values] : {std::pair{"--deny", &proxy.denied_domains},
                              std::pair{"--allow-address", &proxy.allow_addresses},
                              std::pair{"--hosts-line", &proxy.hosts_lines}}) {
    for (const std::string& value : *values) {
      command.push_back(flag);
      command.push_back(value);
    }
  }
  const SidecarLogins& logins = proxy.logins;
  // The real values in the sidecar's environment alone, from this request:
  // never in a file of a volume the box has. --logins-env makes a proxy that
  // cannot read them refuse to start, so the box never runs without them.
  json env = json::array();
  if (!logins.blob.empty()) {
    command.push_back("--logins-env");
    command.push_back(kProxyLoginsVariable);
    if (!logins.upstream_in_blob) {
      command.push_back("--upstream-ca-file");
      command.push_back(kImageCaBundle);
    }
    env.push_back(std::string(kProxyLoginsVariable) + "=" + logins.blob);
  }
  json labels = layout.labels;
  labels[kLabelPart] = "proxy";
  std::string user = std::to_string(kSidecarUid) + ":" + std::to_string(kSidecarUid);
  json body = {{"Image", image},
          {"Entrypoint", {"/usr/bin/corral"}},
          {"Cmd", command},
          {"User", user},
          {"Hostname", "corral-proxy"},
          {"Env", env},
          {"Labels", labels},
          {"HostConfig",
           {{"NetworkMode", network},
            {"CapDrop", {"ALL"}},
            {"SecurityOpt", {"no-new-privileges"}},
            {"ReadonlyRootfs", true},
            {"PidsLimit", 256},
            {"Tmpfs", {{"/tmp", "rw,nosuid,nodev,noexec,size=16m"}}},
            {"Mounts",
             {{{"Type", "volume"},
               {"Source", layout.session_volume},
               {"Target", kSessionMountPoint}},
              {{"Type", "volume"},
               {"Source", layout.relay_volume},
               {"Target", kRelayMount}}}}}}};
  if (!podman) {
    // /run a mount of its own, so the fill can name the volume's root from
    // it (kSessionFillPath); it holds nothing else. Podman would copy the
    // fill, which it keeps in the container's /run, into it.
    json run = {{"Type", "tmpfs"},
                {"Target", kSessionFillPath},
                {"TmpfsOptions", {{"SizeBytes", 1 << 20}}}};
    json& mounts = body["HostConfig"]["Mounts"];
    mounts.insert(mounts.begin(), run);
  }
  return body;
}

std::vector<std::string> RelayCommand() {
  return {"/usr/bin/corral", "relay", "--listen", InRelay(kOracleSocket), "--watchdog",
          InRelay(kWatchdogSocket)};
}

}  // namespace corral::launcher::network_mode
