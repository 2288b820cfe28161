// launcher/network_mode/: a boxed session on an engine that cannot see this
// machine's folders or sockets (docs/network-mode.md). Everything the box
// needs is made through the engine's API: a session volume filled by PUT
// archive instead of the host's session folder, and a proxy sidecar on a
// network with a way out whose sockets are in that volume. The agent keeps
// no network at all, as in the local box: its shim reaches the sidecar's
// proxy, the oracle relay and the watchdog through the shared volume.
// Private to launcher/.
#pragma once

#include <cstdint>
#include <functional>
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/engine/engine.h"
#include "launcher/session_plan.h"
#include "netfilter/netfilter.h"

namespace corral::launcher::network_mode {

inline constexpr const char* kLabelPart = "corral.part";  // "proxy", "filler", ...
// In the session volume: where the agent's box has the relay volume, the
// sidecar's (uid 65534) sockets; oracle.sock, proxy.sock and watchdog.sock
// in the session volume link there, so the shim and corral-shell use the
// paths they use locally.
inline constexpr const char* kRelayFolder = "relay";
inline constexpr std::uint32_t kSidecarUid = 65534;
// Where the sidecar has the relay volume. The corral image has this folder,
// kSidecarUid's, and the engine gives an empty volume mounted over it that
// owner (Docker when the sidecar is made, Podman at its first start): so the
// sidecar can start before the session volume is filled.
inline constexpr const char* kRelayMount = "/corral-relay";
// The session volume's root: the box user's alone, as the local session
// folder is. The sidecar's process never enters it (its sockets are in the
// relay volume); the engine writes the deny list's updates through it.
inline constexpr unsigned kSessionVolumeMode = 0700;
// Where the session's files are PUT: the parent of the volume's mount, every
// name under "corral/", so the tar's first entry is the volume's root and
// gives it its owner and mode (Docker skips a "." entry). On Docker the
// sidecar has a tmpfs at /run for this: Docker refuses a PUT outside a
// writable mount of a read-only root. Podman writes it into the container's
// own /run/corral, and its first start copies that into the empty volume,
// the root's owner and mode too; so the fill must come before the start.
inline constexpr const char* kSessionFillPath = "/run";
// corral's first line to the relay: the copy landed, listen. The relay is
// started while the copy is read back and makes its sockets (for which the
// shim waits before it runs the agent) only once told.
inline constexpr const char* kRelayListen = "{\"listen\":true}";
// The relay's first line on its stdout: its sockets listen.
inline constexpr const char* kRelayReady = "{\"ready\":true}";

// The names of one session's objects on the engine, all labelled with the
// session, so `corral stop`, the reaper and a later sweep find them.
struct Layout {
  std::string session_id;
  std::string network;                        // the sidecar's way out; the agent has none
  std::string session_volume;                 // what the session folder holds on a local engine
  std::string sidecar;                        // the proxy's container
  std::map<std::string, std::string> labels;  // corral.session=ID
  // The project copied in and back (project_copy.cc), when the engine cannot see it.
  std::string project_volume;                 // kept until copied back: TearDown leaves it
  std::string copier;                         // never started; the project volume mounted in it
  std::string relay_volume;                   // the sidecar's sockets (kRelayMount, kRelayFolder)
};
Layout LayoutFor(const std::string& session_id);

// What the session folder holds on a local engine (session_dir.cc,
// box_user.cc, services.cc), as bytes to deliver through the API.
struct SessionFiles {
  std::string shim, shell;                   // the static corral-shim and corral-shell
  std::string seccomp;                       // the profile's JSON
  std::string deny_list;                     // the shim's copy of the current list
  std::optional<std::string> passwd, group;  // with the box user's line
  std::optional<std::string> ca_bundle;      // the host's trusted CAs
  std::uint32_t owner = 0;                   // the box user's uid: the volume's root is theirs
};
// The CA bundle in the session volume; SSL_CERT_FILE and the others name it.
inline constexpr const char* kCaFile = "ca.crt";
// The session volume's contents as a tar to PUT at kSessionFillPath, every
// name under "corral/": the root (files.owner's, kSessionVolumeMode, group
// kSidecarUid), laid out as the session folder is (bin/ with the shell names
// linked to corral-shell, empty, emptydir/, seccomp.json, deny-list, passwd,
// group, the sockets linked into relay/), ca.crt, and relay/ for the sidecar.
// Root's and read-only, except relay/. nullopt when a header cannot hold it.
// `mount`: where the volume is in the container the tar is PUT into, at the
// mount's parent: kSessionMountPoint in the sidecar (PUT at kSessionFillPath),
// kCopierSessionMount in the copier (PUT at "/"). `programs` false: without
// the shim and the shell, which the engine copied in from the corral image.
std::optional<std::string> SessionVolumeTar(const SessionFiles& files, std::int64_t mtime,
                                            const std::string& mount = kSessionMountPoint,
                                            bool programs = true);

// The deny list's copy alone, as SessionVolumeTar lays it, to PUT over the
// volume's while the session runs (a config edit).
std::optional<std::string> DenyListTar(const std::string& text, std::int64_t mtime);

// Where the copier has the session volume. The corral image holds bin/
// corral-shim and bin/corral-shell there (Dockerfile), which Docker copies
// into the empty volume when it makes the copier.
inline constexpr const char* kCopierSessionMount = "/corral-session";
// A container created from `image` and never started, with the session
// volume at kCopierSessionMount, to PUT files through (the copier's body
// starts from it).
nlohmann::json FillerBody(const Layout& layout, const std::string& image);
// `body` as this engine must have it: rootless Podman runs corral's own
// containers with keep-id, as it runs the agent's box (engine_ops.cc), so
// that the owners the volumes' files are given mean the same in all of them.
nlohmann::json ForEngine(nlohmann::json body, const Engine& engine);
// ---------------------------------------------------------------------------
// The logins a proxy elsewhere holds (sidecar_logins.cc, docs/logins.md):
// `corral proxy --logins-env NAME` reads them as JSON from its environment,
// where the engine API put them on the sidecar's create request alone:
//   {"logins": [{"name", "hosts": ["host:port"], "header", "prefix",
//                "value" (or "value_env": a variable of the proxy's), "stand_in"}],
//    "ca": {"cert", "key"}, "upstream_ca": "PEM", "forge": {...}}
// "ca" is the session CA, made by corral so that the box's bundle has its
// certificate before anything starts; "upstream_ca" (optional) the
// network.upstream_ca_file's text, which the engine's machine may not have.
inline constexpr const char* kProxyLoginsVariable = "CORRAL_PROXY_LOGINS";
// One environment string may hold 128 KiB (Linux's MAX_ARG_STRLEN), name included.
inline constexpr std::size_t kMaxProxyLoginsBytes = 120 * 1024;
// In the corral image: the host's CA bundle it was built with (Dockerfile),
// which the sidecar checks login hosts against, as a local proxy checks
// them against the host's, unless network.upstream_ca_file is set.
inline constexpr const char* kImageCaBundle = "/usr/local/share/corral/build-ca.crt";
struct ProxyLogins {
  std::vector<netfilter::Login> logins;
  netfilter::SessionCaPem ca;
  std::string upstream_ca;  // PEM text, or ""
  netfilter::forge::ForgeConfig forge;  // "forge": the project's forge (docs/forge.md), or none
};
// As JSON; `values_by_name`: each value as "value_env": its login's name
// (Kubernetes: the proxy's container has the variable from a Secret).
std::string ProxyLoginsJson(const ProxyLogins& logins, bool values_by_name = false);
// The JSON read back; "value_env" looked up with `getenv`. Checked here only
// for shape: the proxy checks the rest at Start.
Result<ProxyLogins> ParseProxyLogins(std::string_view text,
                                     const std::function<const char*(const char*)>& getenv);
// What the sidecar of a session with logins gets: `blob` goes in its
// environment (kProxyLoginsVariable), `ca_pem` into the box's bundle.
struct SidecarLogins {
  std::string blob;  // "" without logins
  std::string ca_pem;
  bool upstream_in_blob = false;  // else it checks against kImageCaBundle
};
// The rest of the sidecar's proxy settings that a local proxy reads from
// the policy on this machine: network.denied_domains, allow_addresses, and
// hosts_file's lines (the engine's machine may not have the file).
struct SidecarProxy {
  SidecarLogins logins;
  std::vector<std::string> denied_domains, allow_addresses, hosts_lines;
};
// `upstream_ca_text`: network.upstream_ca_file's content, "" when unset. An
// error when there is nothing to hold, or it is too big to pass.
// `forge`: the project's forge, which the sidecar judges too (it has no
// presence to ask: to it nobody ever watches).
Result<SidecarLogins> MakeSidecarLogins(std::vector<netfilter::Login> logins,
                                        const std::string& upstream_ca_text,
                                        netfilter::forge::ForgeConfig forge = {});

// The sidecar: `corral proxy` with the session's list on relay/proxy.sock,
// from the corral image, on `network`, locked down as a box. `podman`: no
// tmpfs at /run (see kSessionFillPath; Podman would copy the fill into it).
// With `proxy.logins.blob`: in its environment, and `--logins-env` in its
// command; the rest of `proxy` as flags.
nlohmann::json SidecarBody(const SessionPlan& plan, const Layout& layout, const std::string& image,
                           const std::string& network, bool podman,
                           const SidecarProxy& proxy = {});
// The sidecar's network when the engine allows it: the engine host's own, as
// corral's proxy has this machine's in a local session. The proxy listens on
// no port, and refuses loopback, private and link-local addresses wherever a
// name leads; a bridge network of its own costs a quarter second more per
// start. An engine that refuses it (user namespaces) gets layout.network.
inline constexpr const char* kSidecarNetwork = "host";
// The relay's command in the sidecar (an exec whose stdin and stdout are
// corral's stream): the oracle's and the watchdog's sockets in relay/.
std::vector<std::string> RelayCommand();

// Sends each new deny list copy into the session volume (PUT archive
// through the running sidecar), so the shim's fallback in the box reads the
// list this machine's oracle has; the latest text wins, on a thread of its
// own. A failure is logged as a warning: the oracle, which decides while the
// channel holds, already has the edit.
class DenyListSender {
 public:
  DenyListSender(Engine& engine, const Layout& layout);
  ~DenyListSender();  // a text not yet sent is dropped: the session is ending
  DenyListSender(const DenyListSender&) = delete;
  DenyListSender& operator=(const DenyListSender&) = delete;
  void Send(std::string text);  // returns at once

