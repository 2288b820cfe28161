// `corral network-mode up|down`: the pieces without a session (launcher.h).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <errno.h>
#include <unistd.h>

#include "launcher/network_mode/network_mode.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

Result<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool IsSessionId(const std::string& id) {
  return id.size() == 12 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

Result<std::string> NetworkModeTrial(const policy::Policy& policy,
                                     const NetworkModeTrialOptions& options) {
  if (!IsSessionId(options.session_id)) {
    return Error("the session id must be 12 hex digits, not '" + options.session_id + "'");
  }
  auto choice =
      ChooseEndpoints(options.engine, policy.engine, [](const char* n) { return std::getenv(n); });
  if (!choice) return choice.error();
  auto engine = Engine::Connect(*choice);
  if (!engine) return engine.error();
  network_mode::Layout layout = network_mode::LayoutFor(options.session_id);
  if (options.action == "down") {
    if (auto ok = network_mode::TearDown(*engine, layout); !ok) return ok.error();
    return std::string();
  }
  if (options.action != "up") return Error("network-mode: say up or down");
  network_mode::SessionFiles files;
  auto shim = ReadWhole(options.shim_path);
  auto shell = ReadWhole(options.shell_path);
  if (!shim) return shim.error();
  if (!shell) return shell.error();
  files.shim = std::move(*shim);
  files.shell = std::move(*shell);
  files.seccomp = "{}\n";
  files.deny_list = "# corral: the deny list of this session (the shim's fallback)\n";
  for (const std::string& entry : policy.deny_unattended) files.deny_list += entry + "\n";
  SessionPlan plan;
  plan.session_id = options.session_id;
  plan.allowed_domains = options.allow;
  // The reaper first, so a kill during the bring-up leaves nothing either.
  std::optional<Reaper> reaper;
  if (options.hold) {
    auto started =
        Reaper::Start(engine->endpoint(), layout.sidecar, "", network_mode::TearDownCalls(layout));
    if (!started) return started.error();
    reaper.emplace(std::move(*started));
  }
  auto proxy = network_mode::BringUp(*engine, plan, layout, files, options.corral_image);
  if (!proxy) {
    if (reaper) reaper->Done();
    return proxy.error();
  }
  nlohmann::json names = {{"inside_network", layout.inside_network},
                          {"outside_network", layout.outside_network},
                          {"session_volume", layout.session_volume},
                          {"sidecar", layout.sidecar},
                          {"proxy", *proxy},
                          {"proxy_by_alias", std::string("http://") + network_mode::kProxyAlias +
                                                 ":" + std::to_string(network_mode::kProxyPort)}};
  if (!options.hold) return names.dump() + "\n";
  if (options.on_up) options.on_up(names.dump() + "\n");
  char byte;
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, &byte, 1);
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    break;
  }
  auto down = network_mode::TearDown(*engine, layout);
  reaper->Done();
  if (!down) return down.error();
  return std::string();
}

}  // namespace corral::launcher
