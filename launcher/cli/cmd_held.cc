// corral held: the runs waiting for their folder to be allowed.
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/hold/hold.h"
#include "launcher/launcher.h"

namespace corral::cli {
namespace {

int Run(bool json) {
  auto held = launcher::ListHeld(policy::StateDir());
  if (!held) return Fail(held.error(), kExitRefused);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& run : *held) {
      out.push_back({{"id", run.id}, {"folder", run.folder}, {"command", run.command},
                     {"since", run.since}, {"pid", run.pid}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (held->empty()) {
    std::cout << "No runs are waiting.\n";
    return kExitOk;
  }
  const char* home = std::getenv("HOME");
  for (const auto& run : *held) {
    std::cout << launcher::DescribeHeld(run, home ? home : "", std::time(nullptr)) << " (pid "
              << run.pid << ")\n    to start it: corral allow " << run.folder << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddHeldCommand(CLI::App& app, Globals& globals) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand(
      "held", "List runs waiting for their folder to be allowed (corral allow DIR)");
  sub->add_flag("--json", *json,
                "Print as a JSON array: id, folder, command, since (seconds since the epoch), pid");
  sub->footer(
      "A run started unattended in a folder corral does not know waits (hold.wait_minutes,\n"
      "default 30) until the folder is allowed, then starts; else it exits with 75.\n"
      "Example:\n"
      "  corral held\n");
  sub->callback([json, &globals] { globals.exit_code = Run(*json); });
}

}  // namespace corral::cli
