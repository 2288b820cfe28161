// launcher/engine/: the engine client: HTTP over unix/tcp, finding an engine,
// the embedded rootless Podman, images and build contexts. Private to launcher/.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "launcher/session_plan.h"

// libcurl's easy handle, declared as <curl/curl.h> declares it: only the HTTP
// client's files (engine_http.cc, lazy_curl.cc) include libcurl's header.
typedef void CURL;  // NOLINT(modernize-use-using): the same declaration as curl.h's

namespace corral::launcher {

// HTTP to a container engine over a unix socket, TCP (+TLS) or ssh, with
// libcurl. Private to launcher/.
// TLS for tcp:// (DOCKER_TLS_VERIFY with DOCKER_CERT_PATH's ca.pem, cert.pem
// and key.pem; --engine-tls-ca/-cert/-key, which set CORRAL_ENGINE_TLS_*).
struct TlsSettings {
  bool on = false;
  std::string ca, cert, key;  // "" leaves libcurl's default (CA) or none
};
// ssh://[user@]host[:port][/socket]: with a socket path (Podman's form) the
// far socket is forwarded; without (Docker's), `docker system dial-stdio`
// runs there for each connection. The user's own ssh does it (ssh_tunnel.cc).
struct SshTarget {
  std::string user, host, port;
  std::string socket;    // "" = docker system dial-stdio
  std::string identity;  // a Podman connection's key file (ssh -i), else ""
};
// Where an engine listens: unix:///path, tcp://host:port, ssh://...
struct Endpoint {
  std::string url;          // as given
  std::string socket_path;  // unix; for ssh, the tunnel's local socket once open
  std::string base;         // "http://localhost" or "http(s)://host:port"
  std::string cert, key, ca;
  std::optional<SshTarget> ssh;
  std::string source;       // where it came from: "--engine", "DOCKER_HOST", "default"
};
Result<Endpoint> ParseEndpoint(const std::string& url, const std::string& source,
                               const TlsSettings& tls = {});
// DOCKER_TLS_VERIFY, DOCKER_CERT_PATH (default ~/.docker), CORRAL_ENGINE_TLS_*.
TlsSettings TlsFromEnvironment(const std::function<const char*(const char*)>& getenv,
                               const std::string& home);

// An engine named by a Docker context or a Podman connection (contexts.cc).
struct NamedEndpoint {
  std::string url, source;
  TlsSettings tls;       // the context's own tls/ files
  std::string identity;  // the connection's ssh key
};
// DOCKER_CONTEXT, else config.json's currentContext ($DOCKER_CONFIG or
// ~/.docker); nothing for "default" or none; an error for a name with no meta.
Result<std::optional<NamedEndpoint>> DockerContextEndpoint(
    const std::function<const char*(const char*)>& getenv, const std::string& home);
// CONTAINER_CONNECTION, else [engine] active_service of the last of `files`
// that sets it; its [engine.service_destinations.NAME] uri and identity.
Result<std::optional<NamedEndpoint>> PodmanConnectionEndpoint(
    const std::function<const char*(const char*)>& getenv, const std::vector<std::string>& files);
// $CONTAINERS_CONF alone, else the system's, /etc's and the user's, in that order.
std::vector<std::string> ContainersConfFiles(const std::function<const char*(const char*)>& getenv,
                                             const std::string& home);

struct CurlDeleter {
  void operator()(CURL* curl) const;  // curl_easy_cleanup
};
using CurlHandle = std::unique_ptr<CURL, CurlDeleter>;

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names in lower case
};

// One request; JSON bodies go with Content-Type: application/json.
Result<HttpResponse> HttpRequest(const Endpoint& endpoint, const std::string& method,
                                 const std::string& path, const std::string& body = "",
                                 long timeout_ms = 0,
                                 const std::string& content_type = "application/json");

// A POST whose body is read from `body_fd` until EOF (sent chunked), and
// whose answer is handed to `on_line` a line at a time as it arrives (the
// JSON lines of a build). The whole body is kept in the response too.
Result<HttpResponse> HttpStreamLines(const Endpoint& endpoint, const std::string& path,
                                     int body_fd, const std::string& content_type,
                                     const std::function<void(std::string_view)>& on_line);

