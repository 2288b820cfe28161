// One registration function per subcommand (cmd_<name>.cc).
#pragma once

#include "launcher/cli.h"

namespace corral::cli {

void AddCheckCommand(CLI::App& app, Globals& globals);
void AddConfigCommand(CLI::App& app, Globals& globals);
void AddSpecCommand(CLI::App& app, Globals& globals);
void AddRunCommand(CLI::App& app, Globals& globals);
void AddPsCommand(CLI::App& app, Globals& globals);
void AddStopCommand(CLI::App& app, Globals& globals);
void AddPresenceCommand(CLI::App& app, Globals& globals);
void AddInboxCommand(CLI::App& app, Globals& globals);
void AddSeccompCommand(CLI::App& app, Globals& globals);
void AddProxyCommand(CLI::App& app, Globals& globals);

}  // namespace corral::cli
