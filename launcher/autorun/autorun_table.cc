// The one table of the project's auto-run files: what a tool on the host
// runs, or uses to pick a program to run, without the user asking. Rows
// that are not held say why (docs/sessions.md renders this table).
#include <algorithm>
#include <sstream>

#include "launcher/autorun/autorun.h"

namespace corral::launcher::autorun {
namespace {

const std::vector<Row> kTable = {
    // git: read-only in the box (plan.cc AddGitMounts), compared all the same.
    {Root::kRepo, "hooks/", "git", "hooks run on commit, checkout, merge, push"},
    {Root::kRepo, "config", "git",
     "names programs git runs: core.hooksPath, core.fsmonitor, core.sshCommand, `!` aliases, "
     "filter, diff and merge drivers, credential helpers"},
    {Root::kRepo, "config.worktree", "git", "read as config when extensions.worktreeConfig is on"},
    {Root::kRepo, "modules/*/hooks/", "git (submodules)", "a submodule's hooks"},
    {Root::kRepo, "modules/*/config", "git (submodules)", "a submodule's config"},
    {Root::kRepo, "modules/*/modules/*/hooks/", "git (nested submodules)", "their hooks"},
    {Root::kRepo, "modules/*/modules/*/config", "git (nested submodules)", "their config"},
    {Root::kWorktree, ".git", "git (worktree)",
     "the .git file names the gitdir whose hooks and config git uses"},
    {Root::kGitDir, "commondir", "git (worktree)", "names the repository whose hooks git runs"},
    {Root::kGitDir, "config.worktree", "git (worktree)",
     "this worktree's config when extensions.worktreeConfig is on"},
    {Root::kHooksPath, "", "git",
     "the folder core.hooksPath names (read from the git config as text), when in the project"},
    {Root::kProject, ".husky/", "husky (git hooks)", "husky points core.hooksPath here"},
    {Root::kProject, ".pre-commit-config.yaml", "pre-commit",
     "its git hook runs what it lists (`language: system` runs any program)"},
    {Root::kProject, "lefthook.yml", "lefthook", "its git hooks run the commands it lists"},
    {Root::kProject, ".lefthook.yml", "lefthook", "its git hooks run the commands it lists"},
    {Root::kProject, "lefthook-local.yml", "lefthook", "its git hooks run the commands it lists"},
    {Root::kProject, ".claude/settings.json", "Claude Code",
     "hooks, statusLine, apiKeyHelper and other helpers it runs"},
    {Root::kProject, ".claude/settings.local.json", "Claude Code", "the same, not committed"},
    {Root::kProject, ".claude/hooks/", "Claude Code", "the scripts its hooks name by path"},
    {Root::kProject, ".mcp.json", "Claude Code and others", "MCP servers started by command"},
    {Root::kProject, ".vscode/tasks.json", "VS Code", "tasks with runOn: folderOpen run on open"},
    {Root::kProject, ".vscode/settings.json", "VS Code",
     "picks programs: terminal environment and profiles, interpreter paths, git.path"},
    {Root::kProject, ".vscode/mcp.json", "VS Code", "MCP servers started by command"},
    {Root::kProject, ".devcontainer/devcontainer.json", "Dev Containers (VS Code and others)",
     "initializeCommand runs on this machine when the folder is opened in its container"},
    {Root::kProject, ".devcontainer.json", "Dev Containers (VS Code and others)",
     "the same, at the top of the project"},
    {Root::kProject, ".gemini/settings.json", "Gemini CLI",
     "mcpServers, hooks, tools.discoveryCommand and callCommand"},
    {Root::kProject, ".qwen/settings.json", "Qwen Code", "mcpServers, hooks, tool commands"},
    {Root::kProject, ".codex/config.toml", "Codex", "mcp_servers, notify, hooks"},
    {Root::kProject, ".cursor/mcp.json", "Cursor", "MCP servers started by command"},
    {Root::kProject, ".cursor/hooks.json", "Cursor", "hooks"},
    {Root::kProject, ".cursor/hooks/", "Cursor", "the scripts its hooks name"},
    {Root::kProject, "opencode.json", "opencode", "mcp servers, formatter and LSP commands"},
    {Root::kProject, "opencode.jsonc", "opencode", "the same"},
    {Root::kProject, ".opencode/", "opencode", "its config; plugins and tools are code it loads"},
    {Root::kProject, ".factory/settings.json", "droid", "hooks"},
    {Root::kProject, ".factory/settings.local.json", "droid", "hooks, not committed"},
    {Root::kProject, ".factory/mcp.json", "droid", "MCP servers started by command"},
    {Root::kProject, ".factory/hooks.json", "droid", "hooks"},
    {Root::kProject, ".factory/hooks/", "droid", "the scripts its hooks name"},
    {Root::kProject, ".pi/settings.json", "pi", "packages and extensions it loads"},
    {Root::kProject, ".pi/extensions/", "pi", "extensions are code it loads"},
    // Not held, and why.
    {Root::kRepo, "commondir", "git",
     "not held: a main repository has none; one the box writes is removed at the end", false},
    {Root::kProject, ".envrc", "direnv",
     "not held: direnv refuses a changed .envrc until you run `direnv allow`", false},
    {Root::kProject, "mise.toml", "mise",
     "not held: mise asks you to trust a config file before it runs its hooks", false},
    {Root::kProject, ".gitmodules", "git",
     "not held: git ignores `update = !command` there (only .git/config may set it)", false},
    {Root::kProject, ".gitattributes", "git",
     "not held: it only names filter and diff drivers, which .git/config defines", false},
    {Root::kProject, "package.json", "npm and others",
     "not held: its scripts run when you run them (as does a Makefile)", false},
};

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    if (slash != 0) parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Lexically normal: no "." or ".." components, no trailing '/'.
std::string Normal(const std::string& path) {
  std::vector<std::string> parts;
  for (std::string_view part : Components(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.emplace_back(part);
  }
  std::string out;
  for (const auto& part : parts) out += "/" + part;
  return out.empty() ? "/" : out;
}

bool Within(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

// `base` and `pattern` for a pattern under `root`: inside the project, the
// base is the project, so every path is shown as the project names it.
void Add(const std::string& project, const std::string& root, const std::string& pattern,
         std::string_view tool, std::vector<Watch>& out) {
  if (root.empty()) return;
  if (Within(root, project)) {
    out.push_back({project, root.substr(project.size() + 1) + (pattern.empty() ? "" : "/") + pattern,
                   std::string(tool)});
  } else if (root == project) {
    out.push_back({project, pattern, std::string(tool)});
  } else {
    out.push_back({root, pattern, std::string(tool)});
  }
}

}  // namespace

const std::vector<Row>& Table() { return kTable; }

bool Matches(std::string_view pattern, std::string_view path) {
  bool folder = !pattern.empty() && pattern.back() == '/';
  auto want = Components(pattern);
  auto have = Components(path);
  if (have.size() < want.size() || (!folder && have.size() != want.size())) return false;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (want[i] != "*" && want[i] != have[i]) return false;
  }
  return true;
}

std::vector<std::string> HooksPaths(std::string_view git_config_text) {
  std::vector<std::string> paths;
  std::istringstream in{std::string(git_config_text)};
  std::string line, section;
  while (std::getline(in, line)) {
    line = std::string(Trim(line));
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = Lower(std::string(Trim(line.substr(1, line.find(']') - 1))));
      std::string rest(Trim(line.substr(line.find(']') + 1)));  // [core] hooksPath = x
      if (rest.empty()) continue;
      line = rest;
    }
    auto eq = line.find('=');
    if (section != "core" || eq == std::string::npos) continue;
    if (Lower(std::string(Trim(line.substr(0, eq)))) != "hookspath") continue;
    std::string value(Trim(line.substr(eq + 1)));
    if (!value.empty() && value[0] == '"') {
      value = value.substr(1, value.find('"', 1) - 1);
    } else if (auto comment = value.find_first_of("#;"); comment != std::string::npos) {
      value = std::string(Trim(value.substr(0, comment)));
    }
    if (!value.empty()) paths.push_back(value);
  }
  return paths;
}

std::vector<Watch> Watches(const Roots& roots) {
  std::vector<Watch> out;
  const std::string& project = roots.project;
  for (const Row& row : kTable) {
    if (!row.held) continue;
    std::string pattern(row.pattern);
    switch (row.root) {
      case Root::kProject: Add(project, project, pattern, row.tool, out); break;
      case Root::kRepo: Add(project, roots.repo, pattern, row.tool, out); break;
      case Root::kGitDir: Add(project, roots.git_dir, pattern, row.tool, out); break;
      case Root::kWorktree:
        if (roots.worktree) Add(project, project, pattern, row.tool, out);
        break;
      case Root::kHooksPath:
        for (const std::string& text : roots.git_configs) {
          for (const std::string& value : HooksPaths(text)) {
            if (value[0] == '~') continue;  // in the home folder: not the box's to write
            // Relative: to the folder hooks run in, the top of the work tree.
            std::string dir = Normal(value[0] == '/' ? value : project + "/" + value);
            if (!Within(dir, project)) continue;
            Add(project, project, dir.substr(project.size() + 1) + "/", row.tool, out);
          }
        }
        break;
    }
  }
  // One watch per path (a hooksPath of .husky is the husky row too).
  std::vector<Watch> unique;
  for (Watch& w : out) {
    if (std::none_of(unique.begin(), unique.end(), [&](const Watch& u) {
          return u.base == w.base && u.pattern == w.pattern;
        })) {
      unique.push_back(std::move(w));
    }
  }
  return unique;
}

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kFile: return "file";
    case Kind::kFolder: return "folder";
    case Kind::kLink: return "symlink";
    case Kind::kOther: return "other";
  }
  return "other";
}

std::string_view ChangeName(Change change) {
  switch (change) {
    case Change::kNew: return "new";
    case Change::kChanged: return "changed";
    case Change::kRemoved: return "removed";
    case Change::kKindChanged: return "kind changed";
  }
  return "changed";
}

}  // namespace corral::launcher::autorun
