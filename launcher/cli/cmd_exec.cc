// corral exec SESSION [--] [COMMAND...]: a command in a running session's box.
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {

void AddExecCommand(CLI::App& app, Globals& globals) {
  auto engine = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("exec", "Run a command in a running session's box");
  sub->footer(
      "Usage: corral exec [OPTIONS] SESSION [--] [COMMAND...]\n"
      "Runs COMMAND in the box of SESSION (its id from `corral ps`, or the start of it) as\n"
      "one of the agent's own processes: the agent's user, the box's environment, and\n"
      "the same checks as the agent's commands (the shell front, the exec check: a\n"
      "listed command is refused there while nobody is watching). COMMAND's words are\n"
      "joined with spaces and given to /bin/sh -c, as ssh does; without COMMAND, an\n"
      "interactive shell. With a terminal, the command gets one. The exit status is\n"
      "COMMAND's; 125 when the box cannot be entered.\n"
      "Examples:\n"
      "  corral exec 3f2a9c tail -f /tmp/build.log\n"
      "  corral exec 3f2a9c -- 'git status && git log -3'\n"
      "  corral exec 3f2a9c\n");
  sub->add_option("--engine", *engine,
                  "Engine API endpoint: unix:///path, tcp://host:port or ssh://[user@]host");
  AddEngineTlsFlags(sub);
  sub->callback([engine, &globals] {
    if (globals.command_words.empty()) {
      globals.exit_code = Fail(Error("give the session: corral exec SESSION [COMMAND...] "
                                     "(`corral ps` lists the sessions)"), kExitUsage);
      return;
    }
    auto policy = LoadPolicy(globals);
    if (!policy) {
      globals.exit_code = Fail(policy.error(), kExitUsage);
      return;
    }
    std::vector<std::string> command(globals.command_words.begin() + 1,
                                     globals.command_words.end());
    auto status = launcher::ExecInSession(*policy, *engine, globals.command_words.front(), command);
    if (!status) {
      globals.exit_code = Fail(status.error(), launcher::kExitBoxFailed);
      return;
    }
    globals.exit_code = *status;
  });
}

}  // namespace corral::cli
