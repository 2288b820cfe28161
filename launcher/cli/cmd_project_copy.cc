// corral project-copy in|back SESSION (hidden): the network mode's project
// volume filled from a folder, or the box's changes copied back, for the
// tests (docs/network-mode.md).
#include <unistd.h>

#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {

void AddProjectCopyCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<launcher::ProjectCopyTrialOptions>();
  options->uid = ::getuid();
  options->gid = ::getgid();
  CLI::App* sub = app.add_subcommand(
      "project-copy", "Copy a project into a session's volume, or the box's changes back (for tests)");
  sub->group("");  // not in --help: no session uses it yet
  sub->add_option("action", options->action, "in or back")->required();
  sub->add_option("session", options->session_id, "Session id: 12 hex digits")->required();
  sub->add_option("--engine", options->engine,
                  "Engine API endpoint: unix:///path, tcp://host:port or ssh://[user@]host");
  AddEngineTlsFlags(sub);
  sub->add_option("--project", options->project_dir, "The project folder (in)");
  sub->add_option("--image", options->image, "An image for the copier container (in)")
      ->default_val("corral:" CORRAL_VERSION);
  sub->add_option("--uid", options->uid, "Owner of the copied files (default: yours)");
  sub->add_option("--gid", options->gid, "Group of the copied files (default: yours)");
  sub->callback([options, &globals] {
    auto policy = LoadPolicy(globals);
    if (!policy) {
      globals.exit_code = Fail(policy.error(), kExitUsage);
      return;
    }
    auto done = launcher::ProjectCopyTrial(*policy, *options);
    if (!done) {
      globals.exit_code = Fail(done.error(), launcher::kExitBoxFailed);
      return;
    }
    std::cout << *done;
  });
}

}  // namespace corral::cli
