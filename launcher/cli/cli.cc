#include "launcher/cli/cli.h"

#include <iostream>

namespace corral::cli {

Result<policy::LoadOptions> PolicySource(const Globals& globals,
                                         std::vector<policy::LoadOptions::Override> extra) {
  policy::LoadOptions options;
  options.config_path = globals.config_path;
  for (const std::string& set : globals.sets) {
    auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error("--set " + set + ": expected KEY=VALUE, e.g. --set level=always");
    }
    options.overrides.push_back({set.substr(0, eq), set.substr(eq + 1), "--set"});
  }
  for (auto& o : extra) options.overrides.push_back(std::move(o));
  return options;
}

Result<policy::Policy> LoadPolicy(const Globals& globals,
                                  std::vector<policy::LoadOptions::Override> extra) {
  auto options = PolicySource(globals, std::move(extra));
  if (!options) return options.error();
  return policy::Load(*options);
}

int Fail(const Error& error, int exit_code) {
  std::cerr << "corral: " << error.message << "\n";
  return exit_code;
}

std::string SuggestCommand(const std::string& typed) {
  std::vector<std::string_view> names;
  for (const Command& command : Commands()) names.push_back(command.name);
  return Nearest(typed, names);
}

}  // namespace corral::cli