// A hijacked connection: the request is written raw, the response headers
// read, and the socket then carries the stream both ways (attach), or the
// late body (Docker's wait). Bytes that came with the headers are kept.
class RawConnection {
 public:
  // `body` goes as JSON (an exec's start takes one); "" sends none.
  static Result<RawConnection> Open(const Endpoint& endpoint, const std::string& method,
                                    const std::string& path, bool upgrade,
                                    const std::string& body = "");
  // A plain connected socket, without HTTP or TLS (tests of a stream's user).
  static RawConnection Adopt(int fd);
  long status() const { return status_; }
  int fd() const { return fd_; }
  // Sends all of `data`; false when the connection is gone.
  bool Send(const char* data, std::size_t size);
  // Bytes kept from the header read first, then from the socket. 0 on EOF,
  // -1 on error, -2 when nothing is there yet (non-blocking).
  long Recv(char* buffer, std::size_t size);
  void WaitReadable(int timeout_ms);
  // Half-closes the writing side (stdin ended), for plain sockets.
  void CloseWrite();

 private:
  CurlHandle curl_;  // none for an adopted socket
  int fd_ = -1;
  UniqueFd adopted_;
  long status_ = 0;
  std::string pending_;
};

// A container engine reached through its HTTP API: Docker, or Podman (found
// by the Libpod-Api-Version header of /_ping). Private to launcher/.
// --engine, then the policy's `engine` (CORRAL_ENGINE), DOCKER_HOST,
// CONTAINER_HOST; when none is named, the usual sockets in turn.
// CORRAL_ENGINE_SOCKETS (colon-separated) replaces the usual sockets.
struct EngineChoice {
  std::vector<Endpoint> candidates;
  bool named = false;  // the user named one: no other is tried
  // When set, none was named and none answers, but podman is installed:
  // a private `podman system service` in this folder serves the session.
  std::string embed_dir;
  // The session folder: when corral dies, the private service stops once
  // the reaper has removed it (its last step), within a minute.
  std::string session_dir;
  // How long an engine that is starting (connected, no answer yet) is
  // waited for; `corral doctor` waits 0 s, so a silent socket is reported
  // after the ping's own 2 s instead of holding the check for a minute.
  int starting_wait_seconds = 60;
  // Ask /info even where it takes seconds (a root-owned Podman socket), for
  // `corral doctor`'s runtime line; a session does without those facts there.
  bool all_facts = false;
  void EmbedFor(const std::string& session_folder) {
    session_dir = session_folder;
    embed_dir = session_folder + "-engine";  // beside it: never inside the box
  }
};
// What to do when no engine answers (the end of Connect's error).
inline constexpr const char* kNoEngineFix =
    "Start Docker or Podman (systemctl start docker, or podman system service), install podman "
    "(corral then starts one for each session), or name one with --engine unix:///path/to/socket";
Result<EngineChoice> ChooseEndpoints(const std::string& flag, const std::string& configured,
                                     const std::function<const char*(const char*)>& getenv);

class EmbeddedPodman;

// unseen_files.cc: the path of a bind mount's source an engine says it does
// not have (Docker's "bind source path does not exist: P", Podman's "statfs
// P: no such file or directory"); "" for any other message.
std::string MissingBindSource(std::string_view engine_message);
// One line for a create the engine refused so, when `here` says this machine
// has the path: the engine cannot see this machine's files, and
// CORRAL_ENGINE_MODE=network is the way. "" otherwise.
std::string CannotSeeFilesLine(const std::string& url, std::string_view engine_message,
                               const std::function<bool(const std::string&)>& here);
bool PathHere(const std::string& path);  // stat(2) finds it

