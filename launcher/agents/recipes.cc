// The agents corral knows by name: one recipe each, the one place in the tree
// that says how an agent is installed, where it keeps its settings and login,
// which variables and hosts its login needs, and how it runs without asking.
// A user's `agents.recipes` adds agents or sets fields over these.
#include <algorithm>

#include "base/strings.h"
#include "launcher/agents/agents.h"

namespace corral::launcher {
namespace {

using Words = std::vector<std::string>;

// The shells every agent may look up: $SHELL, bash and sh by path and by
// name. Claude Code also reads CLAUDE_CODE_SHELL.
Words Shells(Words first = {}) {
  for (const char* way : {"$SHELL", "/bin/bash", "/bin/sh", "bash"}) first.push_back(way);
  return first;
}

Recipe Npm(std::string name, std::string package, Words folders, std::string folder_variable,
           Words variables, Words hosts, Words switch_words, Words bypass, Words shell,
           bool verified) {
  Recipe r;
  r.name = std::move(name);
  r.package = std::move(package);
  r.folders = std::move(folders);
  r.folder_variable = std::move(folder_variable);
  r.variables = std::move(variables);
  r.hosts = std::move(hosts);
  r.run_without_asking = std::move(switch_words);
  r.bypass = std::move(bypass);
  r.shell = std::move(shell);
  r.verified = verified;
  return r;
}

// A login the proxy holds: in `header` after `prefix`, to `hosts` at 443, or
// to the host:port of the URL in `base_url` when that variable is set.
BoxLogin Login(std::string variable, std::string header, std::string prefix, Words hosts,
               std::string base_url) {
  return {std::move(variable), std::move(header), std::move(prefix), std::move(hosts),
          std::move(base_url), ""};
}

// A token in a login file: at `pointer`, `field` in the token endpoint's
// answer, sent as `login` says.
LoginFile::Token Token(std::string pointer, std::string field, BoxLogin login) {
  return {std::move(pointer), std::move(field), std::move(login)};
}

// A token sent only in the body of a request to `hosts` (a refresh token
// to the token endpoint), never in a header.
BoxLogin InBody(std::string name, Words hosts) {
  BoxLogin login = Login(std::move(name), "", "", std::move(hosts), "");
  login.in_body = true;
  return login;
}

// The subscription logins' files, whose tokens the proxy holds. Claude
// Code's /login keeps an OAuth access token (sent as Bearer to the API) and
// a refresh token, which it sends to its TOKEN_URL,
// platform.claude.com/v1/oauth/token (read from Claude Code 2.1.332). Codex's
// ChatGPT login keeps tokens in auth.json: the access token goes to
// chatgpt.com's backend API, the refresh and id tokens only to
// auth.openai.com/oauth/token (developers.openai.com/codex/auth); an API key
// there goes to the API as OPENAI_API_KEY would.
std::vector<LoginFile> LoginFilesOf(const std::string& agent) {
  if (agent == "claude") {
    LoginFile file{"~/.claude/.credentials.json", {}, {"https://platform.claude.com/v1/oauth/token"},
                   "/claudeAiOauth/expiresAt", ""};
    file.tokens = {
        Token("/claudeAiOauth/accessToken", "access_token",
              Login("claude subscription token", "Authorization", "Bearer ", {"api.anthropic.com"},
                    "ANTHROPIC_BASE_URL")),
        Token("/claudeAiOauth/refreshToken", "refresh_token",
              InBody("claude subscription refresh token", {"platform.claude.com"}))};
    return {file};
  }
  if (agent == "codex") {
    LoginFile file{"~/.codex/auth.json", {}, {"https://auth.openai.com/oauth/token"}, "", "/last_refresh"};
    file.tokens = {
        Token("/tokens/access_token", "access_token",
              Login("codex chatgpt token", "Authorization", "Bearer ", {"chatgpt.com"}, "")),
        Token("/tokens/refresh_token", "refresh_token",
              InBody("codex chatgpt refresh token", {"auth.openai.com"})),
        Token("/tokens/id_token", "id_token", InBody("codex chatgpt id token", {"auth.openai.com"})),
        Token("/OPENAI_API_KEY", "",
              Login("codex api key (auth.json)", "Authorization", "Bearer ", {"api.openai.com"},
                    "OPENAI_BASE_URL"))};
    return {file};
  }
  return {};
}

// Anthropic's API takes an API key in `x-api-key`, and an OAuth or gateway
// token in `Authorization: Bearer` (docs.anthropic.com/en/api/overview;
// ANTHROPIC_AUTH_TOKEN in code.claude.com/docs/en/settings). Its SDKs, and
// Claude Code, read ANTHROPIC_BASE_URL.
std::vector<BoxLogin> AnthropicLogins(bool tokens) {
  std::vector<BoxLogin> logins = {
      Login("ANTHROPIC_API_KEY", "x-api-key", "", {"api.anthropic.com"}, "ANTHROPIC_BASE_URL")};
  if (tokens) {
    for (const char* token : {"ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"}) {
      logins.push_back(Login(token, "Authorization", "Bearer ", {"api.anthropic.com"},
                             "ANTHROPIC_BASE_URL"));
    }
  }
  return logins;
}

// OpenAI's API takes its key in `Authorization: Bearer`
// (platform.openai.com/docs/api-reference/authentication); its SDKs, and
// Codex, read OPENAI_BASE_URL. Codex also reads CODEX_API_KEY
// (developers.openai.com/codex/auth).
std::vector<BoxLogin> OpenAiLogins(Words variables) {
  std::vector<BoxLogin> logins;
  for (std::string& variable : variables) {
    logins.push_back(Login(std::move(variable), "Authorization", "Bearer ", {"api.openai.com"},
                           "OPENAI_BASE_URL"));
  }
  return logins;
}

// Google's Gemini API takes its key in `x-goog-api-key` (the @google/genai
// SDK, which Gemini CLI bundles); Gemini CLI reads GOOGLE_GEMINI_BASE_URL.
std::vector<BoxLogin> GeminiLogins(Words variables) {
  std::vector<BoxLogin> logins;
  for (std::string& variable : variables) {
    logins.push_back(Login(std::move(variable), "x-goog-api-key", "", {"generativelanguage.googleapis.com"},
                           "GOOGLE_GEMINI_BASE_URL"));
  }
  return logins;
}

// An OpenAI-compatible API (`Authorization: Bearer`) at `hosts`.
std::vector<BoxLogin> BearerLogins(Words variables, Words hosts, std::string base_url) {
  std::vector<BoxLogin> logins;
  for (std::string& variable : variables) {
    logins.push_back(Login(std::move(variable), "Authorization", "Bearer ", hosts, base_url));
  }
  return logins;
}

// The logins the proxy holds for each agent, each header and host read from
// the agent's own package. An agent not here (copilot's
// COPILOT_GITHUB_TOKEN, amp, droid, letta) keeps its login variables in the
// box as they are, until its header and hosts are checked (docs/logins.md).
std::vector<BoxLogin> LoginsOf(const std::string& agent) {
  std::vector<BoxLogin> logins;
  auto add = [&logins](std::vector<BoxLogin> more) {
    logins.insert(logins.end(), more.begin(), more.end());
  };
  if (agent == "claude") add(AnthropicLogins(true));
  if (agent == "codex") add(OpenAiLogins({"OPENAI_API_KEY", "CODEX_API_KEY"}));
  // Both through the providers' own SDKs (AI SDK for opencode).
  if (agent == "opencode" || agent == "pi") {
    add(AnthropicLogins(false));
    add(OpenAiLogins({"OPENAI_API_KEY"}));
  }
  if (agent == "opencode") add(BearerLogins({"OPENROUTER_API_KEY"}, {"openrouter.ai"}, ""));
  if (agent == "gemini") add(GeminiLogins({"GEMINI_API_KEY", "GOOGLE_API_KEY"}));
  if (agent == "pi") add(GeminiLogins({"GEMINI_API_KEY"}));
  // Qwen Code speaks the OpenAI API, to DashScope unless OPENAI_BASE_URL says.
  if (agent == "qwen") {
    add(BearerLogins({"OPENAI_API_KEY", "DASHSCOPE_API_KEY"},
                     {"dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"},
                     "OPENAI_BASE_URL"));
  }
  // Kimi Code's providers are @ai-sdk/openai-compatible (Bearer).
  if (agent == "kimi") {
    add(BearerLogins({"KIMI_API_KEY"}, {"api.kimi.com"}, "KIMI_BASE_URL"));
    add(BearerLogins({"MOONSHOT_API_KEY"}, {"api.moonshot.ai"}, ""));
  }
  return logins;
}

// What of each agent's settings its box gets (agents.settings: copy): the
// files with keys that run programs, as each agent documents them, with
// those keys; its login files; its instructions (memory, commands, agents,
// skills); and the data that may flow back. An agent not named here gets
// empty folders: corral copies nothing it does not know to be safe.
SettingsCopy CopyOf(const std::string& agent) {
  SettingsCopy c;
  // An MCP server entry with `command` is a program the agent starts; one
  // with a URL is not.
  const std::string mcp = "mcpServers.* if command";
  if (agent == "claude") {
    c.settings = {{"~/.claude/settings.json",
                   {"hooks", "apiKeyHelper", "statusLine", "fileSuggestion", "awsAuthRefresh",
                    "awsCredentialExport", "otelHeadersHelper", "enabledPlugins",
                    "extraKnownMarketplaces", "enableAllProjectMcpServers",
                    "enabledMcpjsonServers", "disableAllHooks"}},
                  {"~/.claude.json",
                   {mcp, "projects.*." + mcp, "projects.*.enabledMcpjsonServers",
                    "projects.*.enableAllProjectMcpServers"}}};
    c.logins = {"~/.claude/.credentials.json"};
    c.text = {"~/.claude/CLAUDE.md", "~/.claude/commands/", "~/.claude/agents/",
              "~/.claude/skills/", "~/.claude/output-styles/"};
    c.back = {"~/.claude/projects/"};
  } else if (agent == "codex") {
    c.settings = {{"~/.codex/config.toml",
                   {"notify", "mcp_servers.* if command", "profiles.*.notify", "hooks",
                    "zsh_path", "model_providers.*.auth"}}};
    c.logins = {"~/.codex/auth.json"};
    c.text = {"~/.codex/AGENTS.md", "~/.codex/prompts/", "~/.codex/skills/"};
    c.back = {"~/.codex/sessions/"};
  } else if (agent == "gemini" || agent == "qwen") {
    const std::string folder = "~/." + agent + "/";
    c.settings = {{folder + "settings.json",
                   {mcp, "mcp.serverCommand", "tools.discoveryCommand", "tools.callCommand",
                    "toolDiscoveryCommand", "toolCallCommand", "hooks", "sandbox",
                    "tools.sandbox"}}};
    c.logins = {folder + "oauth_creds.json", folder + "google_accounts.json", folder + ".env"};
    c.text = {folder + (agent == "gemini" ? "GEMINI.md" : "QWEN.md"), folder + "commands/"};
  } else if (agent == "opencode") {
    for (const char* name : {"opencode.json", "opencode.jsonc", "config.json"}) {
      c.settings.push_back({std::string("~/.config/opencode/") + name,
                            {"mcp.* if command", "plugin", "formatter", "lsp", "experimental"}});
    }
    c.logins = {"~/.local/share/opencode/auth.json"};
    c.text = {"~/.config/opencode/AGENTS.md", "~/.config/opencode/agent/",
              "~/.config/opencode/command/"};
  } else if (agent == "copilot") {
    c.settings = {{"~/.copilot/config.json", {"hooks"}},
                  {"~/.copilot/mcp-config.json", {mcp}}};
    c.text = {"~/.copilot/agents/"};
  } else if (agent == "amp") {
    c.settings = {{"~/.config/amp/settings.json",
                   {"amp.mcpServers.* if command", "amp.toolbox.path", "amp.hooks"}}};
    c.logins = {"~/.local/share/amp/secrets.json"};
    c.text = {"~/.config/amp/AGENTS.md"};
  } else if (agent == "droid") {
    c.settings = {{"~/.factory/settings.json", {"hooks", "statusLine"}},
                  {"~/.factory/mcp.json", {mcp}}};
    c.logins = {"~/.factory/auth.json"};
    c.text = {"~/.factory/AGENTS.md", "~/.factory/droids/", "~/.factory/commands/"};
  } else if (agent == "pi") {
    c.settings = {{"~/.pi/agent/settings.json",
                   {"hooks", "customTools", "extensions", "packages", "shellPath"}}};
    c.logins = {"~/.pi/agent/auth.json"};
    c.text = {"~/.pi/agent/AGENTS.md", "~/.pi/agent/prompts/"};
  }
  return c;
}

// `verified`: tests/images/agent_images.py builds the image and runs the
// agent on Docker and Podman in CI (its AGENTS list; recipes_test.cc keeps
// the two the same).
std::vector<Recipe> BuiltIn() {
  std::vector<Recipe> r;
  r.push_back(Npm("claude", "@anthropic-ai/claude-code", {"~/.claude/", "~/.claude.json"},
                  "CLAUDE_CONFIG_DIR",
                  {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
                   "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"},
                  // platform.claude.com: its login flow and token refresh
                  // (Claude Code 2.1.332 reaches it at start). Left out on
                  // purpose, as no login needs them (tests/agents/
                  // login_flow_hosts.py): raw.githubusercontent.com (release
                  // notes), downloads.claude.ai and github.com (plugin
                  // marketplace).
                  {"api.anthropic.com", "console.anthropic.com", "platform.claude.com",
                   "claude.ai", "statsig.anthropic.com"},
                  {"--dangerously-skip-permissions"},
                  {"--dangerously-skip-permissions", "--permission-mode=bypassPermissions"},
                  Shells({"$CLAUDE_CODE_SHELL"}), true));
  // Claude Code refuses its switch as root unless told it is in a sandbox;
  // the box is one.
  r.back().env = {"IS_SANDBOX=1", "DISABLE_AUTOUPDATER=1"};
  r.push_back(Npm("codex", "@openai/codex", {"~/.codex/"}, "CODEX_HOME",
                  {"OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"},
                  // Left out on purpose, as no login needs them (tests/agents/
                  // login_flow_hosts.py): github.com, api.github.com (curated
                  // plugins, update check), raw.githubusercontent.com
                  // (announcements), ab.chatgpt.com (feature flags).
                  {"api.openai.com", "auth.openai.com", "chatgpt.com"},
                  // Its shell snapshot evals computed text, which the deny
                  // list's check refuses while nobody watches: off in a box.
                  // Its shared background server (0.171.0) ends Codex at
                  // start without `ps`, and with it a project's first run
                  // asks to restart it with the box's settings; a box lives
                  // one session, nothing shares it: off. A `-c`, as an older
                  // Codex ignores a feature it lacks (not so `--no-daemon`).
                  {"--dangerously-bypass-approvals-and-sandbox", "-c",
                   "features.shell_snapshot=false", "-c", "features.daemon_auto_start=false"},
                  {"--dangerously-bypass-approvals-and-sandbox", "--yolo",
                   "--sandbox=danger-full-access"},
                  Shells(), true));
  r.push_back(Npm("gemini", "@google/gemini-cli", {"~/.gemini/"}, "",
                  {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT",
                   "GOOGLE_GENAI_USE_VERTEXAI"},
                  {"generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com",
                   "oauth2.googleapis.com", "accounts.google.com"},
                  {"--yolo"}, {"--yolo", "--approval-mode=yolo"}, Shells(), true));
  r.push_back(Npm("opencode", "opencode-ai", {"~/.config/opencode/", "~/.local/share/opencode/", "~/.local/state/opencode/"},
                  "", {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY"},
                  {"opencode.ai", "models.dev", "api.anthropic.com", "api.openai.com", "openrouter.ai"}, {}, {},
                  Shells(), true));
  r.push_back(Npm("copilot", "@github/copilot", {"~/.copilot/"}, "COPILOT_HOME",
                  {"COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"},
                  {"api.githubcopilot.com", "api.individual.githubcopilot.com", "api.github.com",
                   "github.com"},
                  {"--allow-all"}, {"--allow-all", "--allow-all-tools", "--yolo"}, Shells(), true));
  Recipe cursor = Npm("cursor", "", {"~/.cursor/", "~/.config/cursor/"}, "CURSOR_CONFIG_DIR",
                      {"CURSOR_API_KEY"}, {"api2.cursor.sh", "cursor.com", "www.cursor.com"},
                      {"--force"}, {"--force"}, Shells(), false);
  cursor.installer = "curl -fsS https://cursor.com/install | bash";
  cursor.binary = "cursor-agent";
  r.push_back(cursor);
  r.push_back(Npm("amp", "@sourcegraph/amp", {"~/.config/amp/", "~/.local/share/amp/"}, "",
                  {"AMP_API_KEY"}, {"ampcode.com"}, {"--dangerously-allow-all"},
                  {"--dangerously-allow-all"}, Shells(), true));
  // Amp (a Bun program) unpacks a native module to TMPDIR and loads it; the
  // box's /tmp is noexec, so its TMPDIR is the box's HOME (a volume).
  r.back().env = {"TMPDIR=~"};
  r.push_back(Npm("qwen", "@qwen-code/qwen-code", {"~/.qwen/"}, "QWEN_HOME",
                  {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "DASHSCOPE_API_KEY"},
                  {"dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com", "chat.qwen.ai"},
                  {"--yolo"}, {"--yolo", "--approval-mode=yolo"}, Shells(), true));
  r.push_back(Npm("droid", "droid", {"~/.factory/"}, "", {"FACTORY_API_KEY"},
                  {"api.factory.ai", "app.factory.ai"}, {"--auto", "high"},
                  {"--skip-permissions-unsafe"}, Shells(), true));
  r.push_back(Npm("kimi", "@moonshot-ai/kimi-code", {"~/.kimi-code/"}, "KIMI_CODE_HOME",
                  {"KIMI_API_KEY", "MOONSHOT_API_KEY"}, {"api.moonshot.ai", "api.kimi.com"},
                  {"--auto"}, {"--auto", "--yolo"}, Shells(), true));
  r.push_back(Npm("pi", "@mariozechner/pi-coding-agent", {"~/.pi/agent/"}, "PI_CODING_AGENT_DIR",
                  {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"},
                  {"api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"},
                  {}, {}, Shells(), true));
  r.push_back(Npm("letta", "@letta-ai/letta-code", {"~/.letta/"}, "",
                  {"LETTA_API_KEY", "LETTA_BASE_URL"}, {"api.letta.com"}, {"--yolo"}, {"--yolo"},
                  Shells(), false));
  for (Recipe& recipe : r) {
    recipe.copy = CopyOf(recipe.name);
    recipe.logins = LoginsOf(recipe.name);
    recipe.login_files = LoginFilesOf(recipe.name);
  }
  // Codex keeps its own sandbox when unboxed: nothing else stands between it
  // and the machine.
  for (Recipe& recipe : r) {
    if (recipe.name == "codex") recipe.unboxed = {"--sandbox", "workspace-write"};
    if (recipe.binary.empty()) recipe.binary = recipe.name;
  }
  return r;
}

// The user's fields over a recipe (policy/config/agent_recipes.cc checked them).
void Overlay(Recipe& recipe, const policy::AgentRecipeConfig& config) {
  const std::pair<const char*, std::string*> strings[] = {
      {"package", &recipe.package},   {"installer", &recipe.installer},
      {"binary", &recipe.binary},     {"version", &recipe.version},
      {"folder_variable", &recipe.folder_variable}};
  for (const auto& [field, target] : strings) {
    if (auto it = config.strings.find(field); it != config.strings.end()) *target = it->second;
  }
  // An installer written by the user replaces the package, and the other way round.
  if (config.strings.count("installer") && !config.strings.count("package")) recipe.package = "";
  if (config.strings.count("package") && !config.strings.count("installer")) recipe.installer = "";
  const std::pair<const char*, std::vector<std::string>*> lists[] = {
      {"folders", &recipe.folders},
      {"variables", &recipe.variables},
      {"hosts", &recipe.hosts},
      {"run_without_asking", &recipe.run_without_asking},
      {"bypass", &recipe.bypass},
      {"unboxed", &recipe.unboxed},
      {"env", &recipe.env},
      {"shell", &recipe.shell}};
  for (const auto& [field, target] : lists) {
    if (auto it = config.lists.find(field); it != config.lists.end()) *target = it->second;
  }
  if (auto it = config.flags.find("ask_first"); it != config.flags.end()) {
    recipe.ask_first = it->second;
  }
  if (auto it = config.strings.find("settings"); it != config.strings.end()) {
    recipe.own_settings = it->second == "own";
  }
  if (auto it = config.strings.find("logins"); it != config.strings.end()) {
    recipe.logins_mode = it->second;
  }
  if (recipe.binary.empty()) recipe.binary = recipe.name;
  // What CI verified is the built-in recipe, not this one.
  recipe.verified = false;
}

}  // namespace

Result<std::vector<Recipe>> Recipes(const policy::AgentsPolicy& agents) {
  std::vector<Recipe> recipes = BuiltIn();
  for (Recipe& recipe : recipes) {
    recipe.ask_first = agents.ask_first;
    recipe.own_settings = agents.own_settings;
  }
  for (const auto& [name, config] : agents.recipes) {
    auto it = std::find_if(recipes.begin(), recipes.end(),
                           [&name = name](const Recipe& r) { return r.name == name; });
    if (it == recipes.end()) {
      Recipe added;
      added.name = name;
      added.built_in = false;
      added.ask_first = agents.ask_first;
      added.own_settings = agents.own_settings;
      added.shell = Shells();
      recipes.push_back(added);
      it = recipes.end() - 1;
    }
    Overlay(*it, config);
    if (it->package.empty() && it->installer.empty()) {
      return Error("agents.recipes." + name + " (" + agents.recipes_where +
                   "): a new agent needs `package` (its npm package) or `installer`");
    }
  }
  return recipes;
}

bool PassLogins(const policy::Policy& policy) {
  auto it = policy.settings.find("agents.logins");
  return it != policy.settings.end() && it->second.value == "pass";
}

const Recipe* FindRecipe(const std::vector<Recipe>& recipes, const std::string& name) {
  for (const Recipe& recipe : recipes) {
    if (recipe.name == name) return &recipe;
  }
  return nullptr;
}

std::string ClosestRecipe(const std::vector<Recipe>& recipes, const std::string& name) {
  std::vector<std::string> names;
  for (const Recipe& recipe : recipes) names.push_back(recipe.name);
  return Nearest(name, names);
}

std::string InstallWay(const Recipe& recipe) {
  return recipe.package.empty() ? "installer: " + recipe.installer : "npm " + recipe.package;
}

}  // namespace corral::launcher
