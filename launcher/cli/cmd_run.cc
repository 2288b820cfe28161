// corral run: start an agent in its box, attached to this terminal.
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {
namespace {

struct RunCliOptions {
  std::vector<std::string> command;  // AGENT [ARGS...]
  std::string image;
  launcher::RunOptions run;
};

int RunRun(const RunCliOptions& options, const Globals& globals) {
  auto source = PolicySource(globals);
  if (!source) return Fail(source.error(), kExitUsage);
  auto policy = policy::Load(*source);
  if (!policy) return Fail(policy.error(), kExitUsage);
  launcher::RunOptions run = options.run;
  run.policy_source = *source;
  auto outcome = launcher::Run(*policy, options.command, options.image, run);
  if (!outcome) return Fail(outcome.error(), launcher::kExitBoxFailed);
  if (outcome->blocked_while_away > 0) {
    std::cerr << launcher::BlockedLine(outcome->blocked_while_away) << "\n";
  }
  return outcome->exit_code;
}

}  // namespace

void AddRunCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<RunCliOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run an agent in its box, in this project");
  sub->footer(
      "Boxed or not is decided once, at start, by `level`: always; off; unattended\n"
      "(boxed when --headless, without a terminal, or nobody is watching).\n"
      "The box: the project read-write at its own path, network only through the\n"
      "session's proxy, no capabilities, seccomp, read-only root, secrets masked.\n"
      "Shell commands are checked by the host first (the deny list), boxed or not.\n"
      "Exit status: the agent's, or 125 when the box could not be set up (nothing\n"
      "runs unboxed in its place), or 75 when it was held and nobody allowed its folder.\n"
      "Started unattended in a folder corral does not know, a run is held until\n"
      "`corral allow DIR` (corral held lists held runs).\n"
      "Usage: corral run [OPTIONS] AGENT [ARGS...]\n"
      "corral's options come before the agent's name; every word after it is the\n"
      "agent's, verbatim (its own --help and --version too), as with docker run.\n"
      "A `--` right after the agent's name is dropped.\n"
      "Examples:\n"
      "  corral run claude\n"
      "  corral run claude --resume abc      (same as: corral run claude -- --resume abc)\n"
      "  corral run --image debian:bookworm-slim sh -c 'make test'\n"
      "  corral run --image my-agent:1 --build ./agent-image claude -p 'fix the build'\n");
  sub->add_option("--image", options->image, "Image to run (default: the `image` setting)");
  sub->add_option("--engine", options->run.engine,
                  "Engine API endpoint: unix:///path or tcp://host:port");
  sub->add_option("--build", options->run.build_context,
                  "Folder with a Dockerfile: the image is built from it when missing")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--headless", options->run.headless, "No terminal, even when there is one");
  sub->add_flag("--print", options->run.print_only, "Print the plan and the rendering; run nothing");
  sub->callback([options, &globals] {
    options->command = globals.command_words;
    globals.exit_code = RunRun(*options, globals);
  });
}

}  // namespace corral::cli
