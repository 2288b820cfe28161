// launcher/session/: running one session: the host services (oracle, proxy,
// notifier), the terminal and signals, the reaper, the unboxed session and the
// box user's name. Private to launcher/.
#pragma once

#include <termios.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/base.h"
#include "launcher/autorun/autorun.h"
#include "launcher/engine/engine.h"
#include "launcher/launcher.h"
#include "launcher/review/review.h"
#include "netfilter/netfilter.h"
#include "policy/config/config.h"
#include "policy/inbox/inbox.h"
#include "policy/oracle/oracle.h"

namespace corral::launcher {

// Creates the session folder: the masks, the shim's mount point, the
// seccomp profile file. Also what `corral spec --session-dir` prepares.
Result<void> PrepareSessionDir(const SessionPlan& plan);
void RemoveSessionDir(const SessionPlan& plan);

// Tells the user of a command refused while they were away, besides the
// inbox: a desktop notification (notify-send, when a desktop can show one)
// and a webhook (JSON POST, retried). Never blocks a decision: refusals are
// queued and sent from a thread of its own. Private to launcher/.
// The webhook's JSON body for one refusal.
std::string WebhookBody(const policy::InboxItem& item);

// POSTs `body` to `url`, up to `tries` times with a growing pause between
// them; ok on any 2xx answer.
Result<void> PostWebhook(const std::string& url, const std::string& body, int tries,
                         int pause_ms, long timeout_ms);

class Notifier {
 public:
  // `desktop_available`: a desktop session and notify-send exist (asked once).
  Notifier(policy::NotifyPolicy policy, bool desktop_available);
  ~Notifier();  // sends what is queued, for at most a few seconds
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  bool active() const;  // anything to send to at all
  void Add(const policy::InboxItem& item);  // returns at once

  // True when this process can show desktop notifications.
  static bool DesktopAvailable();

 private:
  void Loop();
  void Send(const policy::InboxItem& item);

  policy::NotifyPolicy policy_;
  bool desktop_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<policy::InboxItem> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

// The session record (docs/events.md): one JSON object per line, kept in
// StateDir()/sessions/<id>.jsonl and, with --json-events, copied to a file or
// stdout. Thread-safe: the oracle's and the proxy's threads write to it.
struct RecordCounts {
  std::uint64_t commands = 0, refused = 0;
  std::uint64_t connections = 0, connections_refused = 0;
  std::map<std::string, std::uint64_t> refused_hosts;  // 403s, by host
  // A login's stand-in sent to a host it does not belong to, by host: the
  // host itself may be allowed, so these are not refused hosts.
  struct Stray {
    std::uint64_t times = 0;
    std::string reason;  // the first refusal's: names the login, never a value
  };
  std::map<std::string, Stray> stray_stand_ins;
  // Requests the forge's rules refused (docs/forge.md), by "host: rule repository".
  std::map<std::string, Stray> forge_refused;
};
class SessionRecord {
 public:
  // `copy_fd` (not owned, -1 for none) gets every line too.
  static Result<std::shared_ptr<SessionRecord>> Open(const std::string& path,
                                                    std::string session_id, int copy_fd);
  // Adds "v", "time" and "session" when the event has none.
  void Write(nlohmann::json event);
  void Command(std::string_view line);  // the oracle's decision line
  void Network(std::string_view line);  // the proxy's decision line
  RecordCounts Counts() const;
  const std::string& path() const { return path_; }
  const std::string& session() const { return session_; }

 private:
  SessionRecord() = default;
  void Append(std::string_view line);

