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
#include "launcher/launcher.h"

namespace corral::launcher::network_mode {

inline constexpr const char* kLabelPart = "corral.part";  // "proxy", "filler", ...
// In the session volume: the folder the sidecar (uid 65534) writes its
// sockets in; oracle.sock, proxy.sock and watchdog.sock in the volume link
// there, so the shim and corral-shell use the paths they use locally.
inline constexpr const char* kRelayFolder = "relay";
inline constexpr std::uint32_t kSidecarUid = 65534;
// The relay's first line on its stdout: its sockets listen.
inline constexpr const char* kRelayReady = "{\"ready\":true}";

// The names of one session's objects on the engine, all labelled with the
// session, so `corral stop`, the reaper and a later sweep find them.
struct Layout {
  std::string session_id;
  std::string network;                        // the sidecar's way out; the agent has none
  std::string session_volume;                 // what the session folder holds on a local engine
  std::string sidecar;                        // the proxy's container
  std::string filler;                         // a container never started, to PUT the files into
  std::map<std::string, std::string> labels;  // corral.session=ID
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
};
// The CA bundle in the session volume; SSL_CERT_FILE and the others name it.
inline constexpr const char* kCaFile = "ca.crt";
// The session volume's contents as a tar, laid out as the session folder is
// (bin/ with the shell names linked to corral-shell, empty, emptydir/,
// seccomp.json, deny-list, passwd, group, the sockets linked into relay/),
// ca.crt, and relay/ for the sidecar.
// Root's and read-only, except relay/. nullopt when a header cannot hold it.
std::optional<std::string> SessionVolumeTar(const SessionFiles& files, std::int64_t mtime);

// The filler: the session volume at /run/corral in a container that is
// created from `image` and never started; the tar is PUT at /run/corral.
nlohmann::json FillerBody(const Layout& layout, const std::string& image);
// The sidecar: `corral proxy` with the session's list on relay/proxy.sock,
// from the corral image, on the session's network, locked down as a box.
nlohmann::json SidecarBody(const SessionPlan& plan, const Layout& layout, const std::string& image);
// The relay's command in the sidecar (an exec whose stdin and stdout are
// corral's stream): the oracle's and the watchdog's sockets in relay/.
std::vector<std::string> RelayCommand();

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

// Makes the network, the session volume (filled) and the sidecar, started.
// Returns the volume's folder on the engine's host (its Mountpoint).
// On an error what was made is removed again.
Result<std::string> BringUp(Engine& engine, const SessionPlan& plan, const Layout& layout,
                            const SessionFiles& files, const std::string& corral_image);
// Removes the sidecar, the filler, the networks and the volume, each step
// whatever the others did; the first error, with the rest still tried.
Result<void> TearDown(Engine& engine, const Layout& layout);
// The same as API calls (containers first), for the reaper, which runs
// after corral is gone and can only send requests.
std::vector<ApiCall> TearDownCalls(const Layout& layout);

// The sidecar's half of the oracle channel (`corral relay`): listens on
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
  // Returns once the relay said it listens (the box may start).
  static Result<std::unique_ptr<OracleChannel>> Open(Engine& engine, const Layout& layout,
                                                     const std::string& oracle_socket);
  ~OracleChannel();  // ends the stream: the relay goes, and with it the box's watchdog
  OracleChannel(const OracleChannel&) = delete;
  OracleChannel& operator=(const OracleChannel&) = delete;
  std::uint64_t questions() const;

 private:
  OracleChannel() = default;
  // Stdout lines of the relay from the stream; false when it ended.
  bool ReadLines(const std::function<void(const std::string&)>& on_line, int timeout_ms);
  void Loop();
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

}  // namespace corral::launcher::network_mode

// The commands' entry points (launcher/cli/).
namespace corral::launcher {

// `corral relay --listen PATH` (hidden), in the network mode's sidecar: the
// shim's questions on PATH go out on stdout, the answers come in on stdin
// (docs/network-mode.md, "The oracle channel"). Returns when stdin ends.
Result<void> RunOracleRelay(const std::string& socket_path, const std::string& watchdog_path);

}  // namespace corral::launcher
