// Agents corral knows by name (recipes.cc holds their recipes, the one
// place in the tree), what a recipe adds to a session (apply.cc), and the
// agents' images (agent_image.cc): built through the engine on first use.
// Private to launcher/.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/base.h"
#include "launcher/session_plan.h"
#include "policy/config/config.h"

namespace corral::launcher {

class Engine;

// What of the host's settings the box's own folders get (agents.settings:
// copy), each path written as in Recipe::folders ("~/.claude/settings.json").
// Nothing else is copied in, and only `back` flows out again.
struct SettingsFile {
  std::string path;
  // Keys whose value the agent runs or uses to pick a program, left out:
  // "hooks", "projects.*.mcpServers.* if command" ("*" is any one key; with
  // "if KEY", only entries that hold KEY).
  std::vector<std::string> program_keys;
};
struct SettingsCopy {
  std::vector<SettingsFile> settings;  // parsed (JSON; TOML for .toml), program keys left out
  std::vector<std::string> logins;     // copied as they are, mode 0600
  std::vector<std::string> text;       // instructions: files and folders, regular files only,
                                       // no exec bits ("~/.claude/commands/")
  std::vector<std::string> back;       // folders of data whose new files go back to the host
  bool known() const { return !settings.empty() || !logins.empty() || !text.empty(); }
};

// One agent's recipe: built in, with the user's `agents.recipes` fields over it.
struct Recipe {
  std::string name;
  std::string package;    // npm package, "" when an installer is used
  std::string installer;  // shell command run as root in the image build
  std::string binary;     // the program's name (default: the agent's name)
  std::string version;    // pinned version, "" for: the host's, else the latest
  std::vector<std::string> folders;  // "~/.claude/" (a folder), "~/.claude.json" (a file)
  std::string folder_variable;       // names the one settings folder instead, when set
  std::vector<std::string> variables;  // login variables, passed by name when set
  // Which of `variables` are logins the session's proxy holds (the box gets
  // stand-ins): header, prefix, API hosts, base-URL variable. The rest (a
  // base URL, a model name) are passed as they are.
  std::vector<BoxLogin> logins;
  std::vector<LoginFile> login_files;  // subscription logins' files, paths as in copy.logins
  std::string logins_mode;  // "proxy" or "pass" (the recipe's `logins`); "": agents.logins
  std::vector<std::string> hosts;      // API and login hosts
  std::vector<std::string> run_without_asking;  // added when boxed
  std::vector<std::string> bypass;    // the agent's own sandbox-bypass switches
  std::vector<std::string> unboxed;   // added when unboxed
  std::vector<std::string> env;       // NAME=VALUE in the box
  std::vector<std::string> shell;     // $VARIABLE, /path or a name in PATH
  bool ask_first = false;
  // The box's folders are corral's (under its state folder), never the
  // user's: copied from the user's as `copy` says, or empty (`own`).
  bool own_settings = false;  // agents.settings: own (empty) rather than copy
  SettingsCopy copy;
  bool verified = false;      // CI builds and runs it on both engines
  bool built_in = true;       // false: only the user's config names it
};

// Built-in recipes with the user's fields over them, sorted built-in first.
Result<std::vector<Recipe>> Recipes(const policy::AgentsPolicy& agents);
// agents.logins: pass (the values in the box as they are), else proxy.
bool PassLogins(const policy::Policy& policy);
const Recipe* FindRecipe(const std::vector<Recipe>& recipes, const std::string& name);
// The recipe name closest to `name` (a typo), "" when none is close.
std::string ClosestRecipe(const std::vector<Recipe>& recipes, const std::string& name);
// "npm @anthropic-ai/claude-code" or "installer: curl ... | bash".
std::string InstallWay(const Recipe& recipe);

// ------------------------------------------------------------ a session

// Where the agent runs, as the session decided (DecideBox) and the user set it.
struct AgentContext {
  bool boxed = true;
  policy::Level level = policy::Level::kUnattended;
  std::string home;       // the user's home on the host
  std::string state_dir;  // corral's state folder (agents' own folders)
  std::function<const char*(const char*)> getenv;
  bool pass_logins = false;  // agents.logins: pass (a recipe's own `logins` wins)
};

// How the box's own settings folders are filled from the user's before a
// boxed session, and what flows back after it: full paths on this host.
struct SeedStep {
  enum Kind { kSettings, kLogin, kText } kind = kSettings;
  std::string from;  // the user's file or folder
  std::string to;    // the box's, under corral's state folder
  std::string shown; // "~/.claude/settings.json", for lines
  std::vector<std::string> program_keys;
  // A login file whose tokens the proxy holds: the box's copy, stand-ins in
  // place of them (written instead of `from`); with `stood_in` and no text,
  // it could not be made and the box gets none.
  bool stood_in = false;
  std::optional<std::string> text = std::nullopt;
};
struct AgentSeed {
  std::string agent;
  std::string base;  // the box's folders: nothing below it is followed through a link
  std::string lock;  // held while the box's folders are filled or read back
  std::vector<SeedStep> steps;
  std::vector<SeedStep> back;  // from: the box's folder, to: the user's
  bool copy = false;   // agents.settings: copy (else own: nothing is copied)
  bool known = false;  // the recipe says what may be copied
};

// What `corral run AGENT ARGS...` runs with the agent's recipe: the command
// (binary, the switch when boxed, the user's words) and what the box gets.
struct AgentRun {
  std::vector<std::string> command;
  AgentAdditions additions;
  AgentSeed seed;  // boxed only
};
// An error when unboxed with the agent's own sandbox-bypass switch, at a
// level other than off (its own sandbox is then the only one).
Result<AgentRun> ApplyRecipe(const Recipe& recipe, const std::vector<std::string>& command,
                             const AgentContext& context);
// For a name with no recipe that is one typo from an agent's and no program
// on this host: "clade: no agent has that name ... (did you mean claude?)";
// "" otherwise (it runs as given).
std::string UnknownAgent(const std::vector<Recipe>& recipes, const std::string& name);
// Makes the agent's folders that are not there yet, empty and the user's
// (a .json file gets {}), so the engine does not make them as root.
Result<void> MakeAgentFolders(const AgentAdditions& additions);

// `text` (JSON, or TOML when `toml`) without the keys `program_keys` names;
// `dropped` gets each key left out ("hooks", "mcpServers.local"). An error
// when the text does not parse: then nothing of it may be copied.
struct WithoutPrograms {
  std::string text;
  std::vector<std::string> dropped;
};
Result<WithoutPrograms> LeaveOutProgramKeys(std::string_view text, bool toml,
                                            const std::vector<std::string>& program_keys);

// Fills the box's own folders from the user's as `seed` says (settings
// without their program keys, logins, instructions), each file written
// whole and renamed into place; never writes into the user's folders. The
// lines say what was left out or not copied (a settings file that does not
// parse is not copied at all), for the start lines. A file the user does
// not have leaves the box's as it is.
Result<std::vector<std::string>> SeedAgentFolders(const AgentSeed& seed);
// After a session: each regular file in the box's `back` folders that the
// user's folder lacks or has older goes there (data only: no links, no exec
// bits; nothing is removed). Returns how many files went back.
Result<std::size_t> GiveBackAgentData(const AgentSeed& seed);

// ------------------------------------------------------------ the image

// The image tag of an agent at a version: corral-agent-NAME:VERSION
// ('+' in a version becomes '_', which a tag cannot hold).
std::string AgentImageTag(const std::string& agent, const std::string& version);
inline constexpr const char* kAgentImagePrefix = "corral-agent-";

// The first version-looking word of a program's --version output
// ("2.1.197 (Claude Code)", "codex-cli 0.171.0", "v1.2.3-beta.1,"): digits
// and at least one dot, a leading 'v' dropped; "" when there is none.
std::string VersionIn(const std::string& text);
// <0, 0, >0 as version `a` is older than, the same as, or newer than `b`:
// dot-separated numbers compared as numbers; a release is newer than its
// pre-releases ("1.2.0" > "1.2.0-beta.1").
int CompareVersions(const std::string& a, const std::string& b);

// Where an agent's version can come from, asked in this order after --version
// and the recipe's pin (seams: the tests give fakes).
struct VersionSources {
  // `BINARY --version` on this host: its output, or nullopt without the program.
  std::function<std::optional<std::string>(const std::string& binary)> host_output;
  // The versions of corral-agent-NAME images already on the engine.
  std::function<Result<std::vector<std::string>>(const std::string& agent)> built;
  // The newest version of an npm package on the user's registry.
  std::function<Result<std::string>(const std::string& package)> registry_latest;
};
struct AgentVersion {
  std::string version;
  std::string from;  // "--version", "the recipe", "this host's claude", ...
};
// Asked > the recipe's pin > the host's own BINARY --version > the newest
// image already built > the registry's latest ("latest" for an installer).
Result<AgentVersion> ChooseAgentVersion(const Recipe& recipe, const std::string& asked,
                                        const VersionSources& sources);
// The real sources; `engine` may be null (then no built image is asked).
VersionSources HostVersionSources(Engine* engine);
// ChooseAgentVersion with the host's sources: the version to build or use.
Result<std::string> AgentImageVersion(Engine* engine, const Recipe& recipe,
                                      const std::string& asked);

// The agent's image on the engine, built through the engine's API when it
// is missing: the Debian base (debian:bookworm-slim, else pulled, else made
// from this host's package sources with mmdebstrap and imported), the shared
// tools layer (images/agent/Dockerfile.tools), then the agent
// (images/agent/Dockerfile), a line per step on stderr. Returns the tag. A
// failed build tags nothing; the error follows the build's last lines.
Result<std::string> EnsureAgentImage(Engine& engine, const Recipe& recipe,
                                     const std::string& version, const std::string& ca_bundle,
                                     const std::string& shim_path, const std::string& shell_path);

// What mmdebstrap's output says of a failure: apt's own error and warning
// lines (E:, W:, Err: and its reason), at most a dozen, each short (else the
// output's last lines); and
// whether apt says the mirror could not be reached or answered 5xx, the one
// kind of failure that can pass by itself.
struct AptFailure {
  std::vector<std::string> lines;
  bool transient = false;
};
AptFailure ReadAptFailure(std::string_view output);

// corral's own image (the top-level Dockerfile: corral, corral-shim and
// corral-shell, the proxy as its entry point) on the same base, tagged
// corral:VERSION, built when missing. Returns the tag.
Result<std::string> EnsureCorralImage(Engine& engine, const std::string& version,
                                      const std::string& corral_path, const std::string& ca_bundle,
                                      const std::string& shim_path, const std::string& shell_path);

// The program's bytes without debug information (strip --strip-debug, when
// binutils is there), kept in corral's cache folder by the program's size
// and time, so only the first use after a build pays for it; the folder
// keeps the newest kStrippedKept copies of each program (PruneStripped).
Result<std::string> ProgramWithoutDebugInfo(const std::string& path);
inline constexpr std::size_t kStrippedKept = 3;
// Removes all but the `keep` newest files named NAME-* in `folder`. A
// corral reading one that goes strips its program again.
void PruneStripped(const std::string& folder, const std::string& name, std::size_t keep);

// Where an agent image's first build gets its Debian base: on the engine
// already, or made with mmdebstrap (a registry is tried first, which only
// the build itself can tell). `ready` is false when neither can be had here,
// and `fix` then says what to install or load (corral doctor).
struct BaseImagePlan {
  std::string image;  // "debian:bookworm-slim", "corral-debian:bookworm"
  std::string how;    // in words, for --print
  bool ready = false;
  std::string fix;
};
BaseImagePlan PlanBaseImage(Engine& engine);

// For --print: whether the agent's image is built, else what its build
// will start from (the Debian base there, or made from this host's sources).
std::string DescribeAgentImage(Engine& engine, const std::string& tag);

// corral's images on an engine: the agents', the tools layer, the base.
struct CorralImage {
  std::string tag;      // "corral-agent-claude:2.1.197" (no registry prefix)
  std::string agent;    // "claude"; "" for the tools layer and the base
  std::string version;  // the tag's version
  std::string id;
  long long size = 0;
  long long created = 0;  // seconds since the epoch
};
Result<std::vector<CorralImage>> ListCorralImages(Engine& engine);
// The tag an engine lists without the registry part Podman adds
// ("docker.io/library/x:1", "localhost/x:1" -> "x:1").
std::string ShortTag(const std::string& tag);

// images/agent/*, compiled into corral (cmake/embed_files.cmake): each
// file's name and bytes.
std::vector<std::pair<std::string_view, std::string_view>> AgentImageFiles();
// The top-level Dockerfile (corral's own image), compiled in the same way.
std::vector<std::pair<std::string_view, std::string_view>> CorralImageFiles();

}  // namespace corral::launcher