 private:
  void Loop();
  Engine& engine_;
  std::string sidecar_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::optional<std::string> pending_;
  bool stopping_ = false;
  std::thread thread_;
};

// Whether the engine sees a host path as it is here (a CI runner's shared
// build folder). Only the project may be bind-mounted; see AgentPlan.
using Visible = std::function<bool(const std::string& host_path)>;
// The agent's plan in this mode: no network, as locally; the session
// folder's bind mount becomes the session volume (read-only); every other
// bind of a session-folder file (masks, passwd, group), the shim, the shell
// and the CA bundle are bound read-only from the volume's folder on the
// engine's own host, `volume_on_engine` (the engine resolves a bind there;
// Docker 20.10 cannot mount part of a volume); Podman reads the seccomp
// profile there too. Any other host bind mount the engine cannot see is an
// error naming it.
Result<SessionPlan> AgentPlan(const SessionPlan& plan, const Layout& layout,
                              const std::string& volume_on_engine, const Visible& visible);

// The session volume and the relay volume; returns the session volume's
// folder on the engine's host (its Mountpoint). TearDown removes them again.
Result<std::string> MakeSessionVolume(Engine& engine, const Layout& layout);
// Makes the sidecar (and its network when the host's is refused) and PUTs
// the session's files into the volume through it; does not start it
// (StartSidecar), so the agent's box can be made while it starts. TearDown
// removes what was made.
// `fill` false: the copier fills the volume (CopyIn::session_tar).
Result<void> MakeSidecar(Engine& engine, const SessionPlan& plan, const Layout& layout,
                         const SessionFiles& files, const std::string& corral_image,
                         bool fill = true, const SidecarProxy& proxy = {});
Result<void> StartSidecar(Engine& engine, const Layout& layout);
// How long the shim in the agent's box waits for the relay's watchdog and
// the sidecar's proxy (CORRAL_WATCHDOG_WAIT_MS): the box starts while the
// sidecar does, and the agent runs only once both answer. corral waits as
// long for the relay to say it listens.
inline constexpr int kRelayWaitMs = 30000;
// Removes the sidecar, the network and the session volume, each step
// whatever the others did (side by side); the first error, with the rest
// still tried. Never the project's volume, nor its copier (the copy-back
// reads through it, then removes it).
Result<void> TearDown(Engine& engine, const Layout& layout);
// The same as API calls (containers first), for the reaper, which runs
// after corral is gone and can only send requests.
std::vector<ApiCall> TearDownCalls(const Layout& layout);

// The sidecar's half of the oracle channel (`corral relay`): once kRelayListen
// comes on `in`, listens on
// `oracle` (mode 0666: the agent's uid connects) and says kRelayReady on
// `out`; each connection's one request line goes out on `out` as
// {"id":N,"request":...}; the line {"id":N,"answer":...} read from `in`
// answers it. `watchdog` (when not "") is held open for the shim until `in`
// ends. Returns when `in` ends, with the sockets removed, so the shim's
// fallback takes over and the shim ends the box.
struct RelaySockets {
  std::string oracle, watchdog;
};
Result<void> RunRelay(const RelaySockets& sockets, int in, int out);

// corral's half: the relay exec'd in the sidecar, its questions asked of the
// oracle's socket on this machine, the answers sent back. Lives until it is
// destroyed or the stream ends (then the shim falls back and ends the box).
class OracleChannel {
 public:
  // The relay started in the sidecar, waiting for kRelayListen.
  static Result<std::unique_ptr<RawConnection>> StartRelay(Engine& engine, const Layout& layout);
  // Tells the relay on `stream` to listen; returns once it said it does.
  static Result<std::unique_ptr<OracleChannel>> Start(std::unique_ptr<RawConnection> stream,
                                                      const std::string& oracle_socket);
  ~OracleChannel();  // ends the stream: the relay goes, and with it the box's watchdog
  OracleChannel(const OracleChannel&) = delete;
  OracleChannel& operator=(const OracleChannel&) = delete;
  std::uint64_t questions() const;