// The local end of an ssh:// engine (ssh_tunnel.cc): a unix socket in a
// folder of corral's runtime folder, served through the user's own ssh
// until this object goes or corral dies. An error carries ssh's own line
// ("Permission denied (publickey)", "Host key verification failed.").
class SshTunnel {
 public:
  // When corral dies, the tunnel stays until `session_dir` is gone (the
  // reaper removes the box through it first), at most a minute.
  static Result<std::shared_ptr<SshTunnel>> Open(const Endpoint& endpoint,
                                                 const std::string& session_dir);
  const std::string& socket() const { return socket_; }
  std::string LastWords() const;  // ssh's last line on stderr, "" when none
  ~SshTunnel();  // ends every ssh and removes the folder

  SshTunnel(const SshTunnel&) = delete;
  SshTunnel& operator=(const SshTunnel&) = delete;

 private:
  SshTunnel() = default;
  std::string dir_, socket_;
  Keeper keeper_;  // reads 'd' (stop now) or EOF (corral died)
};

// One member of a tar stream (tar.cc, tar_read.cc); paths without their leading '/'.
struct TarEntry {
  // kOther: a device, fifo or anything else ReadTar met (never written).
  enum Kind { kFolder, kFile, kSymlink, kHardlink, kOther } kind = kFile;
  std::string path;
  std::string content;  // a file's bytes; a link's target (a hard link's: a path in the tar)
  unsigned mode = 0644;
  std::uint32_t uid = 0, gid = 0;
  std::int64_t mtime = -1;  // WriteTar: -1 takes the stream's mtime
};
// A ustar stream of `entries` and the end-of-archive blocks; a path or link
// target too long for ustar goes in a pax header. nullopt for a kOther entry,
// an empty path, or a number too large for its field.
std::optional<std::string> WriteTar(const std::vector<TarEntry>& entries, std::int64_t mtime);
// The members of a tar stream as the engines and GNU tar write it (ustar,
// GNU long names, pax path/linkpath/size/mtime/uid/gid), paths as written;
// an error for a wrong checksum or a member longer than the stream.
Result<std::vector<TarEntry>> ReadTar(std::string_view tar);

// One engine API call as it is sent (engine_network.cc): the shapes are pure
// so the unit tests can read them; the Engine methods below send them.
struct ApiCall {
  std::string method, path;  // path without the /vX.Y prefix
  nlohmann::json body;       // null: no body
};
ApiCall CreateNetworkCall(const std::string& name, bool internal,
                          const std::map<std::string, std::string>& labels);
ApiCall ConnectNetworkCall(const std::string& network, const std::string& container,
                           const std::vector<std::string>& aliases);
ApiCall RemoveNetworkCall(const std::string& name);
// `driver_opts`: the local driver's mount (type, device, o), none for a plain volume.
ApiCall CreateVolumeCall(const std::string& name,
                         const std::map<std::string, std::string>& labels,
                         const std::map<std::string, std::string>& driver_opts = {});
ApiCall RemoveVolumeCall(const std::string& name);
// The tar goes as the body, application/x-tar; unpacked at `path` (a folder).
ApiCall PutArchiveCall(const std::string& container, const std::string& path);
// An exec's settings: its user; with a terminal (`tty`: the output comes
// as it is) or without (stdout, and stderr when `errors`, in frames:
// TakeFrames); `env` (NAME=VALUE) added to the container's. Stdin attached.
struct ExecOptions {
  std::string user;
  bool tty = false;
  bool errors = false;
  std::vector<std::string> env;
};
ApiCall CreateExecCall(const std::string& container, const std::vector<std::string>& command,
                       const ExecOptions& options);
// The frames of a stream without a TTY (attach, exec, logs): 8-byte headers
// {stream, 0, 0, 0, size (BE32)}. Whole frames are taken from the front of
// `buffer`, each handed to `on_frame` (1 stdout, 2 stderr); a partial frame
// is left for the next call.
void TakeFrames(std::string& buffer,
                const std::function<void(int stream, std::string_view data)>& on_frame);
// The answer is a tar of `path` (a folder comes as its own name, then its contents).
ApiCall GetArchiveCall(const std::string& container, const std::string& path);
// GET /volumes filtered by one label ("key" or "key=value").
ApiCall ListVolumesCall(const std::string& label);

