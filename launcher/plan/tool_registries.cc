// The package registries the user's own tools on this host are set up to use
// (npm, pip, cargo, go), so a company mirror works in the box with no extra
// setting (docs/sessions.md, "A boxed session"). Read as text at session start; nothing runs.
#include <sstream>

#include "launcher/plan/plan.h"

namespace corral::launcher {
namespace {

// Blanks and quotes around a config value go.
std::string TrimValue(std::string_view s) { return std::string(Trim(s, " \t\r\"'")); }

// The value of each `key = value` (or `key=value`) line whose key ends with
// one of `keys` (npm's "@scope:registry" ends with "registry").
std::vector<std::string> Values(const std::string& text, std::initializer_list<const char*> keys) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = TrimValue(line.substr(0, eq));
    if (key.empty() || key[0] == '#' || key[0] == ';') continue;
    for (const char* wanted : keys) {
      std::string w = wanted;
      if (key.size() >= w.size() && key.compare(key.size() - w.size(), w.size(), w) == 0) {
        // pip's extra-index-url may list several, separated by blanks.
        std::istringstream words(TrimValue(line.substr(eq + 1)));
        for (std::string word; words >> word;) out.push_back(TrimValue(word));
      }
    }
  }
  return out;
}

void Add(const std::string& url, const std::string& from, std::vector<RegistryHost>& out) {
  std::string u = url;
  for (const char* prefix : {"sparse+", "registry+"}) {
    if (u.rfind(prefix, 0) == 0) u = u.substr(std::string(prefix).size());
  }
  if (u.rfind("https://", 0) != 0 && u.rfind("http://", 0) != 0) return;
  std::string host = HostOfUrl(u);
  if (host.empty()) return;
  for (const auto& seen : out) {
    if (seen.entry == host) return;
  }
  out.push_back({host, from});
}

}  // namespace

std::vector<RegistryHost> ToolRegistries(const std::string& home,
                                         const std::function<const char*(const char*)>& getenv) {
  std::vector<RegistryHost> out;
  auto env = [&](const char* name) -> std::string {
    const char* value = getenv ? getenv(name) : nullptr;
    return value ? value : "";
  };
  // npm (and yarn 1, which reads .npmrc).
  for (const char* name : {"npm_config_registry", "NPM_CONFIG_REGISTRY"}) {
    if (!env(name).empty()) Add(env(name), name, out);
  }
  if (!home.empty()) {
    for (const auto& url : Values(ReadText(home + "/.npmrc"), {"registry"})) {
      Add(url, "~/.npmrc", out);
    }
  }
  // pip.
  for (const char* name : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"}) {
    std::istringstream words(env(name));
    for (std::string word; words >> word;) Add(word, name, out);
  }
  std::string config_home = env("XDG_CONFIG_HOME");
  if (config_home.empty() && !home.empty()) config_home = home + "/.config";
  for (const std::string& path :
       {config_home + "/pip/pip.conf", home + "/.pip/pip.conf", std::string("/etc/pip.conf")}) {
    if (path.front() != '/') continue;
    for (const auto& url : Values(ReadText(path), {"index-url"})) Add(url, path, out);
  }
  // cargo: registries and source replacements (sparse+https://...).
  if (!home.empty()) {
    for (const std::string& path : {home + "/.cargo/config.toml", home + "/.cargo/config"}) {
      for (const auto& url : Values(ReadText(path), {"index", "registry"})) Add(url, path, out);
    }
  }
  // go: GOPROXY is a list separated by commas or pipes; "direct" and "off" are not hosts.
  std::string goproxy = env("GOPROXY");
  for (char& c : goproxy) {
    if (c == ',' || c == '|') c = ' ';
  }
  std::istringstream proxies(goproxy);
  for (std::string url; proxies >> url;) Add(url, "GOPROXY", out);
  return out;
}

}  // namespace corral::launcher
