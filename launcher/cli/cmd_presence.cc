// corral presence [ping]: is somebody watching, and what each source says.
#include <iostream>

#include "launcher/cli/cli.h"
#include "policy/presence/presence.h"

namespace corral::cli {
namespace {

int ShowPresence(const Globals& globals, bool json) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  auto sources = policy::MakePresenceSources(policy->presence);
  if (!sources) return Fail(sources.error(), kExitUsage);
  auto verdict = policy::CheckPresence(*sources);
  if (json) {
    nlohmann::json out = {{"watching", verdict.watching}, {"sources", nlohmann::json::array()}};
    for (const auto& r : verdict.reports) {
      out["sources"].push_back({{"source", r.source}, {"watching", r.watching}, {"detail", r.detail}});
    }
    std::cout << out.dump() << "\n";
  } else {
    std::cout << (verdict.watching ? "somebody is watching" : "nobody is watching")
              << (sources->empty() ? " (no presence sources configured)" : "") << "\n";
    for (const auto& r : verdict.reports) {
      std::cout << "  " << r.source << ": " << (r.watching ? "watching" : "away") << " - "
                << r.detail << "\n";
    }
  }
  return verdict.watching ? kExitOk : kExitRefused;
}

int Ping(const Globals& globals) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  if (auto touched = policy::TouchHeartbeat(policy->presence); !touched) {
    return Fail(touched.error(), kExitRefused);
  }
  return kExitOk;
}

}  // namespace

void AddPresenceCommand(CLI::App& app, Globals& globals) {
  auto json = std::make_shared<bool>(false);
  CLI::App* presence =
      app.add_subcommand("presence", "Say whether somebody is watching, and why");
  presence->add_flag("--json", *json, "Print as JSON");
  presence->footer(
      "Exit status: 0 somebody is watching, 1 nobody is, 2 bad configuration.\n"
      "Sources (presence.sources): tty (input on your terminals, incl. ssh), logind (an active,\n"
      "unlocked desktop session), heartbeat (a file touched by `corral presence ping`).\n");
  presence->callback([json, &globals, presence] {
    if (presence->get_subcommands().empty()) globals.exit_code = ShowPresence(globals, *json);
  });
  CLI::App* ping = presence->add_subcommand(
      "ping", "Touch the heartbeat file: you are watching (run it from a phone or over ssh)");
  ping->callback([&globals] { globals.exit_code = Ping(globals); });
}

}  // namespace corral::cli