// GET /volumes whose name has `part` (the engines match it anywhere in the
// name: the caller checks the names it gets).
ApiCall ListVolumesNamedCall(const std::string& part);
ApiCall RemoveUnusedVolumeCall(const std::string& name);
enum class VolumeRemoval { kRemoved, kMissing, kInUse };

// What a build may set beyond its context.
struct BuildOptions {
  std::map<std::string, std::string> args;  // ARG values (--build-arg)
  // The RUN steps on the host's network: an engine whose default network is
  // none (dockerd --bridge none) would give them no network at all.
  bool host_network = false;
};

// Who the engine says it is (remote.cc), to tell this machine from another.
struct EngineHost {
  std::string hostname, kernel, root_dir;  // "" when it did not say
};
EngineHost HostFromInfo(const nlohmann::json& info, bool podman);
EngineHost ThisHost();  // uname's node name and release
// Whether an engine is on another machine, and why, in a few words.
struct Locality {
  bool remote = false;
  std::string why;
};
// Another host name or kernel, or a data root missing here, is another
// machine; an engine that says nothing is taken as remote (fail closed).
Locality JudgeLocality(const EngineHost& engine, const EngineHost& here,
                       const std::function<bool(const std::string&)>& exists);
// Local when the kernel says dockerd or podman in this mount namespace
// serves the socket (SO_PEERCRED); nullopt when it cannot say (a forwarder,
// another namespace, no permission): then the engine's word decides.
std::optional<Locality> SocketServedHere(const std::string& socket_path);

// What an engine's /info says about the boxes it can make (rootless.cc).
struct EngineFacts {
  bool rootless = false;    // the engine runs without root
  int cgroup_version = 0;   // 1 or 2; 0 when it did not say
  // The cgroup controllers it can set for a box ("pids", "memory", "cpu");
  // nullopt when it did not say (then every limit is taken as held).
  std::optional<std::vector<std::string>> controllers;
  std::string runtime;          // "runc", "crun"; "" when it did not say
  std::optional<bool> seccomp;  // whether it applies seccomp profiles; nullopt: not said
  // Docker: the runtimes registered with the daemon, each with its
  // runtimeArgs (runtime: gvisor needs runsc); Podman's /info lists none.
  std::map<std::string, std::vector<std::string>> runtimes;
  EngineHost host;
};
// runtime: gvisor (engine/box_runtime.cc): "" when Docker's runsc is
// registered as a box needs it (--host-uds=open: the session's unix sockets,
// in the session folder or the network mode's relay volume; --network=none;
// --oci-seccomp, its profile), else the problem and how to register it.
// Podman's is checked on the box made (Engine::BoxRuntime).
std::string GvisorNotReady(const EngineFacts& facts, bool podman, const std::string& url);
// Its problem alone, and the fix it adds (for corral doctor's two lines).
std::string GvisorProblem(const EngineFacts& facts, bool podman, const std::string& url);
extern const char* const kRegisterRunscWithDocker;
EngineFacts PodmanFacts(const nlohmann::json& info);  // GET /libpod/info
EngineFacts DockerFacts(const nlohmann::json& info);  // GET /info

class Engine {
 public:
  // The first candidate that answers; an error naming each one tried and
  // how to fix it, within about 5 s when nothing answers at all.
  // Waits up to 60 s for one that is starting (connected, no answer yet, or
  // 5xx), saying so once. Falls back to a private Podman (EngineChoice).
  static Result<Engine> Connect(const EngineChoice& choice);

  bool podman() const { return podman_; }
  bool rootless() const { return facts_.rootless; }
  const EngineFacts& facts() const { return facts_; }
  std::string name() const { return name_; }  // "docker 20.10.24", "podman 4.3.1"
  const Endpoint& endpoint() const { return endpoint_; }
  // On another machine (remote.cc): its boxes cannot see this machine's folders.
  bool remote() const { return locality_.remote; }
  const std::string& remote_why() const { return locality_.why; }  // "it runs on host 'b', ..."
  std::string ModeLine() const;  // for --print: "mode: local box (...)" or "mode: network (...)"

