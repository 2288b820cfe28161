// The subcommand table: one row per command, each implemented in cmd_*.cc.
#include "launcher/cli.h"
#include "launcher/commands.h"

namespace corral::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"check", "Decide whether a shell command line may run while nobody is watching",
       AddCheckCommand},
      {"config", "Show or validate the configuration", AddConfigCommand},
      {"spec", "Print the box for this project (OCI, Docker or Podman form); runs nothing",
       AddSpecCommand},
      {"run", "Run an agent in its box, in this project", AddRunCommand},
      {"ps", "List running corral sessions", AddPsCommand},
      {"stop", "Stop and remove a corral session's box", AddStopCommand},
      {"presence", "Say whether somebody is watching, and why", AddPresenceCommand},
      {"inbox", "List commands refused while you were away", AddInboxCommand},
      {"seccomp", "Print the box's seccomp profile, or compare it with another",
       AddSeccompCommand},
      {"proxy", "Run the egress proxy", AddProxyCommand},
  };
  return kCommands;
}

}  // namespace corral::cli
