// corral config show|check|import: every key with its value and origin; validation;
// another tool's settings translated (cmd_config_import.cc).
#include <iomanip>
#include <iostream>

#include "launcher/cli/cli.h"

namespace corral::cli {
namespace {

int ShowConfig(const Globals& globals, bool json) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  if (json) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, setting] : policy->settings) {
      out[name] = {{"value", setting.value},
                   {"origin", policy::OriginName(setting.origin)},
                   {"where", setting.where}};
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "# config file: "
            << (policy->config_path.empty() ? "(none found; defaults apply)" : policy->config_path)
            << "\n";
  for (const auto& key : policy::Keys()) {
    const auto& setting = policy->settings.at(std::string(key.name));
    std::cout << key.name << " = " << setting.value.dump() << "\n    # "
              << policy::OriginName(setting.origin);
    if (setting.origin != policy::Origin::kDefault) std::cout << " (" << setting.where << ")";
    if (!key.env.empty()) std::cout << "; env " << key.env;
    std::cout << "; " << key.help << "\n";
  }
  return kExitOk;
}

int Check(const Globals& globals) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitRefused);
  std::cout << "config OK: "
            << (policy->config_path.empty() ? "no config file, defaults apply" : policy->config_path)
            << "\n";
  return kExitOk;
}

}  // namespace

void AddConfigCommand(CLI::App& app, Globals& globals) {
  CLI::App* config = app.add_subcommand("config", "Show, validate or import the configuration");
  config->require_subcommand(1);
  config->footer(
      "Precedence: defaults < config file < environment < flags (--set KEY=VALUE).\n"
      "Nothing is read from the project directory.\n");

  auto json = std::make_shared<bool>(false);
  CLI::App* show = config->add_subcommand("show", "Print every key with its value and origin");
  show->add_flag("--json", *json, "Print as JSON");
  show->callback([json, &globals] { globals.exit_code = ShowConfig(globals, *json); });

  CLI::App* check = config->add_subcommand(
      "check", "Validate the configuration: exit 0 when valid, 1 with every problem when not");
  check->callback([&globals] { globals.exit_code = Check(globals); });

  AddConfigImportCommand(config, globals);
}

}  // namespace corral::cli
