// corral inbox: commands refused while you were away; viewing clears them.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/hold/hold.h"
#include "policy/inbox/inbox.h"
#include "launcher/launcher.h"

namespace corral::cli {
namespace {

struct InboxOptions {
  bool keep = false;
  bool json = false;
  bool full = false;
};

constexpr std::size_t kShownChars = 200;

// The agent's text on one line: newlines as "; ", cut unless `full`.
std::string TextOnOneLine(const std::string& text, bool full) {
  std::string line;
  for (char c : text) {
    if (c != '\n') {
      line += c;
    } else if (!line.empty() && line.back() != ' ') {
      line += "; ";
    }
  }
  if (full || line.size() <= kShownChars) return line;
  return line.substr(0, kShownChars) + "\xe2\x80\xa6 (corral inbox --full shows it whole)";
}

// What the agent was refused: the simple command the deny list matched (its
// wrapper, such as Claude Code's snapshot sourcing and `eval '...'`, taken
// off), and the agent's whole text only with --full.
void PrintCommand(const policy::InboxItem& item, bool full) {
  const std::string shown = item.refused.empty() ? TextOnOneLine(item.command, full) : item.refused;
  std::cout << "  " << item.time << "  " << shown << "\n      "
            << (item.entry.empty() ? "its program could not be determined"
                                   : "on the deny list as `" + item.entry + "`")
            << "\n";
  if (full && !item.refused.empty() && item.refused != item.command) {
    std::cout << "      the agent's whole text: " << item.command << "\n";
  }
}

void PrintHuman(const std::vector<policy::InboxItem>& items, bool full) {
  if (items.empty()) {
    std::cout << "Nothing was blocked while you were away.\n";
    return;
  }
  std::size_t hosts = std::count_if(items.begin(), items.end(),
                                    [](const auto& item) { return item.kind == "host"; });
  std::size_t held = std::count_if(items.begin(), items.end(),
                                   [](const auto& item) { return item.kind == "held"; });
  std::size_t strays = std::count_if(items.begin(), items.end(),
                                     [](const auto& item) { return item.kind == "credential"; });
  std::size_t branches = std::count_if(items.begin(), items.end(),
                                       [](const auto& item) { return item.kind == "branch"; });
  std::size_t forge = std::count_if(items.begin(), items.end(),
                                    [](const auto& item) { return item.kind == "forge"; });
  std::size_t commands = items.size() - hosts - held - strays - branches - forge;
  if (commands > 0) {
    std::cout << commands << (commands == 1 ? " command was" : " commands were")
              << " blocked while you were away";
  }
  if (hosts > 0) {
    std::cout << (commands > 0 ? "; " : "") << hosts << (hosts == 1 ? " host was" : " hosts were")
              << " refused by the proxy";
  }
  if (held > 0) {
    std::cout << (commands + hosts > 0 ? "; " : "") << held
              << (held == 1 ? " file was" : " files were") << " held for review";
  }
  if (strays > 0) {
    std::cout << (commands + hosts + held > 0 ? "; " : "") << strays
              << (strays == 1 ? " login's stand-in was" : " logins' stand-ins were")
              << " sent to the wrong host";
  }
  if (branches > 0) {
    std::cout << (commands + hosts + held + strays > 0 ? "; " : "") << branches
              << (branches == 1 ? " branch waits" : " branches wait") << " for review";
  }
  if (forge > 0) {
    std::cout << (commands + hosts + held + strays + branches > 0 ? "; " : "") << forge
              << (forge == 1 ? " request to the forge was" : " requests to the forge were") << " refused";
  }
  std::cout << ":\n";
  std::string session;
  for (const auto& item : items) {
    if (item.session != session) {
      session = item.session;
      std::cout << "\nsession " << item.session << ": " << (item.agent.empty() ? "?" : item.agent)
                << " in " << item.project << "\n";
    }
    if (item.kind == "held") {
      std::cout << "  " << item.time << "  held for review: " << item.command << " ("
                << item.entry << ")\n      to see it: corral review " << item.session << "\n";
      continue;
    }
    if (item.kind == "branch") {
      std::cout << "  " << item.time << "  the agent's work is on branch " << item.command
                << "\n      to see it: corral review " << item.session << "\n";
      continue;
    }
    if (item.kind == "credential") {
      std::cout << "  " << item.time << "  refused a login's stand-in sent to " << item.command
              << " (" << item.times << (item.times == 1 ? " time" : " times") << "): "
              << item.entry << "\n      nothing reached " << item.command
              << "; to see what sent it: corral report " << item.session << "\n";
      continue;
    }
    if (item.kind == "forge") {
      std::cout << "  " << item.time << "  the forge's rules refused " << item.command << " (" << item.times
                << (item.times == 1 ? " time" : " times") << "): " << item.entry
                << "\n      what it was: corral report " << item.session << " (docs/forge.md)\n";
      continue;
    }
    if (item.kind == "host") {
      std::cout << "  " << item.time << "  refused host " << item.command << " (" << item.times
                << (item.times == 1 ? " time" : " times") << ")\n      to allow it: corral allow "
                << "--host " << item.command << " [--project]\n";
      continue;
    }
    PrintCommand(item, full);
  }
}

// Runs held for their folder come first: each waits for an answer.
void PrintHeld() {
  auto held = launcher::ListHeld(policy::StateDir());
  if (!held) return;  // the refusals below are still worth showing
  const char* home = std::getenv("HOME");
  for (const auto& run : *held) {
    std::cout << "Waiting for you: "
              << launcher::DescribeHeld(run, home ? home : "", std::time(nullptr))
              << "\n    to start it: corral allow " << run.folder << "\n";
  }
  if (!held->empty()) std::cout << "\n";
}

int Run(const InboxOptions& options) {
  auto items = policy::InboxTake(policy::StateDir(), options.keep);
  if (!items) return Fail(items.error(), kExitRefused);
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : *items) {
      out.push_back({{"time", i.time}, {"session", i.session}, {"project", i.project},
                     {"agent", i.agent}, {"command", i.command}, {"kind", i.kind},
                     {"times", i.times},
                     {"refused", i.refused.empty() ? nlohmann::json(nullptr) : nlohmann::json(i.refused)},
                     {"entry", i.entry.empty() ? nlohmann::json(nullptr) : nlohmann::json(i.entry)}});
    }
    std::cout << out.dump(2) << "\n";
  } else {
    PrintHeld();
    PrintHuman(*items, options.full);
  }
  return kExitOk;
}

}  // namespace

void AddInboxCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<InboxOptions>();
  CLI::App* sub = app.add_subcommand(
      "inbox", "List commands refused while you were away (viewing clears them)");
  sub->add_flag("--keep", options->keep, "Do not clear the inbox after showing it");
  sub->add_flag("--json", options->json, "Print as a JSON array");
  sub->add_flag("--full", options->full,
                "Show the agent's whole text of each refused command too (its wrapper included)");
  sub->footer(
      "Each refused command is shown as the simple command the deny list matched:\n"
      "`aws s3 ls`, not the agent's wrapper around it (Claude Code's snapshot sourcing\n"
      "and eval); --full adds the whole text. --json has both (refused, command).\n"
      "The inbox is kept in $XDG_STATE_HOME/corral (default ~/.local/state/corral).\n");
  sub->callback([options, &globals] { globals.exit_code = Run(*options); });
}

}  // namespace corral::cli
