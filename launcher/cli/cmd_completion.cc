// corral completion bash|zsh|fish: the shell completion script, made from the
// command table this corral parses its arguments with (completion.cc).
#include <iostream>

#include "launcher/cli/cli.h"

namespace corral::cli {

void AddCompletionCommand(CLI::App& app, Globals& globals) {
  auto shell = std::make_shared<std::string>();
  CLI::App* sub =
      app.add_subcommand("completion", "Print a completion script for bash, zsh or fish");
  sub->add_option("shell", *shell, "The shell the script is for")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  sub->footer(
      "The Debian package installs all three; by hand, for this shell only:\n"
      "  bash: source <(corral completion bash)     (in ~/.bashrc)\n"
      "  zsh:  source <(corral completion zsh)      (in ~/.zshrc, after compinit)\n"
      "  fish: corral completion fish > ~/.config/fish/completions/corral.fish\n"
      "Commands, options and their values complete; the words after an agent's name are "
      "the agent's.\n"
      "Exit status: 0, or 2 for a shell it does not know.\n"
      "Example:\n"
      "  corral completion bash > /etc/bash_completion.d/corral\n");
  // The whole table is known once parsing is done: every command is added.
  sub->callback([shell, &app, &globals] {
    std::cout << CompletionScript(*shell, CompletionTable(app));
    globals.exit_code = kExitOk;
  });
}

}  // namespace corral::cli
