// What an agent's recipe adds to a session: its settings and login folders,
// its login variables by name, its hosts, and its run-without-asking switch
// when boxed (the box is the sandbox; the deny list still refuses while
// nobody watches). Unboxed, the agent's own sandbox is the only one: its
// bypass switches are refused and nothing is added.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace {

// `--yolo` or `--sandbox=danger-full-access` among the user's words; a switch
// written `--x=v` in the recipe also matches `--x v`.
std::string BypassGiven(const Recipe& recipe, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const std::string& bypass : recipe.bypass) {
      if (args[i] == bypass) return bypass;
      std::size_t eq = bypass.find('=');
      if (eq != std::string::npos && args[i] == bypass.substr(0, eq) && i + 1 < args.size() &&
          args[i + 1] == bypass.substr(eq + 1)) {
        return bypass;
      }
    }
  }
  return "";
}

bool Contains(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// "~/.claude/" -> {".claude", folder}; "~/.claude.json" -> {".claude.json", file}.
std::pair<std::string, bool> Relative(const std::string& entry) {
  std::string path = entry.rfind("~/", 0) == 0 ? entry.substr(2) : entry;
  bool folder = !path.empty() && path.back() == '/';
  if (folder) path.pop_back();
  return {path, !folder};
}

}  // namespace

Result<AgentRun> ApplyRecipe(const Recipe& recipe, const std::vector<std::string>& command,
                             const AgentContext& context) {
  AgentRun run;
  std::vector<std::string> args(command.begin() + (command.empty() ? 0 : 1), command.end());
  run.command = {recipe.binary};
  if (!context.boxed) {
    if (context.level != policy::Level::kOff) {
      if (std::string given = BypassGiven(recipe, args); !given.empty()) {
        return Error(given + " turns off " + recipe.name +
                     "'s own sandbox, and unboxed that sandbox is the only one: run it boxed "
                     "(corral run --headless " + recipe.name + ", or level: always), or drop " +
                     given + " (corral adds the switch itself in a box)");
      }
      if (!recipe.unboxed.empty() && !Contains(args, recipe.unboxed.front())) {
        run.command.insert(run.command.end(), recipe.unboxed.begin(), recipe.unboxed.end());
      }
    }
    run.command.insert(run.command.end(), args.begin(), args.end());
    return run;
  }
  // The switch is one unit (`--auto high`): left out when its first word is given.
  const auto& switch_words = recipe.run_without_asking;
  if (!recipe.ask_first && !switch_words.empty() && !Contains(args, switch_words.front())) {
    run.command.insert(run.command.end(), switch_words.begin(), switch_words.end());
  }
  run.command.insert(run.command.end(), args.begin(), args.end());

  AgentAdditions& add = run.additions;
  add.agent = recipe.name;
  add.variables = recipe.variables;
  add.hosts = recipe.hosts;
  add.env = recipe.env;
  add.logins_pass = recipe.logins_mode.empty() ? context.pass_logins : recipe.logins_mode == "pass";
  for (const BoxLogin& login : recipe.logins) {
    if (Contains(recipe.variables, login.variable)) add.logins.push_back(login);
  }
  const char* named = !recipe.folder_variable.empty() && context.getenv
                          ? context.getenv(recipe.folder_variable.c_str())
                          : nullptr;
  // The box's folders are corral's, never the user's: a box that could
  // write the user's settings could plant hooks the host runs later.
  const std::string base = context.state_dir + "/agents/" + recipe.name;
  const std::string how = recipe.own_settings
                              ? "its own, empty (agents.settings: own)"
                              : "its own, copied from yours without what runs programs";
  std::string named_folder;  // the recipe's first folder, when $VARIABLE names it
  if (named && *named == '/' && !recipe.folders.empty()) {
    named_folder = Relative(recipe.folders.front()).first;
    // The user's own folder for it (CLAUDE_CONFIG_DIR=...): the same path in the box.
    add.folders.push_back({base + "/" + named_folder, named, false,
                           recipe.name + "'s settings and login ($" + recipe.folder_variable +
                               ": " + how + ")"});
    add.env.push_back(recipe.folder_variable + "=" + named);
  } else {
    for (const std::string& entry : recipe.folders) {
      auto [relative, file] = Relative(entry);
      std::string in_box = entry.rfind("~/", 0) == 0 ? "~/" + relative : entry;
      add.folders.push_back({base + "/" + relative, in_box, file,
                             recipe.name + "'s settings and login (" + how + ")"});
    }
  }
  // Where a recipe path ("~/.claude/settings.json") is on the host, and in
  // the box's folders. With $VARIABLE, paths in the first folder are in the
  // named one, and a file beside it (~/.claude.json) is in it too.
  auto place = [&](const std::string& entry) -> std::pair<std::string, std::string> {
    auto [relative, file] = Relative(entry);
    if (named_folder.empty()) {
      std::string host = entry.rfind("~/", 0) == 0 ? context.home + "/" + relative : entry;
      return {host, base + "/" + relative};
    }
    std::string rest = relative.rfind(named_folder + "/", 0) == 0
                           ? relative.substr(named_folder.size())
                           : "/" + relative.substr(relative.rfind('/') + 1);
    return {named + rest, base + "/" + named_folder + rest};
  };
  AgentSeed& seed = run.seed;
  seed.agent = recipe.name;
  seed.base = base;
  seed.lock = base + ".lock";
  seed.copy = !recipe.own_settings;
  seed.known = recipe.copy.known();
  if (!seed.copy) return run;
  for (const SettingsFile& file : recipe.copy.settings) {
    auto [host, box] = place(file.path);
    seed.steps.push_back({SeedStep::kSettings, host, box, file.path, file.program_keys});
  }
  for (const auto& [list, kind] : {std::pair{&recipe.copy.logins, SeedStep::kLogin},
                                   std::pair{&recipe.copy.text, SeedStep::kText}}) {
    for (const std::string& path : *list) {
      auto [host, box] = place(path);
      seed.steps.push_back({kind, host, box, path, {}});
    }
  }
  // The login files the proxy holds tokens of, at the host's paths.
  for (LoginFile file : recipe.login_files) {
    file.path = place(file.path).first;
    add.login_files.push_back(std::move(file));
  }
  for (const std::string& path : recipe.copy.back) {
    auto [host, box] = place(path);
    seed.back.push_back({SeedStep::kText, box, host, path, {}});
  }
  return run;
}

