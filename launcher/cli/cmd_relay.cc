// corral relay --listen PATH (hidden): the oracle channel's end in the network
// mode's sidecar (docs/network-mode.md).
#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {

void AddRelayCommand(CLI::App& app, Globals& globals) {
  auto path = std::make_shared<std::string>("/run/corral/relay/oracle.sock");
  auto watchdog = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "relay", "Carry the shim's questions between a socket and stdin/stdout (the sidecar)");
  sub->group("");  // corral runs it in the sidecar, nobody by hand
  sub->add_option("--listen", *path, "The unix socket the shim connects to")
      ->capture_default_str();
  sub->add_option("--watchdog", *watchdog,
                   "A unix socket the box's shim holds open until stdin ends");
  sub->callback([path, watchdog, &globals] {
    if (auto ok = launcher::RunOracleRelay(*path, *watchdog); !ok) {
      globals.exit_code = Fail(ok.error(), launcher::kExitBoxFailed);
    }
  });
}

}  // namespace corral::cli
