// policy/config/: the user's settings. One key table (every key's type,
// default, environment variable and help), the loader that reads them from
// the YAML/JSON file, the environment and flags and remembers where each came
// from, and the typed Policy the rest of corral reads.
// The one public header of policy/config/ (docs/architecture.md).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>
#include "base/base.h"

namespace corral::policy {

enum class Level { kAlways, kUnattended, kOff };
enum class Undetermined { kDeny, kAllow };
enum class DangerousAction { kOff, kWarn, kDenyUnattended };
// The exec-time check (docs/exec-check.md): off where the box cannot run it,
// or a session that does not start (kRequire).
enum class ExecCheck { kOn, kRequire, kOff };
// The box's OCI runtime: the engine's own (runc, crun) or gVisor's runsc.
enum class BoxRuntime { kDefault, kGvisor };

enum class Origin { kDefault, kFile, kEnvironment, kFlag };
std::string_view OriginName(Origin origin);

// One key's resolved value and where it came from ("config.yaml:3:8",
// "CORRAL_LEVEL", "--level"), for `corral config show`.
struct Setting {
  nlohmann::json value;
  Origin origin = Origin::kDefault;
  std::string where;
};

// kRecipes: agent names to recipe fields (RecipeFields), a JSON object.
// kProjects: project folders to their own settings (ProjectSettings), a JSON object.
enum class KeyType { kString, kEnum, kStringList, kBool, kInt, kRecipes, kProjects };

// A row of the one table that defines every configuration key.
struct KeySpec {
  std::string_view name;  // dotted path, e.g. "dangerous.action"
  KeyType type;
  std::string_view default_json;  // JSON text of the default value
  std::string_view env;           // environment variable, "" when none
  std::string_view help;          // one line
  std::vector<std::string_view> choices;  // for kEnum
  // Each item of a list, or a string's value, must pass this (none: any);
  // the error says what is wrong and how to fix it, the loader says where.
  Result<void> (*check)(const std::string& text) = nullptr;
};
const std::vector<KeySpec>& Keys();

struct NetworkPolicy {
  std::vector<std::string> allowed_domains;
  std::vector<std::string> denied_domains;
  std::vector<std::string> allow_addresses;  // IPs or CIDRs
  std::string hosts_file;                    // hosts(5), before the system resolver
  int head_timeout_seconds = 10;
  int connect_timeout_seconds = 10;
  int idle_timeout_seconds = 600;
  int max_tunnels = 4096;
  std::vector<std::string> rules;    // network.rules: "[allow|deny] HOST METHODS PATH"
  std::vector<std::string> publish;  // registries.publish: kinds or hosts
};

// The project's git host and forge API (docs/forge.md): which repositories
// the box reaches, and the history rules while nobody watches.
struct ForgePolicy {
  std::vector<std::string> repositories;        // "owner/name", besides the project's remotes
  std::vector<std::string> protected_branches;  // besides each repository's default branch
  bool other_reads = true;                      // other repositories readable without the token
  bool history = true;                          // forge.history: enforce (false: allow)
  bool ssh = false;                             // forge.ssh: allow (the git host's ssh port)
};

struct SeccompPolicy {
  bool allow_ptrace = false;
  std::vector<std::string> allow;  // syscall names the user opens up
  std::vector<std::string> deny;   // syscall names the user closes
};

struct FilesystemPolicy {
  std::vector<std::string> deny_read;       // globs, matched inside the project
  std::vector<std::string> extra_writable;  // host paths
  std::vector<std::string> extra_readonly;  // host paths
};

struct LimitsPolicy {
  int pids = 1024;
  std::string memory = "4g";  // "" for none
  std::string cpus;           // "" for none
  bool require = false;       // a limit the engine cannot enforce stops the session
};

// How the user hears of a refusal while away, besides `corral inbox`.
struct NotifyPolicy {
  bool desktop = true;      // notify-send, where a desktop session can show it
  std::string webhook_url;  // "" = none; a JSON POST per refusal, retried
};

// Where an unattended run may start (docs/sessions.md, "Held runs").
struct HoldPolicy {
  bool unknown_folders = true;  // off: runs start anywhere (a machine that only runs CI)
  int wait_minutes = 30;        // how long a held run waits; 0 refuses at once
};

// Where the box's package caches live (docs/sessions.md, "Package caches").
struct CachesPolicy {
  bool shared = true;                     // caches.mode: one volume per tool, else per project
  std::vector<std::string> own_projects;  // full paths: per project although shared
};

struct PresencePolicy {
  std::vector<std::string> sources;  // "tty", "logind", "heartbeat"
  int idle_minutes = 10;
  std::string heartbeat_file;  // "" = <state dir>/heartbeat
};

// A recipe field the config may set under `agents.recipes.NAME` (the
// launcher's agents room gives each its meaning).
enum class RecipeFieldType { kString, kList, kBool };
struct RecipeFieldSpec {
  std::string_view name;
  RecipeFieldType type;
  std::string_view help;  // one line
};
const std::vector<RecipeFieldSpec>& RecipeFields();

// The user's own recipe for an agent: a new agent, or the fields it sets over
// corral's built-in recipe of that name. Only fields written in the config
// are present, keyed by their RecipeFields() name.
struct AgentRecipeConfig {
  std::map<std::string, std::string> strings;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, bool> flags;
};

struct AgentsPolicy {
  bool ask_first = false;         // boxed agents keep asking (no run-without-asking switch)
  bool own_settings = false;      // each agent's folders under corral's state folder
  std::map<std::string, AgentRecipeConfig> recipes;  // by agent name
  std::string recipes_where;      // where `agents.recipes` was set
};

// What `projects: {FOLDER: {...}}` in the user's file may set for one project
// (never read from the project itself). Unset fields keep the top level's.
struct ProjectSettings {
  std::optional<BoxRuntime> runtime;
  std::optional<bool> review;  // review mode by default (docs/sessions.md, "Review mode")
};

// The user's policy: immutable once loaded and validated.
struct Policy {
  Level level = Level::kUnattended;
  std::vector<std::string> deny_unattended;
  Undetermined undetermined = Undetermined::kDeny;
  DangerousAction dangerous_action = DangerousAction::kWarn;
  ExecCheck exec_check = ExecCheck::kOn;
  BoxRuntime runtime = BoxRuntime::kDefault;
  NetworkPolicy network;
  ForgePolicy forge;
  SeccompPolicy seccomp;
  FilesystemPolicy filesystem;
  LimitsPolicy limits;
  std::string image;
  std::string engine;
  std::vector<std::string> pass;  // variable names
  PresencePolicy presence;
  HoldPolicy hold;
  CachesPolicy caches;
  NotifyPolicy notify;
  AgentsPolicy agents;
  std::map<std::string, ProjectSettings> projects;  // by absolute project folder