std::string UnknownAgent(const std::vector<Recipe>& recipes, const std::string& name) {
  if (name.find('/') != std::string::npos || !FindInPath(name).empty()) return "";
  std::string closest = ClosestRecipe(recipes, name);
  if (closest.empty()) return "";
  return name + ": no agent has that name, and no program of that name is installed here "
                "(did you mean " + closest + "?). corral agents lists the agents; a program "
                "only the image has runs when given by its path";
}

Result<void> MakeAgentFolders(const AgentAdditions& additions) {
  for (const AgentFolder& folder : additions.folders) {
    struct stat st {};
    if (::lstat(folder.host.c_str(), &st) == 0) continue;
    std::error_code ec;
    std::filesystem::path path(folder.host);
    std::filesystem::create_directories(folder.file ? path.parent_path() : path, ec);
    if (ec) return Error("cannot create " + folder.host + " (" + folder.why + "): " + ec.message());
    if (!folder.file) continue;
    int fd = ::open(folder.host.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return Error::FromErrno("cannot create " + folder.host);
    bool json = path.extension() == ".json";
    bool written = !json || ::write(fd, "{}\n", 3) == 3;
    ::close(fd);
    if (!written) return Error::FromErrno("cannot write " + folder.host);
  }
  return Ok();
}

}  // namespace corral::launcher