  Result<bool> ImageExists(const std::string& image);
  Result<void> Pull(const std::string& image);
  // POST /build of the tar read from `context_tar`, tagged `tag`; each JSON
  // message of the answer goes to `on_message` as it arrives. An error
  // message in the stream is the error.
  Result<void> Build(int context_tar, const std::string& tag,
                     const std::function<void(const nlohmann::json&)>& on_message,
                     const BuildOptions& options = {});
  // A root filesystem tarball read from `tar` as the image `tag` (Docker's
  // images/create?fromSrc=-, libpod's images/import) (engine_images.cc).
  Result<void> Import(int tar, const std::string& tag);
  // GET /images/json: every image, with its RepoTags.
  Result<nlohmann::json> ListImages();
  // Removes one tag (the image goes with its last tag); false when there was none.
  Result<bool> RemoveImage(const std::string& image);
  // The tar the engine gives for each of `paths` in `image` (through one
  // container created and removed without starting), or nullopt for a path
  // the image does not have.
  Result<std::vector<std::optional<std::string>>> ImageFiles(const std::string& image,
                                                             const std::vector<std::string>& paths);
  // Unpacks `tar` at / in a container that has the plan's volumes mounted
  // (created from the plan's image and removed without starting): Docker
  // applies each folder entry's owner and mode to the folder it names.
  Result<void> UnpackIntoVolumes(const SessionPlan& plan, const std::string& tar);
  // A named volume's CreatedAt, or nullopt when there is no such volume.
  Result<std::optional<std::string>> VolumeCreatedAt(const std::string& name);
  Result<std::string> Create(const SessionPlan& plan);  // the container id
  Result<void> Start(const std::string& id);
  Result<RawConnection> Attach(const std::string& id);
  Result<RawConnection> OpenWaitNextExit(const std::string& id);  // Docker, before start
  Result<int> Wait(const std::string& id);  // after start
  Result<void> Resize(const std::string& id, unsigned rows, unsigned cols);
  Result<void> Kill(const std::string& id, const std::string& signal);
  Result<void> Remove(const std::string& id);
  Result<nlohmann::json> ListByLabel(const std::string& label, bool all);
  // GET /containers/ID/json: the container as the engine describes it.
  Result<nlohmann::json> Inspect(const std::string& id);
  // The OCI runtime the engine gave a box it made ("runsc", "runc"; "" when
  // it does not say): Docker's HostConfig.Runtime, Podman's OCIRuntime.
  Result<std::string> BoxRuntime(const std::string& id);

  // The network mode's pieces (engine_network.cc). Removing what is not
  // there is not an error: the reaper and `corral stop` may be first.
  Result<void> CreateNetwork(const std::string& name, bool internal,
                             const std::map<std::string, std::string>& labels);
  Result<void> ConnectNetwork(const std::string& network, const std::string& container,
                              const std::vector<std::string>& aliases);
  Result<void> RemoveNetwork(const std::string& name);
  // Returns where the volume's files are on the engine's own host.
  Result<std::string> CreateVolume(const std::string& name,
                                   const std::map<std::string, std::string>& labels,
                                   const std::map<std::string, std::string>& driver_opts = {});
  Result<void> RemoveVolume(const std::string& name);
  // timeout_ms 0: no limit beyond the connection's (a project can be large).
  Result<void> PutArchive(const std::string& container, const std::string& path,
                          const std::string& tar, long timeout_ms = 60000);
  // `command` run in a running container as `user`, its stdin and stdout
  // one hijacked stream (stdout framed, see TakeFrames); it ends with the
  // connection, and the command's stdin with it.
  Result<RawConnection> ExecStream(const std::string& container,
                                   const std::vector<std::string>& command,
                                   const std::string& user);
  // An exec started with its stream attached (engine_exec.cc), and its id
  // for ResizeExec and ExecExitCode.
  struct StartedExec {
    std::string id;
    RawConnection stream;
  };
  Result<StartedExec> StartExec(const std::string& container,
                                const std::vector<std::string>& command,
                                const ExecOptions& options);
  Result<void> ResizeExec(const std::string& id, unsigned rows, unsigned cols);
  // Its exit status once it has ended; nullopt while it runs.
  Result<std::optional<int>> ExecExitCode(const std::string& id);
  // What a container wrote so far, stdout and stderr (demultiplexed).
  Result<std::string> Logs(const std::string& container, bool out, bool err);
  // Where a named volume's files are on the engine's own host.
  Result<std::string> VolumeMountpoint(const std::string& name);
  // The tar of `path` in the container (its volumes too, started or not).
  Result<std::string> GetArchive(const std::string& container, const std::string& path);
  // The volumes with `label` ("key" or "key=value"): each with Name and Labels.
  Result<nlohmann::json> ListVolumes(const std::string& label);
  // Volumes by a part of their name, each with Name (engine_volumes.cc).
  Result<nlohmann::json> ListVolumesNamed(const std::string& part);
  // Removed when no container (running or not) uses it.
  Result<VolumeRemoval> RemoveUnusedVolume(const std::string& name);
  // POST /containers/create?name=NAME of a Docker-shaped body (both engines
  // take it), for the sidecar and helper containers; the id.
  Result<std::string> CreateContainer(const nlohmann::json& body, const std::string& name,
                                      const std::string& what);

