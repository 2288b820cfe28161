// corral allow: the folders where a run may start unattended
// (docs/sessions.md, "Held runs"), kept in corral's state folder.
// Allowing a folder releases every run held in it or in a folder inside it.
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/hold/hold.h"
#include "launcher/config_import/config_import.h"
#include "launcher/launcher.h"
#include "policy/network/network.h"
#include "launcher/plan/plan.h"

namespace corral::cli {
namespace {

struct AllowOptions {
  std::string folder;  // DIR
  bool list = false;
  bool remove = false;
  // --host NAME [--project]: a host the proxy may reach in later sessions,
  // in the user's config (network.allowed_domains) or this project's list.
  std::string host;
  bool project = false;
};

// Adds `host` to network.allowed_domains in the user's config file (a copy
// of the old file is kept), or, with --project, to this project's list in
// corral's state.
int AllowHost(const AllowOptions& options, const Globals& globals) {
  if (auto entry = policy::ParseDomainEntry(options.host); !entry) {
    return Fail(entry.error().Context("--host"), kExitUsage);
  }
  if (options.project) {
    std::error_code ec;
    std::string project = launcher::ProjectFolderOf(std::filesystem::current_path(ec).string());
    auto added = launcher::AddProjectHost(policy::StateDir(), project, options.host);
    if (!added) return Fail(added.error(), kExitRefused);
    std::cout << (*added ? "allowed " : "already allowed: ") << options.host << " for sessions in "
              << project << " (kept in " << launcher::ProjectHostsPath(policy::StateDir())
              << ")\n";
    return kExitOk;
  }
  auto source = PolicySource(globals);
  if (!source) return Fail(source.error(), kExitUsage);
  std::string config = policy::ResolveConfigPath(*source);
  config_import::Translation translation;
  translation.Append("network.allowed_domains", {options.host}, "corral allow --host");
  auto merge = config_import::PlanMerge(translation, config);
  if (!merge) return Fail(merge.error(), kExitRefused);
  if (!merge->changed) {
    std::cout << "already allowed: " << options.host << " (in " << config << ")\n";
    return kExitOk;
  }
  if (auto ok = config_import::WriteMerge(*merge); !ok) {
    return Fail(ok.error(), kExitRefused);
  }
  std::cout << "allowed " << options.host << " for later sessions (network.allowed_domains in "
            << config << (merge->backup_path.empty() ? "" : "; the old file is " +
                                                                merge->backup_path)
            << ")\n";
  return kExitOk;
}

std::string Home() {
  const char* home = std::getenv("HOME");
  return home ? home : "";
}

int List(const std::string& state_dir) {
  auto known = launcher::ReadKnownFolders(state_dir);
  if (!known) return Fail(known.error(), kExitRefused);
  if (known->allowed.empty() && known->attended.empty()) {
    std::cout << "No folders are allowed yet: corral allow DIR adds one.\n";
  }
  for (const auto& dir : known->allowed) std::cout << dir << "\n";
  for (const auto& dir : known->attended) {
    std::cout << dir << "  (an attended session started here)\n";
  }
  return kExitOk;
}

int Remove(const std::string& state_dir, const std::string& folder) {
  // The folder may be gone by now: then it is matched as written.
  std::string dir = launcher::CanonicalFolder(folder);
  bool found = false;
  auto ok = launcher::UpdateKnownFolders(state_dir, [&](launcher::KnownFolders& known) {
    for (auto* list : {&known.allowed, &known.attended}) {
      found = std::erase(*list, dir) > 0 || found;
    }
    return found;
  });
  if (!ok) return Fail(ok.error(), kExitRefused);
  if (!found) {
    return Fail(Error(dir + " is not an allowed folder (corral allow --list shows them)"),
                kExitRefused);
  }
  std::cout << "removed " << dir << ": runs started there unattended will be held again\n";
  return kExitOk;
}

int Allow(const policy::Policy& policy, const std::string& state_dir, const std::string& folder) {
  std::string dir = launcher::CanonicalFolder(folder);
  if (!std::filesystem::is_directory(dir)) {
    return Fail(Error(folder + " is not a folder: name the project folder to allow"), kExitUsage);
  }
  auto host = launcher::HostFoldersFor(policy, launcher::HostPlanInput(policy));
  if (!host) return Fail(host.error(), kExitUsage);
  if (std::string why = launcher::NeverAProject(dir, *host); !why.empty()) {
    return Fail(Error("not allowed: " + why), kExitRefused);
  }
  // Read first: a released run removes its record as soon as it sees the change.
  auto held = launcher::ListHeld(state_dir);
  if (!held) return Fail(held.error(), kExitRefused);
  bool added = false;
  auto ok = launcher::UpdateKnownFolders(state_dir, [&](launcher::KnownFolders& known) {
    for (const auto& allowed : known.allowed) {
      if (allowed == dir) return false;
    }
    known.allowed.push_back(dir);
    return added = true;
  });
  if (!ok) return Fail(ok.error(), kExitRefused);
  std::cout << (added ? "allowed " : "already allowed: ") << dir << "\n";
  // The held runs see the change themselves; this names the ones it frees.
  launcher::KnownFolders just_this{{dir}, {}};
  for (const auto& run : *held) {
    if (launcher::IsKnown(just_this, run.folder)) {
      std::cout << "released: " << launcher::DescribeHeld(run, Home(), std::time(nullptr))
                << " (pid " << run.pid << ")\n";
    }
  }
  return kExitOk;
}

int Run(const AllowOptions& options, const Globals& globals) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  const std::string state_dir = policy::StateDir();
  if (!options.host.empty()) {
    if (!options.folder.empty() || options.list || options.remove) {
      return Fail(Error("--host takes no folder, --list or --remove: corral allow --host NAME "
                        "[--project]"),
                  kExitUsage);
    }
    return AllowHost(options, globals);
  }
  if (options.project) return Fail(Error("--project goes with --host NAME"), kExitUsage);
  if (options.list) return List(state_dir);
  if (options.folder.empty()) {
    return Fail(Error("name the folder: corral allow DIR (or --list)"), kExitUsage);
  }
  if (options.remove) return Remove(state_dir, options.folder);
  return Allow(*policy, state_dir, options.folder);
}

}  // namespace

void AddAllowCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<AllowOptions>();
  CLI::App* sub = app.add_subcommand(
      "allow",
      "Allow a folder where runs may start while nobody watches (releases held runs), or a host");
  sub->add_option("DIR", options->folder, "The folder (it and every folder inside it)");
  sub->add_flag("--list", options->list, "List the allowed folders");
  sub->add_flag("--remove", options->remove, "Remove DIR from the allowed folders");
  sub->add_option("--host", options->host,
                  "A host the proxy may reach in later sessions (api.example.com, "
                  "*.example.com, host:port): added to network.allowed_domains in your config");
  sub->add_flag("--project", options->project,
                "With --host: for this project's sessions only (kept in corral's state)");
  sub->footer(
      "A run started unattended (--headless, without a terminal, or nobody watching) starts\n"
      "only in a folder allowed here or where an attended session started before; elsewhere\n"
      "it is held (corral held lists it) until its folder is allowed. Your home folder, /,\n"
      "corral's own folders and the agents' settings folders can never be allowed.\n"
      "Exit status: 0 done, 1 refused (a folder that is never a project), 2 bad input.\n"
      "Examples:\n"
      "  corral allow ~/src/shop        (releases runs held in ~/src/shop and inside it)\n"
      "  corral allow --list\n"
      "  corral allow --remove ~/src/shop\n"
      "  corral allow --host api.example.com            (a host the last session was refused)\n"
      "  corral allow --host pypi.internal:8443 --project\n");
  sub->callback([options, &globals] { globals.exit_code = Run(*options, globals); });
}

}  // namespace corral::cli
