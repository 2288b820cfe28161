// The agent's command line for `corral run` and `corral spec`, and the line
// `corral check` decides, by the rule of `docker run`, `sudo` and `env`:
// corral's options come first; the first word that is not one of them (or
// its value) starts the command, and every word from there on is the
// command's, verbatim (an agent's own --help and --version too).
//
// The split is made before CLI11 parses: CLI11 keeps reading options after a
// positional, takes `[a,b]` apart as a list, and hands a subcommand's words
// after `--` to the top level, any of which would change the agent's words.
#include <algorithm>

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

WordsSplit SplitCommandWords(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* at = &app;  // the top level until a subcommand's name is read
  Words words = Words::kOptions;
  std::size_t end = 0;                 // corral's words are args[0, end)
  std::size_t agent_at = args.size();  // the agent's start here
  for (; end < args.size(); ++end) {
    const std::string& word = args[end];
    if (word == "--") {  // `corral run [OPTIONS] -- AGENT ...`
      agent_at = end + 1;
      break;
    }
    if (word.size() > 1 && word[0] == '-') {
      if (TakesNextWord(*at, word)) ++end;
      continue;
    }
    if (at != &app) {  // the agent's name, or the command line's first word
      agent_at = end;
      break;
    }
    auto subs = app.get_subcommands([&word](const CLI::App* sub) { return sub->check_name(word); });
    if (subs.empty()) break;  // a typo: CLI11 says so
    at = subs.front();
    for (const Command& command : Commands()) {
      if (word == command.name) words = command.words;
    }
    if (words == Words::kOptions) break;  // other commands parse all their words
  }
  if (words == Words::kOptions) return {args, {}};
  end = std::min(end, args.size());  // an option's value was missing at the end
  auto at_index = [&args](std::size_t i) { return args.begin() + static_cast<std::ptrdiff_t>(i); };
  WordsSplit split{{args.begin(), at_index(end)}, {at_index(agent_at), args.end()}};
  // `corral run claude -- --resume x` passes `--resume x`, as if without the `--`.
  auto& agent = split.command_words;
  if (words == Words::kAgent && agent.size() >= 2 && agent[1] == "--") {
    agent.erase(agent.begin() + 1);
  }
  return split;
}

}  // namespace corral::cli