  std::string config_path;                  // the file read, "" when none
  std::map<std::string, Setting> settings;  // every key, with its origin
};

struct LoadOptions {
  // --config; when empty, CORRAL_CONFIG, then $XDG_CONFIG_HOME/corral/config.yaml
  // (or ~/.config/corral/config.yaml). A missing default file is fine; a
  // missing named file is an error.
  std::string config_path;
  // Flag overrides, highest precedence: key -> value text and the flag's name.
  struct Override {
    std::string key;
    std::string value;
    std::string flag;
  };
  std::vector<Override> overrides;
  // Environment lookup; tests inject a fake. Defaults to std::getenv.
  std::function<const char*(const char*)> getenv;
};

Result<Policy> Load(const LoadOptions& options);

// The config file Load would read ("" when no location can be named), so a
// watcher can notice when it is created or edited.
std::string ResolveConfigPath(const LoadOptions& options);

// The policy for the project at `project_dir`: its `projects:` entry over the
// file's top level; a setting given in the environment or as a flag
// (CORRAL_RUNTIME, --runtime) stays as given.
Policy ForProject(const Policy& policy, const std::string& project_dir);

// corral's state folder: $XDG_STATE_HOME/corral, else ~/.local/state/corral.
std::string StateDir();

}  // namespace corral::policy