  std::string path_, session_;
  UniqueFd file_;
  mutable std::mutex mu_;
  int copy_fd_ = -1;
  bool warned_ = false;
  RecordCounts counts_;
};
std::string SessionRecordPath(const std::string& state_dir, const std::string& session_id);
// What a session's record says of where it runs (recorded_sessions.cc):
// `corral ps` and `corral stop` ask that engine without --engine.
struct RecordedSession {
  std::string id, engine, endpoint, project, agent;
  int pid = 0;            // the corral that ran it, and that process's start time
  std::string pid_start;  // (/proc/PID/stat), so a reused pid is not taken for it
  bool ended = false;     // session_ended was written
};
// From a record's first lines and its last ones; nullopt without session_started.
std::optional<RecordedSession> RecordedSessionFrom(std::string_view head, std::string_view tail);
std::optional<RecordedSession> ReadRecordedSession(const std::string& path);
// Not ended, and its corral still runs.
bool StillRunning(const RecordedSession& session);
// The boxed sessions (an endpoint recorded) still running, by id.
std::vector<RecordedSession> RunningRecordedSessions(const std::string& state_dir);
// The record of session `id` (or its first 6 or more digits, or its box's
// name); nullopt when there is none, or more than one.
std::optional<RecordedSession> RecordedSessionFor(const std::string& state_dir,
                                                  const std::string& id);
// The engine a session's record names (its endpoint), and only that one. A
// starting engine is not waited for.
Result<Engine> ConnectRecorded(const std::string& url);
// The held and released events of a run that waited for `corral allow`
// (none when since_ms is 0); written before session_started.
std::vector<nlohmann::json> HoldEvents(const std::string& folder, std::int64_t since_ms,
                                       std::int64_t released_ms);

// The project's files as git sees them (project_changes.cc): nullopt when
// the project is not a git work tree or git is missing.
struct ProjectSnapshot {
  std::string head;                           // "" before the first commit
  std::map<std::string, std::string> dirty;   // path -> status, size, mtime
};
std::optional<ProjectSnapshot> SnapshotProject(const std::string& dir);
// Files changed between two snapshots, commits made in between included.
std::vector<std::string> ChangedFiles(const std::string& dir, const ProjectSnapshot& before,
                                      const ProjectSnapshot& after);

// Review mode's part of a boxed session (review_session.cc).
// --review, or review.projects names the project ("*": every one).
bool WantsReview(const policy::Policy& policy, const RunOptions& options,
                 const std::string& project);
// Before the box: prepares the copy (review::Prepare), or says why the
// project cannot have one.
Result<review::Copy> StartReview(const SessionPlan& plan);
// Whether the box works on the project copied into a volume on the engine
// (an engine elsewhere, which cannot mount this machine's overlay), whose
// changes the network mode's copy-back brings into the review copy.
bool ReviewByCopy(const Engine& engine, bool network_mode);
// After the mount points (the overlay): the overlay's volume made, and the
// plan's project bind replaced by it.
Result<void> MountReviewCopy(Engine& engine, SessionPlan& plan, const review::Copy& copy);
// Once the box is gone (and, on an engine elsewhere, its work copied
// back): the volume removed and the branch made; its line for the end, its
// event in the record, an inbox item. A failure is a line too: the copy is
// kept for corral stop.
void EndReview(Engine& engine, const SessionPlan& plan, SessionRecord& record,
               Result<RunOutcome>& outcome);
// corral stop's part: a review copy left by a killed corral brought back;
// its lines ("" when there was none).
std::string FinishReview(Engine& engine, const std::string& session);

// session_started's fields that only the caller knows ("" engine: none).
struct BoxDecision;
nlohmann::json StartedEvent(const SessionPlan& plan, const BoxDecision& box,
                            const std::vector<std::string>& agent_command,
                            const std::string& engine, const std::string& endpoint);

// A session's record from start to end: opens it, writes session_started,
// snapshots the project in the background; End writes session_ended, puts
// each refused host in the inbox once (when nobody is watching at the end)
// and fills the outcome's counts.
class Recorder {
 public:
  static Result<Recorder> Start(const SessionPlan& plan, const RunOptions& options,
                                nlohmann::json started, std::vector<nlohmann::json> before);
  SessionRecord& record() { return *record_; }
  // Nothing changes the project any more: the end's content snapshot starts
  // (corral undo), side by side with the box's removal.
  void ProjectSettled();
  // `watching` is asked at the end, only when a host was refused.
  void End(Result<RunOutcome>& outcome, std::uint64_t refused_while_away,
           const std::function<bool()>& watching);

