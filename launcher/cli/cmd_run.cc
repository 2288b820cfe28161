// corral run: start an agent in its box, attached to this terminal.
#include <fcntl.h>
#include <unistd.h>

#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"
#include "launcher/plan/plan.h"

namespace corral::cli {
namespace {

// With --fail-on-refusal, a session whose agent succeeded but had a command
// or a host refused ends with this status (sysexits' EX_NOPERM).
constexpr int kExitRefusedInSession = 77;

struct RunCliOptions {
  std::vector<std::string> command;  // AGENT [ARGS...]
  std::string image;
  std::string json_events;  // FILE, or "-" for stdout
  bool fail_on_refusal = false;
  std::vector<std::string> publish;  // --publish, as given
  std::string runtime;               // --runtime: the `runtime` setting for this run
  launcher::RunOptions run;
};

// --json-events: a file of its own, or "-": this process's stdout, whose
// other writers (the agent's output included) then go to stderr, so a
// program reading stdout gets the record alone.
Result<UniqueFd> OpenEvents(const std::string& target) {
  if (target == "-") {
    std::cout.flush();
    UniqueFd events(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3));
    if (!events.valid()) return Error::FromErrno("--json-events -: cannot keep stdout");
    if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      return Error::FromErrno("--json-events -: cannot send other output to stderr");
    }
    return events;
  }
  UniqueFd events(::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!events.valid()) return Error::FromErrno("--json-events: cannot open " + target);
  return events;
}

int RunRun(const RunCliOptions& options, const Globals& globals) {
  std::vector<policy::LoadOptions::Override> flags;
  if (!options.runtime.empty()) flags.push_back({"runtime", options.runtime, "--runtime"});
  auto source = PolicySource(globals, std::move(flags));
  if (!source) return Fail(source.error(), kExitUsage);
  auto policy = policy::Load(*source);
  if (!policy) return Fail(policy.error(), kExitUsage);
  launcher::RunOptions run = options.run;
  run.policy_source = *source;
  for (const std::string& text : options.publish) {
    auto port = launcher::ParsePublishedPort(text);
    if (!port) return Fail(port.error(), kExitUsage);
    run.published.push_back(*port);
  }
  UniqueFd events;
  if (!options.json_events.empty() && !run.print_only) {
    auto opened = OpenEvents(options.json_events);
    if (!opened) return Fail(opened.error(), kExitUsage);
    events = std::move(*opened);
    run.events_fd = events.get();
  }
  auto outcome = launcher::Run(*policy, options.command, options.image, run);
  if (!outcome) return Fail(outcome.error(), launcher::kExitBoxFailed);
  if (outcome->blocked_while_away > 0) {
    std::cerr << launcher::BlockedLine(outcome->blocked_while_away, outcome->blocked_named) << "\n";
  }
  for (const std::string& line : outcome->held_lines) std::cerr << "corral: " << line << "\n";
  if (!outcome->refused_hosts.empty()) {
    std::cerr << "corral: " << launcher::RefusedHostsLine(outcome->refused_hosts) << "\n";
  }
  bool refused = outcome->refused > 0 || !outcome->refused_hosts.empty();
  if (options.fail_on_refusal && refused && outcome->exit_code == 0) {
    std::cerr << "corral: --fail-on-refusal: " << outcome->refused << " command(s) and "
              << outcome->refused_hosts.size() << " host(s) were refused (corral report)\n";
    return kExitRefusedInSession;
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
      "  corral run --image my-agent:1 --build ./agent-image claude -p 'fix the build'\n"
      "  corral run --review --headless claude -p 'fix the build'   (then: corral review)\n"
      "  corral run --runtime gvisor codex      (the box on gVisor's kernel: docs/sessions.md)\n");
  sub->add_option("--image", options->image, "Image to run (default: the `image` setting)");
  sub->add_option("--engine", options->run.engine,
                  "Engine API endpoint: unix:///path, tcp://host:port or "
                  "ssh://[user@]host[:port][/socket]");
  AddEngineTlsFlags(sub);
  sub->add_option("--build", options->run.build_context,
                  "Folder with a Dockerfile: the image is built from it when missing")
      ->check(CLI::ExistingDirectory);
  sub->add_flag("--headless", options->run.headless, "No terminal, even when there is one");
  sub->add_flag("--review", options->run.review,
                "Review mode: the box works on its own copy of the project (an overlay); its "
                "work arrives as branch corral/SESSION, your working tree and branch untouched "
                "(corral review SESSION)");
  sub->add_option("--runtime", options->runtime,
                  "The box's runtime: default (the engine's) or gvisor (runsc, a kernel of its "
                  "own; the `runtime` setting)")
      ->check(CLI::IsMember({"default", "gvisor"}));
  sub->add_option("--json-events", options->json_events,
                  "Write the session record (docs/events.md) to FILE, or to stdout with `-` "
                  "(the agent's output then goes to stderr)");
  sub->add_flag("--fail-on-refusal", options->fail_on_refusal,
                "Exit 77 when the agent succeeded but a command or a host was refused");
  sub->add_flag("--print", options->run.print_only, "Print the plan and the rendering; run nothing");
  sub->add_option("--publish", options->publish,
                  "[HOST_ADDR:]HOST_PORT:BOX_PORT: reach the box's 127.0.0.1:BOX_PORT (a dev "
                  "server the agent started) at HOST_ADDR:HOST_PORT (default 127.0.0.1); "
                  "repeat for more")
      ->type_name("PORTS");
  sub->callback([options, &globals] {
    options->command = globals.command_words;
    globals.exit_code = RunRun(*options, globals);
  });
}

}  // namespace corral::cli
