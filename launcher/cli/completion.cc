// The command tree shell completion works from, read off the CLI::App that
// parses corral's arguments: what completes is what corral accepts.
#include <algorithm>

#include "launcher/cli/cli.h"

namespace corral::cli {
namespace {

bool Hidden(const std::string& group) { return group.empty(); }

// CLI11 writes a validator into the type name: "TEXT:FILE", "TEXT:DIR",
// "TEXT:{oci,docker,libpod,kubernetes}" (CLI::IsMember).
void ReadValue(const CLI::Option& opt, CompletionOption& out) {
  if (opt.get_expected_max() == 0) return;  // a flag
  out.value = CompletionOption::Value::kText;
  std::string type = opt.get_type_name();
  auto open = type.find('{');
  auto close = type.rfind('}');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    out.value = CompletionOption::Value::kChoice;
    std::string list = type.substr(open + 1, close - open - 1);
    for (std::size_t start = 0; start <= list.size();) {
      std::size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) out.choices.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  } else if (type.find(":DIR") != std::string::npos) {
    out.value = CompletionOption::Value::kDir;
  } else if (type.find(":FILE") != std::string::npos) {
    out.value = CompletionOption::Value::kFile;
  }
}

// Its own options first; a parent's only where no closer one has the name
// (every command has its own --help).
void AddOptions(const CLI::App& app, std::vector<CompletionOption>& options) {
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional() || Hidden(opt->get_group())) continue;
    CompletionOption option;
    for (const std::string& s : opt->get_snames()) option.names.push_back("-" + s);
    for (const std::string& l : opt->get_lnames()) option.names.push_back("--" + l);
    auto known = [&options](const std::string& name) {
      for (const CompletionOption& closer : options) {
        if (std::find(closer.names.begin(), closer.names.end(), name) != closer.names.end()) {
          return true;
        }
      }
      return false;
    };
    if (std::any_of(option.names.begin(), option.names.end(), known)) continue;
    option.help = opt->get_description();
    ReadValue(*opt, option);
    options.push_back(std::move(option));
  }
}

void AddNode(const CLI::App& app, const std::string& path, std::vector<CompletionNode>& table) {
  CompletionNode node;
  node.path = path;
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    AddOptions(*at, node.options);
  }
  std::vector<const CLI::App*> subs =
      app.get_subcommands([](const CLI::App* sub) { return !Hidden(sub->get_group()); });
  for (const CLI::App* sub : subs) node.words.emplace_back(sub->get_name(), sub->get_description());
  if (subs.empty()) {
    for (const CLI::Option* opt : app.get_options()) {
      if (opt->nonpositional()) continue;
      CompletionOption positional;
      ReadValue(*opt, positional);
      for (const std::string& choice : positional.choices) {
        node.words.emplace_back(choice, opt->get_description());
      }
      break;  // the first positional only
    }
  }
  table.push_back(std::move(node));
  for (const CLI::App* sub : subs) AddNode(*sub, path + "/" + sub->get_name(), table);
}

}  // namespace

std::vector<CompletionNode> CompletionTable(const CLI::App& root) {
  std::vector<CompletionNode> table;
  AddNode(root, root.get_name(), table);
  return table;
}

}  // namespace corral::cli
