// The agent's command line for `corral run` and `corral spec`, by the rule of
// `docker run`, `sudo` and `env`: corral's options come first; the first word
// that is not one of them (or its value) is the agent's name, and every word
// from there on is the agent's, verbatim (its own --help and --version too).
//
// The split is made before CLI11 parses: CLI11 keeps reading options after a
// positional, takes `[a,b]` apart as a list, and hands a subcommand's words
// after `--` to the top level, any of which would change the agent's words.
#include "launcher/cli/cli.h"

namespace corral::cli {
namespace {

// True when `word` is an option of `app` (or of the top level, which a
// subcommand falls through to) that takes a value in the next word.
bool TakesNextWord(const CLI::App& app, const std::string& word) {
  if (word.find('=') != std::string::npos) return false;  // --opt=value
  // A short option with its value attached (-fVALUE) is one word.
  if (word.size() > 2 && word[0] == '-' && word[1] != '-') return false;
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent()) {
    if (const CLI::Option* option = at->get_option_no_throw(word)) {
      return option->get_expected_max() > 0;  // flags expect no value
    }
  }
  return false;
}

}  // namespace

AgentSplit SplitAgentCommand(const CLI::App& app, const std::vector<std::string>& args) {
  AgentSplit split;
  const CLI::App* at = &app;  // the top level until a subcommand's name is read
  bool taking_agent = false;
  std::size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      if (taking_agent) ++i;  // `corral run -- AGENT ...`
      break;
    }
    if (word.size() > 1 && word[0] == '-') {
      if (TakesNextWord(*at, word)) ++i;
      continue;
    }
    if (at == &app) {
      auto subs = app.get_subcommands([&word](const CLI::App* sub) { return sub->check_name(word); });
      if (subs.empty()) break;  // a typo: CLI11 says so
      at = subs.front();
      taking_agent = false;
      for (const Command& command : Commands()) {
        if (word == command.name) taking_agent = command.takes_agent;
      }
      if (!taking_agent) break;  // other commands parse all their words
      continue;
    }
    break;  // the agent's name
  }
  if (!taking_agent || i >= args.size()) {
    split.corral_words = args;
    if (taking_agent && i >= args.size() && !args.empty() && args.back() == "--") {
      split.corral_words.pop_back();
    }
    return split;
  }
  split.corral_words.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i));
  if (!split.corral_words.empty() && split.corral_words.back() == "--") {
    split.corral_words.pop_back();
  }
  split.agent_command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  // `corral run claude -- --resume x` passes `--resume x`, as if without the `--`.
  if (split.agent_command.size() >= 2 && split.agent_command[1] == "--") {
    split.agent_command.erase(split.agent_command.begin() + 1);
  }
  return split;
}

}  // namespace corral::cli
