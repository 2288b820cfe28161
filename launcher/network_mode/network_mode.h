// launcher/network_mode/: a boxed session on an engine that cannot see this
// machine's folders or sockets (docs/network-mode.md). Everything the box
// needs is made through the engine's API: an internal network for the agent,
// a proxy sidecar that is also on a network with a way out, and a session
// volume filled by PUT archive instead of the host's session folder.
// Private to launcher/.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/engine/engine.h"
#include "launcher/launcher.h"

namespace corral::launcher::network_mode {

// The name the agent's network gives the sidecar: HTTP(S)_PROXY names it.
inline constexpr const char* kProxyAlias = "corral-proxy";
inline constexpr int kProxyPort = 3128;
inline constexpr const char* kLabelPart = "corral.part";  // "proxy", "filler", ...
// In the session volume: a folder the sidecar (uid 65534) may write, for the
// oracle relay's socket (not built yet: docs/network-mode.md); oracle.sock
// in the volume links there.
inline constexpr const char* kRelayFolder = "relay";
inline constexpr std::uint32_t kSidecarUid = 65534;

// The names of one session's objects on the engine, all labelled with the
// session, so `corral stop`, the reaper and a later sweep find them.
struct Layout {
  std::string session_id;
  std::string inside_network;                 // internal: no route out; the agent and the sidecar
  std::string outside_network;                // a way out; the sidecar only
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
// seccomp.json, deny-list, passwd, group), ca.crt, and relay/ for the sidecar.
// Root's and read-only, except relay/. nullopt when a header cannot hold it.
std::optional<std::string> SessionVolumeTar(const SessionFiles& files, std::int64_t mtime);

// The filler: the session volume at /run/corral in a container that is
// created from `image` and never started; the tar is PUT at /run/corral.
nlohmann::json FillerBody(const Layout& layout, const std::string& image);
// The sidecar: `corral proxy` with the session's list on 0.0.0.0:3128, from
// the corral image, on the inside network with the alias corral-proxy
// (connected to the outside network before it starts), locked down as a box.
nlohmann::json SidecarBody(const SessionPlan& plan, const Layout& layout, const std::string& image);

// Whether the engine sees a host path as it is here (a CI runner's shared
// build folder). Only the project may be bind-mounted; see AgentPlan.
using Visible = std::function<bool(const std::string& host_path)>;
// The agent's plan in this mode: on the inside network only; the session
// folder's bind mount becomes the session volume (read-only); a masked file
// becomes a masked path, a masked or read-only-empty folder a read-only
// tmpfs; the proxy variables name `proxy_url` (BringUp's: the sidecar). The passwd and group copies
// cannot be bind-mounted from a volume on Docker 20.10 (no subpath): left
// out with a note. Any other host bind mount the engine cannot see is an
// error naming it (copying the project in is not built yet).
Result<SessionPlan> AgentPlan(const SessionPlan& plan, const Layout& layout,
                              const std::string& proxy_url, const Visible& visible);

// Makes the networks, the session volume (filled), and the sidecar, started
// and on both networks; the proxy's URL by the sidecar's inside address
// ("http://10.89.1.2:3128"). On an error what was made is removed again.
Result<std::string> BringUp(Engine& engine, const SessionPlan& plan, const Layout& layout,
                     const SessionFiles& files, const std::string& corral_image);
// Removes the sidecar, the filler, the networks and the volume, each step
// whatever the others did; the first error, with the rest still tried.
Result<void> TearDown(Engine& engine, const Layout& layout);
// The same as API calls (containers first), for the reaper, which runs
// after corral is gone and can only send requests.
std::vector<ApiCall> TearDownCalls(const Layout& layout);

// The sidecar's half of the oracle channel (`corral relay`): listens on
// `socket_path` (mode 0666: the agent's uid connects); each connection's one
// request line goes out on `out` as {"id":N,"request":...}; the line
// {"id":N,"answer":...} read from `in` answers it. Returns when `in` ends,
// with the socket removed, so the shim's fallback takes over.
Result<void> RunRelay(const std::string& socket_path, int in, int out);

}  // namespace corral::launcher::network_mode

// The commands' entry points (launcher/cli/).
namespace corral::launcher {

// `corral network-mode up|down` (hidden): one session's network-mode
// objects made or removed on an engine, without an agent, so the tests can
// prove the pieces on any engine until a session uses them
// (docs/network-mode.md). `up` prints the objects' names as JSON.
struct NetworkModeTrialOptions {
  std::string engine;      // --engine, else the usual discovery
  std::string action;      // "up" or "down"
  std::string session_id;  // 12 hex digits
  std::string corral_image;
  std::string shim_path, shell_path;
  std::vector<std::string> allow;  // the proxy's list
  // up --hold: after `on_up` is given the names, wait for stdin to end, then
  // tear down; a reaper removes everything if this process is killed first.
  bool hold = false;
  std::function<void(const std::string&)> on_up;
};
Result<std::string> NetworkModeTrial(const policy::Policy& policy,
                                     const NetworkModeTrialOptions& options);

// `corral relay --listen PATH` (hidden), in the network mode's sidecar: the
// shim's questions on PATH go out on stdout, the answers come in on stdin
// (docs/network-mode.md, "The oracle channel"). Returns when stdin ends.
Result<void> RunOracleRelay(const std::string& socket_path);

}  // namespace corral::launcher
