// corral: starts AI coding agents in containers. Thin over the libraries:
// parse flags, run one command, print any error once.
#include <iostream>

#include "launcher/cli/cli.h"

namespace {

// CLI11 reports an unknown subcommand as an extra positional; offer the
// nearest command name instead of a bare parse error.
int UsageError(const CLI::ParseError& e, const CLI::App& app, int argc, char** argv) {
  std::cerr << "corral: " << e.what() << "\n";
  if (argc > 1 && app.get_subcommands().empty()) {
    std::string suggestion = corral::cli::SuggestCommand(argv[1]);
    if (!suggestion.empty()) std::cerr << "Did you mean `corral " << suggestion << "`?\n";
  }
  std::cerr << "Run `corral --help` for the list of commands.\n";
  return corral::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  corral::log::InitLogging();
  corral::cli::InstallTerminalSink();
  corral::cli::Globals globals;

  CLI::App app{"corral: run AI coding agents in containers, with a deny list for unattended shell "
               "commands and an egress allowlist.",
               "corral"};
  app.set_version_flag("--version", std::string(CORRAL_VERSION));
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--config", globals.config_path,
                 "Config file (default: $CORRAL_CONFIG, else $XDG_CONFIG_HOME/corral/config.yaml)");
  app.add_option("--set", globals.sets, "Override a config key for this run: KEY=VALUE");

  for (const auto& command : corral::cli::Commands()) command.add(app, globals);

  auto split = corral::cli::SplitCommandWords(app, std::vector<std::string>(argv + 1, argv + argc));
  globals.command_words = std::move(split.command_words);
  std::vector<std::string> reversed(split.corral_words.rbegin(), split.corral_words.rend());
  try {
    app.parse(reversed);  // CLI11 takes the words last first
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return UsageError(e, app, argc, argv);
  }
  return globals.exit_code;
}
