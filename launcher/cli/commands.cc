// The subcommand table: one row per command, each implemented in cmd_*.cc.
#include "launcher/cli/cli.h"

namespace corral::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"run", "Run an agent in its box, in this project", AddRunCommand, Words::kAgent},
      {"agents", "List the agents corral knows by name, and their recipes", AddAgentsCommand},
      {"image", "List, build and remove the agents' images", AddImageCommand},
      {"cache", "List and remove the boxes' package caches (npm, pip, cargo, Go)",
       AddCacheCommand},
      {"spec", "Print the box for this project (OCI, Docker or Podman form); runs nothing",
       AddSpecCommand, Words::kAgent},
      {"ps", "List running corral sessions", AddPsCommand},
      {"stop", "Stop and remove a corral session's box", AddStopCommand},
      {"exec", "Run a command in a running session's box", AddExecCommand, Words::kAgent},
      {"doctor", "Say whether a boxed session can start here, and what to do", AddDoctorCommand},
      {"check", "Decide whether a shell command line may run while nobody is watching",
       AddCheckCommand, Words::kCommandLine},
      {"presence", "Say whether somebody is watching, and why", AddPresenceCommand},
      {"inbox", "List commands refused while you were away", AddInboxCommand},
      {"report", "Sum up a session: commands run and refused, hosts, files changed",
       AddReportCommand},
      {"review",
       "Review what a boxed session left: the auto-run files held at its end, or a review "
       "session's branch",
       AddReviewCommand},
      {"undo", "Put back every file a session changed, as it was when the session started",
       AddUndoCommand},
      {"held", "List runs waiting for their folder to be allowed", AddHeldCommand},
      {"allow", "Allow a folder where runs may start while nobody watches, or a host",
       AddAllowCommand},
      {"config", "Show or validate the configuration", AddConfigCommand},
      {"proxy", "Run the egress proxy", AddProxyCommand},
      {"seccomp", "Print the box's seccomp profile, or compare it with another",
       AddSeccompCommand},
      {"completion", "Print a completion script for bash, zsh or fish", AddCompletionCommand},
      {"relay", "Carry the shim's questions between a socket and stdin/stdout (the sidecar)",
       AddRelayCommand},
      {"project-copy", "Copy a project into a session's volume, or the box's changes back (for tests)",
       AddProjectCopyCommand},
  };
  return kCommands;
}

}  // namespace corral::cli
