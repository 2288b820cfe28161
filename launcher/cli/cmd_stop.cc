// corral stop ID: stop and remove one session's box.
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {

void AddStopCommand(CLI::App& app, Globals& globals) {
  auto engine = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("stop", "Stop and remove a corral session's box");
  sub->add_option("--engine", *engine,
                  "Engine API endpoint: unix:///path, tcp://host:port or ssh://[user@]host");
  AddEngineTlsFlags(sub);
  sub->add_option("id", *id, "Session id (corral ps), container name or id")->required();
  sub->callback([engine, id, &globals] {
    auto policy = LoadPolicy(globals);
    if (!policy) {
      globals.exit_code = Fail(policy.error(), kExitUsage);
      return;
    }
    auto stopped = launcher::StopSession(*policy, *engine, *id);
    if (!stopped) {
      globals.exit_code = Fail(stopped.error(), kExitRefused);
      return;
    }
    std::cerr << *stopped;
  });
}

}  // namespace corral::cli