 private:
  OracleChannel() = default;
  // Stdout lines of the relay from the stream; false when it ended. A line
  // for which `on_line` says false is the last taken: the rest wait in
  // lines_ (the questions that follow the relay's ready line are the loop's).
  bool ReadLines(const std::function<bool(const std::string&)>& on_line, int timeout_ms);
  bool TakeLines(const std::function<bool(const std::string&)>& on_line);
  void Loop();
  bool OnQuestion(const std::string& line);
  void Ask(std::uint64_t id, const std::string& request);  // on a thread of its own
  std::unique_ptr<RawConnection> stream_;
  std::string oracle_socket_;
  std::string frames_, lines_;
  // The loop alone uses the stream (a TLS connection is not for two
  // threads): answers wait in outgoing_ and a byte on wake_ calls it.
  UniqueFd wake_read_, wake_write_;
  std::thread thread_;
  std::mutex mu_;  // outgoing_, in_flight_, stopping_
  std::string outgoing_;
  std::condition_variable settled_;
  int in_flight_ = 0;
  bool stopping_ = false;
  std::atomic<std::uint64_t> questions_{0};
};

// ---------------------------------------------------------------------------
// The project copied into a per-session volume and back (project_copy.cc,
// copy_back_plan.cc, copy_back.cc), for an engine that cannot see it. The
// volume is the box's only copy of its work until it is back on this
// machine, so nothing removes it but a copy-back that brought everything
// home (TearDown and TearDownCalls leave it; `corral stop ID` resumes).

inline constexpr const char* kProjectPart = "project";        // corral.part of the volume
inline constexpr const char* kLabelProject = "corral.project";  // the host's project folder
// Where the copier container has the project volume (the agent has it at
// the project's own path).
inline constexpr const char* kCopierMount = "/corral-project";

// How each engine's archive calls the copier's mount, found on the test
// engines: Docker applies a folder entry's owner to the mount point only
// when the tar is PUT at "/" with the mount's own name ("corral-project/"),
// and names the GET's members "corral-project/..."; Podman writes a PUT at
// "/" into the container's root instead of the volume, takes "./" at the
// mount, and names the GET's members "/...".
struct CopierArchive {
  std::string put_path;  // where the copy-in's tar is PUT
  std::string put_root;  // the tar's name for the project folder
  std::string get_root;  // the copy-back's archive's name for it, without the '/'
};
CopierArchive CopierArchiveFor(bool podman);

// corral.session, corral.part=project and corral.project=PROJECT_DIR.
std::map<std::string, std::string> ProjectVolumeLabels(const Layout& layout,
                                                       const std::string& project_dir);
// A container created from `image` and never started, with the project
// volume at kCopierMount, to PUT and GET archives through; with the session
// volume too at kCopierSessionMount, to fill both with one PUT.
nlohmann::json CopierBody(const Layout& layout, const std::string& image,
                          bool with_session_volume = false);

// One path of the project as it was copied in (relative, no "./", no '/'
// at either end). hash: a file's content hash, a symlink's target.
struct CopiedEntry {
  TarEntry::Kind kind = TarEntry::kFile;  // kFile, kFolder or kSymlink
  unsigned mode = 0;                      // permission bits
  std::int64_t size = 0, mtime = 0;
  std::string hash;
};
// Review mode on an engine elsewhere (docs/sessions.md, "Review mode"): the
// box's changes are not brought into the project but into review mode's
// upper folder on this machine, against the copy as it went in (the project
// is neither read nor written), and the paths the box removed into
// `removed_list` (NUL-separated), which launcher/review reads as it reads
// an overlay's whiteouts. Empty: the project, as in any other session.
struct ReviewInto {
  std::string upper, removed_list;
};
struct CopyManifest {
  std::string session_id, project_dir, volume, image;
  ReviewInto review;  // saved
  std::string mountpoint;  // the volume's folder on the engine's host; not saved
  // The copy read back as it went in (CheckCopiedIn), so the box may run.
  // Saved: a volume whose copy-in never landed holds nothing of the box's,
  // and a copy-back would read what is missing as deleted. A manifest from
  // before this field was kept says true.
  bool landed = false;
  std::uint32_t uid = 0, gid = 0;  // the owner the box's files were given
  std::map<std::string, CopiedEntry> entries;
  // Not copied (unreadable, a socket or device): the host's, untouched. Not saved.
  std::vector<std::string> skipped;
};
// A file's content hash as the manifest keeps it (FNV-1a, 64 bits, and the
// size: change detection, not a defence; a box that forged a collision
// would only hide its own change).
std::string ContentHash(std::string_view content);
nlohmann::json ManifestJson(const CopyManifest& manifest);
Result<CopyManifest> ManifestFromJson(const nlohmann::json& json);
// STATE_DIR/sessions/ID.copy.json, written 0600.
std::string ManifestPath(const std::string& state_dir, const std::string& session_id);

// The project's files as a tar to PUT at CopierArchive::put_path, under
// `put_root` (.git too, owned by uid:gid, modes and mtimes kept), and the
// manifest of what it holds.
struct ProjectScan {
  std::string tar;
  CopyManifest manifest;
};
Result<ProjectScan> ScanProject(const std::string& project_dir, std::uint32_t uid,
                                std::uint32_t gid, const std::string& put_root);
// The copy-in in two steps, so that the agent's box can be made while the
// files go in: PrepareCopyIn scans the project, saves the manifest
// (policy::StateDir(), landed false) and makes the project volume (its
// folder in manifest.mountpoint); FillCopyIn makes the copier and PUTs the
// files. CheckCopiedIn reads one back; only then may the agent run, and
// MarkLanded saves that in the manifest. A copy that failed or did not
// check out goes with DiscardCopyIn (after any box that has the volume).
struct CopyIn {
  CopyManifest manifest;
  std::string tar;
  // Docker: the session volume's files (SessionVolumeTar put at "/"), sent
  // with the project in the same PUT (each PUT costs Docker ~75 ms, as it
  // mounts the container's root). The copier then holds the session volume,
  // so it is removed once the copy is read back.
  std::string session_tar;
};
Result<CopyIn> PrepareCopyIn(Engine& engine, const Layout& layout, const std::string& project_dir,
                             const std::string& image, std::uint32_t uid, std::uint32_t gid,
                             const ReviewInto& review = {});
Result<void> FillCopyIn(Engine& engine, const Layout& layout, const CopyIn& copy);
// One file read back from the volume through the copier: an engine that
// took the PUT but put the files elsewhere (Podman with a PUT at "/") would
// leave the box an empty project, and the copy-back would read that as
// everything deleted. A session runs it while the sidecar starts.
Result<void> CheckCopiedIn(Engine& engine, const Layout& layout, const CopyManifest& manifest);
Result<void> MarkLanded(CopyManifest& manifest);
// The copier, the volume and the manifest, removed: the first error.
Result<void> DiscardCopyIn(Engine& engine, const Layout& layout);
// All of the above in one go, for `corral project-copy in`: the landed
// manifest, or an error with nothing left.
Result<CopyManifest> CopyProjectIn(Engine& engine, const Layout& layout,
                                   const std::string& project_dir, const std::string& image,
                                   std::uint32_t uid, std::uint32_t gid);

// --- The copy-back's decision (copy_back_plan.cc, pure) ---
// A path on this machine as it is now. kBlocked: a folder on the way to it
// is a symlink or not a folder, so nothing may be written there.
struct HostEntry {
  enum State { kAbsent, kPresent, kBlocked } state = kAbsent;
  TarEntry::Kind kind = TarEntry::kFile;
  unsigned mode = 0;
  std::string hash;  // as CopiedEntry::hash
  static HostEntry Of(State state) { return {state, TarEntry::kFile, 0, ""}; }
};
struct SyncAction {
  enum Kind { kRemove, kRemoveFolder, kMakeFolder, kWriteFile, kWriteSymlink, kChmod } kind;
  std::string path;     // relative to the project
  std::string content;  // a file's bytes; a symlink's target
  unsigned mode = 0;
};
struct SyncPlan {
  std::vector<SyncAction> actions;     // in the order to apply them
  std::vector<std::string> conflicts;  // changed on both sides: what was kept and where the box's is
  std::vector<std::string> refused;    // unsafe or unsupported box entries, never copied
  std::vector<std::string> blocked;    // box changes that cannot be written here: the volume stays
};
// The box's entries from the copier's archive of kCopierMount (whose
// folder the archive names `root`: CopierArchive::get_root), by project
// path: names outside that folder, with "." or ".." components, below a box
// symlink, devices and fifos are refused (named in `refused`); a hard link
// becomes a copy of the file it names.
std::map<std::string, TarEntry> BoxEntries(const std::vector<TarEntry>& archive,
                                           const std::string& root,
                                           std::vector<std::string>& refused);
// Every path of the manifest and the box, with the host's state of each.
std::vector<std::string> PathsToCompare(const CopyManifest& manifest,
                                        const std::map<std::string, TarEntry>& box);
// Per path: the box's version goes to this machine when the box changed it
// and this machine did not; when both changed it differently, this
// machine's is kept and the box's file or link is written beside it as
// PATH.corral-SESSION (a deletion on one side loses to a change on the
// other). Both made the same change: nothing to do, so a copy-back that was
// stopped half way can be run again.
SyncPlan PlanCopyBack(const CopyManifest& manifest, const std::map<std::string, TarEntry>& box,
                      const std::map<std::string, HostEntry>& host);
// The name a conflicting box version is written under.
std::string BesidePath(const std::string& path, const std::string& session_id);

// --- The copy-back itself (copy_back.cc) ---
struct CopyBackReport {
  std::string volume;
  std::vector<std::string> written, removed, conflicts, refused;
  std::vector<std::string> not_copied;  // blocked or failed: still only in the volume
  bool volume_removed = false;
  bool never_landed = false;  // a copy-in that never finished: discarded, nothing to bring back
  bool review = false;        // brought into review mode's copy, not the project
};
// Review mode's copy-back (CopyManifest::review): what the box changed
// against the manifest alone. `writes`: each file, link and folder the box
// made or changed, as the box has it (folders writable by their owner, so
// that what goes below them can be written); `removed`: each path the
// manifest has and the box does not. Pure.
struct UpperPlan {
  std::vector<SyncAction> writes;
  std::vector<std::string> removed;
};
UpperPlan PlanIntoUpper(const CopyManifest& manifest, const std::map<std::string, TarEntry>& box);
// Whether the project volume may go: everything the box wrote is here.
bool ProjectVolumeMayGo(const CopyBackReport& report);
// The whole of the file `name` (relative to the folder `dir`, or AT_FDCWD),
// opened without following a symlink; nullopt when it cannot be read.
std::optional<std::string> ReadNoFollow(int dir, const std::string& name);
// The host's state of each path, without following any symlink.
std::map<std::string, HostEntry> ReadHostState(const std::string& project_dir,
                                               const std::vector<std::string>& paths);
// Applies the plan under `project_dir`, each folder opened without
// following symlinks, each file written beside and renamed over.
void ApplyPlan(const std::string& project_dir, const SyncPlan& plan, CopyBackReport& report);
// GETs the volume's tree through a copier, plans against the manifest and
// this machine, applies (in review mode: PlanIntoUpper, into the upper
// folder, the removed list written); when everything is here, removes the
// volume and then the manifest. Holds a lock beside the manifest, so `corral stop`
// and the session cannot copy back at once.
Result<CopyBackReport> CopyProjectBack(Engine& engine, const Layout& layout,
                                       const CopyManifest& manifest);
// `corral stop`'s half: the saved manifest of `session_id` (nullopt when
// there is none: nothing left to copy back), then CopyProjectBack; a
// copy-in that never landed (corral killed while it went in: the agent
// never ran) is removed instead, volume and manifest.
Result<std::optional<CopyBackReport>> ResumeCopyBack(Engine& engine,
                                                     const std::string& session_id);
// What the copy-back did, in lines for the user.
std::string DescribeCopyBack(const CopyBackReport& report, const std::string& session_id);
// The one line that says how the box has the project and what happens to
// uncommitted work when corral is killed.
std::string ProjectModeLine(const Layout& layout, const std::string& project_dir, bool copied);

}  // namespace corral::launcher::network_mode

