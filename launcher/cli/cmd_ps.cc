// corral ps: the running sessions, found by label on the engine.
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {

void AddPsCommand(CLI::App& app, Globals& globals) {
  auto engine = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("ps", "List running corral sessions");
  sub->add_option("--engine", *engine,
                  "Engine API endpoint: unix:///path, tcp://host:port or ssh://[user@]host");
  AddEngineTlsFlags(sub);
  sub->callback([engine, &globals] {
    auto policy = LoadPolicy(globals);
    if (!policy) {
      globals.exit_code = Fail(policy.error(), kExitUsage);
      return;
    }
    auto list = launcher::ListSessions(*policy, *engine);
    if (!list) {
      globals.exit_code = Fail(list.error(), launcher::kExitBoxFailed);
      return;
    }
    std::cout << *list;
  });
}

}  // namespace corral::cli