 private:
  Result<HttpResponse> Call(const std::string& method, const std::string& path,
                            const std::string& body = "", long timeout_ms = 0);
  // Creates a container that is never started (to read or write its files);
  // its id. `what` names the step in an error.
  Result<std::string> CreateUnstarted(const nlohmann::json& body, const std::string& what);
  static Result<std::optional<Engine>> Ping(const Endpoint& endpoint, const EngineChoice& choice,
                                            std::string& tried);
  Endpoint endpoint_;
  std::string api_;  // "/v1.41"
  bool podman_ = false;
  EngineFacts facts_;  // rootless Podman: the box runs with keep-id
  std::string name_;
  std::shared_ptr<EmbeddedPodman> embedded_;  // stops with the last copy
  std::shared_ptr<SshTunnel> tunnel_;         // ssh:// engines; ends with the last copy
  Locality locality_;
};

// The body of the create call: Docker's, or libpod's for Podman, where a
// rootless engine keeps the user's id in the box (userns keep-id).
nlohmann::json CreateBody(const SessionPlan& plan, bool podman, bool rootless);

// The image on the engine: there already, built from `build_context` (a
// folder with a Dockerfile) when one is given, else pulled; an error saying
// what to do. A build shows its progress on stderr.
Result<void> EnsureImage(Engine& engine, const std::string& image,
                         const std::string& build_context = "");

// Engine::Build with its progress on stderr (one redrawn line on a terminal,
// a line per step otherwise) and, when it fails, the build's last lines.
Result<void> BuildShowingProgress(Engine& engine, int context_tar, const std::string& tag,
                                  const BuildOptions& options = {});

// The exit status from Docker's wait body ({"StatusCode": N}).
Result<int> ReadWaitBody(RawConnection& connection);

// A private `podman system service` for one session: started when no engine
// answers but podman is installed, stopped when the session ends. Private to
// launcher/.
class EmbeddedPodman {
 public:
  // Starts `podman system service` on unix://DIR/podman.sock (CONTAINERS_CONF
  // and the rest of the environment pass through), says so in one line, and
  // waits until it answers (bounded). A keeper process owns it: it stops the
  // service when this object goes, or when corral dies, once `session_dir`
  // is gone (the reaper removes it after the box), within a minute.
  static Result<std::shared_ptr<EmbeddedPodman>> Start(const std::string& podman,
                                                       const std::string& dir,
                                                       const std::string& session_dir,
                                                       const std::string& tried);
  const Endpoint& endpoint() const { return endpoint_; }
  ~EmbeddedPodman();  // stops the service and waits for it

  EmbeddedPodman(const EmbeddedPodman&) = delete;
  EmbeddedPodman& operator=(const EmbeddedPodman&) = delete;

 private:
  EmbeddedPodman() = default;
  Endpoint endpoint_;
  std::string dir_;
  Keeper keeper_;  // reads 'd' (stop now) or EOF (corral died)
};