 private:
  std::shared_ptr<SessionRecord> record_;
  std::string project_, agent_;
  std::chrono::steady_clock::time_point started_;
  std::shared_future<std::optional<ProjectSnapshot>> before_;
  bool review_ = false;  // a review session: no end snapshot (the project is not its)
  std::future<Result<std::string>> after_;  // the end's content snapshot, once started
};

// The oracle's deny list copy as it rewrites it (a config edit), handed on
// while a receiver is set: the network mode's session volume holds a copy too.
class DenyListCopies {
 public:
  void Written(const std::string& text);  // the oracle's; passes it on under the lock
  void SendTo(std::function<void(const std::string&)> receiver);  // nullptr: none
 private:
  std::mutex mu_;
  std::function<void(const std::string&)> receiver_;
};

// The session's host services: the oracle (answers the shim's questions) and
// the proxy (the box's only way out), both on unix sockets in the session
// folder. Private to launcher/.
// The first commands refused while nobody watched, for the session's end line.
class RefusedWhileAway {
 public:
  static constexpr std::size_t kNamed = 3;
  void Add(const policy::InboxItem& item);  // its refused command, else its text
  std::vector<std::string> Named() const;   // the first kNamed, each once

 private:
  mutable std::mutex mu_;
  std::vector<std::string> named_;
};

struct HostServices {
  std::shared_ptr<DenyListCopies> deny_list_copies = std::make_shared<DenyListCopies>();
  std::shared_ptr<RefusedWhileAway> refused_while_away = std::make_shared<RefusedWhileAway>();
  std::unique_ptr<Notifier> notifier;  // outlives the oracle, which feeds it
  std::unique_ptr<policy::Oracle> oracle;
  std::unique_ptr<netfilter::Proxy> proxy;  // null for an unboxed session

  // Stops both; returns the number of commands refused while nobody watched.
  std::uint64_t Stop();
};

// "Is somebody watching?" by the policy's presence sources, each bounded in
// time; a broken source list counts as nobody (with a warning).
std::function<bool()> Watching(const policy::PresencePolicy& presence);
// The plan's forge as the proxy takes it (docs/forge.md).
netfilter::forge::ForgeConfig ForgeConfig(const ForgePlan& plan);

// Where the proxy's logins come from (proxy_logins.cc): their real values
// from corral's own environment, read when the proxy starts and never
// written down; `ca_bundle`, the host's, checks the login hosts upstream.
struct LoginSource {
  std::function<const char*(const char*)> getenv;
  std::string ca_bundle;
};
// The proxy's logins for `plan.logins`, one per stand-in. An error when a
// value is gone or changed length since the plan was made.
Result<std::vector<netfilter::Login>> ProxyLogins(const SessionPlan& plan,
                                                  const LoginSource& source);
// A login file's text; nullopt when it is not there (login_files_host.cc).
std::optional<std::string> ReadLoginFile(const std::string& path);
// A file login's real value, read again as the proxy starts; an error when
// it is gone or changed length since the plan was made.
Result<std::string> FileLoginValue(const BoxLogin& login);
// The proxy's token endpoints for plan.login_files.
std::vector<netfilter::TokenEndpoint> TokenEndpoints(const SessionPlan& plan);
// Writes the tokens a token endpoint gave into the host's login file (made
// when missing), with their expiry or refresh time, replacing it whole.
Result<void> KeepTokens(const LoginFile& file, const netfilter::TokenUpdate& update);
// The CA file the proxy checks login hosts' certificates against:
// network.upstream_ca_file when set, else the host's bundle ("" when none:
// the system's default paths).
std::string UpstreamCaFile(const policy::Policy& policy, const std::string& host_bundle);
// The box's trusted CA bundle in the session folder (kCaBundleFile): the
// host's bundle, then the session CA's certificate. Mode 0644: the box reads it.
Result<void> WriteBoxCaBundle(const SessionPlan& plan, const std::string& host_bundle,
                              const std::string& ca_pem);
// Its text: the host's bundle (a file, "" for none), then the session CA's
// certificate.
std::string BoxCaBundleText(const SessionPlan& plan, const std::string& host_bundle,
                            const std::string& ca_pem);
// The start line about logins: which the proxy holds, which are in the box
// as they are and why; "" when there are none.
std::string LoginsLine(const SessionPlan& plan);

// Starts the oracle, and the proxy when `with_proxy` (holding plan.logins,
// and then writing the box's CA bundle before the box is made). Either
// failing is an error: the session does not start without them.
// Their decisions go to `record`, which must outlive them.
Result<HostServices> StartServices(const policy::Policy& policy,
                                   const policy::LoadOptions& policy_source,
                                   const SessionPlan& plan, bool with_proxy,
                                   SessionRecord& record, const LoginSource& logins = {});

// The session's host side: terminal mode, signals, the watchdog socket, the
// reaper, and the stream pump between this terminal and the box. Private.
// Raw mode on stdin while it lives; the saved mode comes back on every path.
class RawTerminal {
 public:
  RawTerminal();
  ~RawTerminal();
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  std::optional<termios> saved_;
};

// SIGINT, SIGTERM, SIGHUP, SIGWINCH become bytes on a pipe the pump polls.
class SignalPipe {
 public:
  static Result<SignalPipe> Install();
  int fd() const { return read_.get(); }
  int Take();  // the next signal number, 0 when none
  ~SignalPipe();
  SignalPipe(SignalPipe&&) = default;

