// Facts about the project folder, read from disk as text (never by running
// git on the host). Private to launcher/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/base.h"

namespace corral::launcher {

struct GitLayout {
  std::string top;             // the folder holding .git ("" when not in git)
  std::string git_dir;         // top/.git, or the worktree's gitdir
  std::string common_dir;      // the main repository's .git for a worktree, else ""
};

// Walks up from `dir` to the nearest folder holding `.git` (folder or file).
GitLayout FindGit(const std::string& dir);

// `.git/commondir` makes git take hooks and config from the folder it names.
// Only a worktree's gitdir has one, so in a main repository a new one can
// only have been written by the box, and would let it choose the hooks git
// runs on the host. The path to check when the session ends, or "" when the
// project is not a main repository or already has the file.
std::string CommondirToWatch(const std::string& project_dir);

// "host:port" for each remote URL in a .git/config text, `origin` first.
// https → 443, http → 80, ssh:// and scp-like user@host:path → 22 (or the
// URL's port), git:// → 9418. Local paths and file:// give nothing.
std::vector<std::string> GitHosts(const std::string& config_text);
std::string HostOfUrl(const std::string& url);

// A file's whole text; "" when it cannot be read (a missing file is normal).
std::string ReadText(const std::string& path);
// Creates (or truncates) `path` with `text` and `mode`.
Result<void> WriteFile(const std::string& path, const std::string& text, unsigned mode);

// A registry host ("host:port") the user's tools are set up to use, and
// where that was read (for `corral run --print`).
struct RegistryHost {
  std::string entry;
  std::string from;
};
// npm (npm_config_registry, ~/.npmrc), pip (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,
// pip.conf), cargo (~/.cargo/config.toml) and go (GOPROXY), read as text.
std::vector<RegistryHost> ToolRegistries(const std::string& home,
                                         const std::function<const char*(const char*)>& getenv);

struct ProjectScan {
  std::vector<std::string> deny_files;  // absolute paths matching deny_read
  std::vector<std::string> deny_dirs;
  std::vector<std::string> dep_dirs;    // node_modules/.venv folders, absolute
  // Why the walk stopped before the end (too many entries, a read error):
  // secrets past that point would not be masked, so the box is not set up.
  std::string incomplete;
};

// One bounded walk of the project: files and folders matching `deny_read`
// globs (a glob with '/' matches the relative path, else the name), and
// node_modules/.venv folders up to five levels down. Skips .git and the
// dependency folders' insides. Stops after `max_entries` entries (see
// ProjectScan::incomplete).
ProjectScan ScanProject(const std::string& top, const std::vector<std::string>& deny_read,
                        std::size_t max_entries = 1000000);

// An unsafe folder to share gives a one-line refusal saying what to do.
struct Folders {
  std::string home;
  std::string config_dir;  // corral's
  std::string state_dir;   // corral's
};
// `cwd` is where corral was started; the project is its git top level.
Result<void> CheckProjectFolder(const std::string& cwd, const GitLayout& git,
                                const Folders& folders);

// Lexically normal absolute path: no trailing '/', no "." or "..".
std::string NormalPath(const std::string& path);
// True when `path` is `dir` or inside it.
bool IsWithin(const std::string& path, const std::string& dir);

}  // namespace corral::launcher
