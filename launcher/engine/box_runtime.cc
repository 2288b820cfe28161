// runtime: gvisor on an engine: whether Docker's daemon has runsc registered
// the way a box needs it (before anything is made, and for corral doctor),
// and which runtime the engine really gave a box it made (after create: an
// engine that ignored the request must not run the box on this machine's
// kernel in its place).
#include <algorithm>

#include "launcher/engine/engine.h"
#include "launcher/engine/expect.h"

namespace corral::launcher {

const char* const kRegisterRunscWithDocker =
    "register it in /etc/docker/daemon.json: \"runtimes\": {\"runsc\": {\"path\": "
    "\"/usr/bin/runsc\", \"runtimeArgs\": [\"--host-uds=open\", \"--oci-seccomp\", \"--network=none\"]}} "
    "(apt-get install runsc), then restart dockerd; or set runtime: default";

namespace {

bool HasArg(const std::vector<std::string>& args, std::initializer_list<const char*> wanted) {
  for (std::string arg : args) {
    if (arg.rfind("--", 0) != 0 && arg.rfind("-", 0) == 0) arg = "-" + arg;  // -flag as --flag
    for (const char* w : wanted) {
      if (arg == w) return true;
    }
  }
  return false;
}

}  // namespace

std::string GvisorProblem(const EngineFacts& facts, bool podman, const std::string& url) {
  if (podman) return "";  // its /info lists no runtimes: the box made is checked instead
  auto runsc = facts.runtimes.find(kGvisorRuntime);
  if (runsc == facts.runtimes.end()) {
    return "runtime gvisor: Docker at " + url + " has no runtime named runsc";
  }
  const std::vector<std::string>& args = runsc->second;
  // The box reaches the proxy and the oracle through unix sockets: in the
  // session folder, or in the network mode's relay volume, where the sidecar
  // (on the engine's kernel) listens. gVisor's kernel opens them only with
  // --host-uds.
  if (!HasArg(args, {"--host-uds=open", "--host-uds=all"})) {
    return "runtime gvisor: Docker's runsc at " + url + " lacks --host-uds=open in its "
           "runtimeArgs, so the box could not reach the session's proxy and oracle (unix "
           "sockets)";
  }
  // A box without a network asks for a new, empty network namespace, which
  // runsc makes only with --network=none ("cannot run with network enabled
  // in root network namespace").
  if (!HasArg(args, {"--network=none"})) {
    return "runtime gvisor: Docker's runsc at " + url + " lacks --network=none in its "
           "runtimeArgs, and runsc will not start a box without a network otherwise";
  }
  if (!HasArg(args, {"--oci-seccomp", "--oci-seccomp=true"})) {
    return "runtime gvisor: Docker's runsc at " + url + " lacks --oci-seccomp in its "
           "runtimeArgs, so the box's seccomp profile would not be applied inside gVisor";
  }
  return "";
}

std::string GvisorNotReady(const EngineFacts& facts, bool podman, const std::string& url) {
  std::string problem = GvisorProblem(facts, podman, url);
  return problem.empty() ? "" : problem + "; " + kRegisterRunscWithDocker;
}

Result<std::string> Engine::BoxRuntime(const std::string& id) {
  if (!podman_) {
    auto box = Inspect(id);
    if (!box) return box.error();
    return box->value("/HostConfig/Runtime"_json_pointer, std::string());
  }
  // Podman's Docker-compatible answer says "oci"; its own names the runtime.
  auto response = Call("GET", "/v4.0.0/libpod/containers/" + id + "/json", "", 10000);
  if (auto ok = Expect(response, "inspect the box " + id); !ok) return ok.error();
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object()) return Error("inspect the box " + id + ": unexpected answer");
  return json.value("OCIRuntime", std::string());
}

}  // namespace corral::launcher