 private:
  SignalPipe() = default;
  UniqueFd read_, write_;
};

// A listening unix socket in the session folder. The shim (PID 1 of the
// box) connects to it; when this process dies, the kernel closes it and the
// shim ends the box.
Result<UniqueFd> ListenWatchdog(const std::string& session_dir);

// The box's mount points inside the host folders it is given (the project,
// its .git, a worktree's main .git): node_modules/, .venv/, .git/hooks/ when
// the project has none (mount_points.cc). The OCI runtime makes a missing one
// as the box's root (a subordinate uid under rootless Podman, root under
// rootful Docker), which the user cannot write into. So corral makes them as
// the user before the box, and removes those it made once the box is gone,
// when they are still empty.
struct HostMountPoint {
  std::string path;    // on the host
  std::string holder;  // the host folder whose bind holds it: the project, a .git
  bool file = false;   // an empty file, for the bind of a file; else a folder
};
enum class PathKind { kMissing, kFolder, kFile };
PathKind KindOnHost(const std::string& path);  // stat(2), links followed as a bind's are
// Each mount whose target lies inside a bind of a host folder, as the host
// path the runtime would make: the holding bind's source plus the rest of
// the target. `kind_of` says what a bind's source is; one that is missing
// is left to the engine (which refuses the box).
std::vector<HostMountPoint> MountPointsOnHost(
    const std::vector<Mount>& mounts, const std::function<PathKind(const std::string&)>& kind_of);

// What one session made, and a shared lock (flock) on each holder while it
// lives. A session removes what it made only when no other session holds
// that holder: a folder removed on the host is unmounted in every box that
// has it (Linux detaches the mounts on it), and a box whose read-only
// .git/hooks went could write hooks that git on the host runs.
class MountPoints {
 public:
  // Holds the point's holder (waiting a few seconds at most for a session
  // that is removing its own), then makes the point and the folders above
  // it when missing, never through a link.
  Result<void> Make(const HostMountPoint& point);
  bool Holds(const std::string& holder) const { return held_.count(holder) > 0; }
  const std::vector<HostMountPoint>& made() const { return made_; }  // parents first
  // Once the box is gone: lets go of the locks, then RemoveIfEmpty(made()).
  void RemoveMade();

