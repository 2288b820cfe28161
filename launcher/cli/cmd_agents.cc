// corral agents: the agents corral knows by name, and what each recipe says.
#include <iostream>

#include "launcher/agents/agents.h"
#include "launcher/cli/cli.h"

namespace corral::cli {
namespace {

std::string Joined(const std::vector<std::string>& words, const std::string& none) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : ", ") + word;
  return out.empty() ? none : out;
}

void PrintHuman(const std::vector<launcher::Recipe>& recipes) {
  for (const auto& r : recipes) {
    std::cout << r.name << "  [" << (r.verified ? "verified in CI on Docker and Podman"
                                                : "not verified")
              << "]" << (r.built_in ? "" : "  (your recipe)") << "\n"
              << "  installed from: " << launcher::InstallWay(r)
              << (r.version.empty() ? "" : " at " + r.version) << "\n"
              << "  folders: " << Joined(r.folders, "none")
              << (r.folder_variable.empty() ? "" : ", or $" + r.folder_variable)
              << (r.own_settings ? " (the box's own, empty)"
                  : r.copy.known() ? " (the box's own, copied from yours without what runs programs)"
                                   : " (the box's own, empty: corral does not know which of its "
                                     "settings run programs)")
              << "\n"
              << "  login variables: " << Joined(r.variables, "none") << "\n"
              << "  hosts: " << Joined(r.hosts, "none") << "\n"
              << "  boxed, it runs with: "
              << (r.ask_first ? "nothing added (ask_first)" : Joined(r.run_without_asking, "nothing added"))
              << "\n";
  }
}

nlohmann::json CopiedJson(const launcher::SettingsCopy& copy) {
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& file : copy.settings) {
    settings.push_back({{"path", file.path}, {"program_keys", file.program_keys}});
  }
  return {{"settings", settings}, {"logins", copy.logins}, {"text", copy.text},
          {"back", copy.back}};
}

nlohmann::json ToJson(const launcher::Recipe& r) {
  return {{"name", r.name},
          {"install", launcher::InstallWay(r)},
          {"package", r.package},
          {"installer", r.installer},
          {"binary", r.binary},
          {"version", r.version},
          {"folders", r.folders},
          {"folder_variable", r.folder_variable},
          {"variables", r.variables},
          {"hosts", r.hosts},
          {"switch", r.run_without_asking},
          {"bypass", r.bypass},
          {"unboxed", r.unboxed},
          {"env", r.env},
          {"shell", r.shell},
          {"ask_first", r.ask_first},
          {"settings", r.own_settings ? "own" : "copy"},
          {"copied", CopiedJson(r.copy)},
          {"built_in", r.built_in},
          {"verified", r.verified}};
}

int RunAgents(bool json, const Globals& globals) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  auto recipes = launcher::Recipes(policy->agents);
  if (!recipes) return Fail(recipes.error(), kExitUsage);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : *recipes) out.push_back(ToJson(r));
    std::cout << out.dump(2) << "\n";
  } else {
    PrintHuman(*recipes);
  }
  return kExitOk;
}

}  // namespace

void AddAgentsCommand(CLI::App& app, Globals& globals) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("agents", "List the agents corral knows by name");
  sub->footer(
      "Each agent's recipe: how its image installs it, its settings and login folders\n"
      "(mounted in its box), the login variables passed by name, the hosts allowed for\n"
      "its sessions, and the switch added when boxed (the box is the sandbox).\n"
      "Your own recipes: agents.recipes in the config (corral config show).\n"
      "Verified: CI builds its image and runs it on Docker and Podman.\n"
      "Examples:\n"
      "  corral agents\n"
      "  corral agents --json\n");
  std::string fields = "\nRecipe fields (agents.recipes.NAME.FIELD):\n";
  for (const auto& field : policy::RecipeFields()) {
    fields += "  " + std::string(field.name) + ": " + std::string(field.help) + "\n";
  }
  sub->footer(sub->get_footer() + fields);
  sub->add_flag("--json", *json, "Print the recipes as a JSON array");
  sub->callback([json, &globals] { globals.exit_code = RunAgents(*json, globals); });
}

}  // namespace corral::cli
