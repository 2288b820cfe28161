// corral report: what a session did, from its record.
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {
namespace {

struct ReportOptions {
  std::string session;
  bool json = false;
};

int Run(const ReportOptions& options) {
  auto report = launcher::ReportSession(policy::StateDir(), options.session);
  if (!report) return Fail(report.error(), kExitRefused);
  if (options.json) {
    std::cout << report->dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << launcher::DescribeReport(*report);
  }
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand(
      "report", "Sum up a session: commands run and refused, hosts, files changed");
  sub->add_option("session", options->session,
                  "Session id or its first digits (default: the last session)");
  sub->add_flag("--json", options->json, "Print as one JSON object (docs/events.md)");
  sub->footer(
      "Read from the session's record in $XDG_STATE_HOME/corral/sessions.\n"
      "Exit status: 0, or 1 when no such session is recorded.\n"
      "Examples:\n"
      "  corral report\n"
      "  corral report --json 3f2a > corral-report.json   (a CI job's artifact)\n");
  sub->callback([options, &globals] { globals.exit_code = Run(*options); });
}

}  // namespace corral::cli