 private:
  Result<void> Hold(const std::string& holder);
  Result<void> MakeMissing(const HostMountPoint& point);
  std::vector<HostMountPoint> made_;
  std::map<std::string, UniqueFd> held_;  // holder → its folder, LOCK_SH
};

// Removes each path, deepest first, when it is still as corral made it (an
// empty folder, or an empty file), and only when no session holds its
// holder (LOCK_EX, not waiting): anything with content stays. Also the
// reaper's, after a SIGKILLed corral's box is gone.
void RemoveIfEmpty(const std::vector<HostMountPoint>& made);

// The session's step, after the session folder is made and before the box:
// MountPointsOnHost of the plan, each made. One that cannot be made is a
// warning (the engine makes it, as before); a holder that cannot be held is
// an error: another session's end could take the box's mounts away.
Result<void> MakeMountPoints(const SessionPlan& plan, MountPoints& points);

// A detached process that removes the container (by name) when this one
// dies without saying it is done: the box goes away even after SIGKILL.
// `then` is sent after, in order (the network mode's sidecar, networks and
// volume: network_mode::TearDownCalls); a 404 counts as done. Once all of
// it is gone, `made` goes too when empty (RemoveIfEmpty).
class Reaper {
 public:
  // `hold_session`, when set: once the box is gone, the session's auto-run
  // files are compared and held (HoldAutorunFiles), unless its copy-back is
  // pending (corral stop does it when the copy lands).
  static Result<Reaper> Start(const Endpoint& endpoint, const std::string& container_name,
                              const std::string& session_dir,
                              const std::vector<ApiCall>& then = {},
                              const std::vector<HostMountPoint>& made = {},
                              const std::string& hold_session = "");
  void Done();  // the session cleaned up itself
  ~Reaper();
  Reaper(Reaper&&) = default;

 private:
  Reaper() = default;
  Keeper keeper_;  // reads 'd' (done) or EOF (corral died)
};

// The end step for the project's auto-run files (launcher/autorun/) of a
// session whose box is gone, with its event in the record and the inbox;
// nothing while the network mode's copy-back is pending (the copy holds the
// box's versions; corral stop holds them when it lands). An empty report
// when there is nothing to compare.
Result<autorun::Report> HoldAutorunFiles(const std::string& session_id);
bool CopyBackPending(const std::string& session_id);
// The same comparison without the record: nothing (not compared) while the
// copy-back is pending.
std::optional<Result<autorun::Report>> CompareAutorunFiles(const std::string& session_id);
// The paths to keep in autorun::TakeSnapshot: the mount points corral makes
// (and removes itself).
std::vector<std::string> MountPointPaths(const SessionPlan& plan);

// Copies stdin to the box and the box's output to stdout/stderr until the
// stream ends. Returns the signal that interrupted it (0 when it ended).
int Pump(RawConnection& stream, bool tty, SignalPipe& signals,
         const std::function<void()>& on_resize);

// corral run --publish (published_ports.cc): listens on each host port
// before the box starts (a port that is taken stops the session), then, once
// the box runs, carries each connection to the box's port through
// `corral-shim forward PORT` run by the engine in the box. Stops on destruction.
class PublishedPorts {
 public:
  static Result<std::unique_ptr<PublishedPorts>> Listen(const std::vector<PublishedPort>& ports);
  // `engine` outlives this object; `shim` is corral-shim's path in the box.
  void Serve(Engine& engine, const std::string& container, const std::string& shim,
             const std::string& user);
  ~PublishedPorts();

 private:
  PublishedPorts() = default;
  void Carry(Engine& engine, const std::string& container, const std::vector<std::string>& forward,
             const std::string& user, UniqueFd client);

