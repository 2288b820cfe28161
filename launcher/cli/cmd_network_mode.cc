// corral network-mode up|down SESSION (hidden): the network mode's pieces on
// an engine without an agent, for the tests (docs/network-mode.md).
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"
#include "launcher/network_mode/network_mode.h"

namespace corral::cli {

void AddNetworkModeCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<launcher::NetworkModeTrialOptions>();
  CLI::App* sub = app.add_subcommand(
      "network-mode", "Make or remove one session's network-mode objects (for tests)");
  sub->group("");  // not in --help: no session uses it yet
  sub->add_option("action", options->action, "up or down")->required();
  sub->add_option("session", options->session_id, "Session id: 12 hex digits")->required();
  sub->add_option("--engine", options->engine,
                  "Engine API endpoint: unix:///path, tcp://host:port or ssh://[user@]host");
  AddEngineTlsFlags(sub);
  sub->add_option("--image", options->corral_image, "The corral image (corral image build corral)")
      ->default_val("corral:" CORRAL_VERSION);
  sub->add_option("--shim", options->shim_path, "corral-shim to deliver");
  sub->add_option("--shell", options->shell_path, "corral-shell to deliver");
  sub->add_option("--allow", options->allow, "A host the sidecar lets through (repeat)");
  sub->add_flag("--hold", options->hold,
                "Stay up until stdin ends, then tear down (a reaper if killed)");
  options->on_up = [](const std::string& names) { std::cout << names << std::flush; };
  sub->callback([options, &globals] {
    auto policy = LoadPolicy(globals);
    if (!policy) {
      globals.exit_code = Fail(policy.error(), kExitUsage);
      return;
    }
    auto done = launcher::NetworkModeTrial(*policy, *options);
    if (!done) {
      globals.exit_code = Fail(done.error(), launcher::kExitBoxFailed);
      return;
    }
    std::cout << *done;
  });
}

}  // namespace corral::cli