// What `corral run --build DIR` sends to the engine: the folder, less what
// its .dockerignore (or .containerignore) excludes, as the docker CLI does.
// The engine's API takes the context as it is given, so without this a
// .env or node_modules would be sent and could be copied into the image.
// Private to launcher/.
// The patterns of an ignore file, read as Docker reads them: each line
// trimmed, '#' lines and blank lines skipped, '!' marks an exception, a
// pattern cleaned like a path with its leading '/' dropped. The glob is Go's
// filepath.Match ('*' and '?' stop at '/', [...] classes negated by '^', '\'
// escapes) plus '**', which matches any number of folders. A pattern
// excludes a path when it matches the path or one of its parent folders; the
// last pattern that matches decides.
class IgnoreRules {
 public:
  static Result<IgnoreRules> Parse(std::string_view text);

  // `path` is relative to the context's root, '/'-separated, without "./".
  bool Excludes(std::string_view path) const;
  bool has_exceptions() const { return has_exceptions_; }

 private:
  struct Token {
    enum Kind : unsigned char {
      kChar,        // one byte, as written
      kStar,        // *: any bytes but '/'
      kQuestion,    // ?: one byte but '/'
      kClass,       // [a-z...] or [^...]: `ranges` holds lo,hi pairs
      kAnyFolders,  // ** (and **/): nothing, or anything ending in '/'
      kAnything,    // ** at the end: anything at all
    } kind;
    explicit Token(Kind k, char byte = 0) : kind(k), c(byte) {}
    char c = 0;
    bool negated = false;
    std::string ranges;
  };
  struct Rule {
    std::vector<Token> tokens;
    bool exception = false;
  };
  static Result<Rule> Compile(std::string_view pattern, bool exception);
  static bool Matches(const Rule& rule, std::string_view path);

  std::vector<Rule> rules_;
  bool has_exceptions_ = false;
};

// The entries of `dir` to pack, as "./relative/path" (folders included, the
// root first as "."), or an empty list when the folder has no ignore file
// (then all of it is packed). The Dockerfile and the ignore file itself are
// always sent: the engine needs them.
Result<std::vector<std::string>> ContextEntries(const std::string& dir);

// Rootless engines (rootless.cc): which of the plan's limits the engine
// cannot hold, and why (one reason for all).
struct LimitsVerdict {
  Limits held;  // the limits asked for that the engine can set; the others 0
  std::vector<std::string> not_in_force;  // "memory 4096 MiB", "pids 1024"
  std::string why;
  // Rootless Podman without a pids cgroup: the box's own user namespace
  // (keep-id) makes RLIMIT_NPROC count only the box's processes (Linux
  // 5.14 and later), so the pids limit is held by it instead.
  bool pids_by_nproc = false;
};
LimitsVerdict JudgeLimits(const Limits& limits, const EngineFacts& facts, bool podman);
// The limits not in force are not asked for (the engine would drop them with
// a warning of its own); pids_by_nproc lowers the box's nproc to the limit.
void ApplyVerdict(SessionPlan& plan, const LimitsVerdict& verdict);
// For the start line: what is not in force and why, and what holds instead;
// "" when every limit asked for is in force.
std::string LimitsLine(const Limits& wanted, const LimitsVerdict& verdict);

// The host's setup for rootless engines, named on the start line of a
// rootless session and by `corral run --print` and `corral doctor`.
enum class IdMapTool { kMissing, kUnprivileged, kInstalled };
struct RootlessHost {
  std::string user;
  std::vector<std::string> subuids, subgids;  // "100000-165535"
  IdMapTool newuidmap = IdMapTool::kMissing, newgidmap = IdMapTool::kMissing;
  int cgroup_version = 0;  // of /sys/fs/cgroup: 2 when it is cgroup2, else 1
};
RootlessHost ReadRootlessHost();
// The user's ranges in an /etc/subuid or /etc/subgid text (by name or uid).
std::vector<std::string> SubordinateRanges(const std::string& file_text, const std::string& user,
                                           unsigned uid);
std::string DescribeRootlessHost(const RootlessHost& host);

}  // namespace corral::launcher