  std::vector<std::pair<PublishedPort, UniqueFd>> listeners_;
  UniqueFd stop_;  // an eventfd: readable once stopping
  std::thread accepting_;
  std::mutex mutex_;
  std::vector<std::thread> carrying_;
};
// "published: 127.0.0.1:8080 -> 3000 (...)", or "" for none.
std::string PublishedLine(const std::vector<PublishedPort>& ports);

// The terminal's size, {0,0} when none.
std::pair<unsigned, unsigned> TerminalSize();

// Whether a session is boxed (docs/sessions.md, its first table), and the unboxed session:
// the agent runs on the host as the user, with the shim in front of its
// shell, so the deny list still applies. Private to launcher/.
struct BoxDecision {
  bool boxed = true;
  std::string why;  // one line: "level is always", "nobody is watching", ...
};

// always → boxed; off → unboxed; unattended → boxed when started in the
// background (--headless, no terminal) or when nobody is watching. Decided
// once, at start. `watching` is asked only when it matters.
BoxDecision DecideBox(policy::Level level, bool headless, bool at_terminal,
                      const std::function<bool()>& watching);

// The environment an unboxed agent gets: this one, with the session's shim
// folder first in PATH and named by SHELL and CLAUDE_CODE_SHELL.
std::vector<std::string> UnboxedEnvironment(const std::vector<std::string>& current,
                                            const std::string& session_dir,
                                            const std::string& session_id);

// An unboxed session's folder (0700): bin/ holds the shell names, each a
// link to the host's corral-shell. The oracle's socket goes beside them.
Result<void> PrepareUnboxedSessionDir(const std::string& dir, const std::string& shell);
// corral's runtime folder, which holds the session folders: created 0700,
// or, when it is there, a folder of the user's (tightened to 0700). Without
// XDG_RUNTIME_DIR it is /tmp/corral-UID, which another user could make first.
Result<void> PrepareRuntimeDir(const std::string& dir);

// Runs the agent on the host; the oracle answers its shell commands.
// `held`: HoldEvents of the wait before it, for the record.
Result<RunOutcome> RunUnboxed(const policy::Policy& policy, const PlanInput& input,
                              const RunOptions& options, const std::string& why,
                              std::vector<nlohmann::json> held);

// A name for the box's user in the image's /etc/passwd and /etc/group.
// The box runs as the host's uid:gid; when the image has no line for that
// uid, ssh ("No user exists for uid") and node's os.userInfo() fail. Only
// rootless Podman (keep-id) adds the line itself. Private to launcher/.
// `passwd` with a line for uid:gid added (named corral, or corral<uid> when
// corral is taken), or nullopt when a line already has that uid.
std::optional<std::string> WithPasswdLine(const std::string& passwd, std::uint32_t uid,
                                          std::uint32_t gid, const std::string& home);
// `group` with a line for gid added, or nullopt when one has it.
std::optional<std::string> WithGroupLine(const std::string& group, std::uint32_t gid);

// The contents of the first member of a tar stream when it is a regular
// file; nullopt otherwise.
std::optional<std::string> FirstFileInTar(std::string_view tar);

// A tar holding one folder entry per path (its leading '/' dropped), owned
// by uid:gid with mode 0755, then the end-of-archive blocks. nullopt when a
// path does not fit a ustar header (over 255 bytes) or an id is too large.
std::optional<std::string> OwnedFoldersTar(const std::vector<std::string>& paths,
                                           std::uint32_t uid, std::uint32_t gid,
                                           std::int64_t mtime);

// Docker, uid not 0: Docker makes a new named volume's folder root's (or
// gives it the owner of that path in the image), so the box's user could not
// write to its HOME or node_modules. Gives each volume's folder to uid:gid
// (its contents are left as they are). Podman does this itself. A failure
// is a warning: the box still starts.
Result<void> GiveVolumesToTheBoxUser(Engine& engine, const SessionPlan& plan);

// uid not 0, except under rootless Podman: reads the image's /etc/passwd and /etc/group and, for
// each that lacks the box's user, writes a copy with the line added to the
// session folder and mounts it read-only over the original. A failure to
// read is a warning: the box still starts, as before.
Result<void> NameTheBoxUser(Engine& engine, SessionPlan& plan);

// The network mode's part of a boxed session (network_session.cc), on an
// engine that cannot see this machine, or any engine with
// CORRAL_ENGINE_MODE=network.
bool WantsNetworkMode(const Engine& engine, const std::function<const char*(const char*)>& getenv);

// What `corral run --print` shows: the plan, the mode, the agent's image (when
// it is the recipe's), the engine's rendering (no login's value), the limits.
// `engine` is null when none answered: the OCI rendering then.
std::string PlanPrintout(SessionPlan plan, Engine* engine,
                         const std::function<const char*(const char*)>& getenv, bool agent_image);

}  // namespace corral::launcher
