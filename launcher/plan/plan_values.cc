#include "launcher/plan/plan.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <random>

namespace corral::launcher {

Result<std::int64_t> ParseMemory(const std::string& text) {
  if (text.empty()) return std::int64_t{0};
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  std::string unit = text.substr(digits);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  std::int64_t scale = unit == "" ? 1 : unit == "k" ? 1LL << 10 : unit == "m" ? 1LL << 20
                     : unit == "g" ? 1LL << 30 : unit == "t" ? 1LL << 40 : 0;
  if (digits == 0 || digits > 12 || scale == 0) {
    return Error("limits.memory: '" + text + "' is not a size such as 512m or 4g");
  }
  std::int64_t bytes = std::stoll(text.substr(0, digits)) * scale;
  if (bytes < (6LL << 20)) return Error("limits.memory: " + text + " is below 6m, too small to start");
  return bytes;
}

Result<Limits> ParseCpus(const std::string& text, Limits limits) {
  if (text.empty()) return limits;
  char* end = nullptr;
  double cpus = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(cpus > 0.0) || cpus > 1024) {
    return Error("limits.cpus: '" + text + "' is not a number of CPUs such as 1.5");
  }
  limits.cpu_quota = static_cast<std::int64_t>(std::llround(cpus * limits.cpu_period));
  return limits;
}

std::string Slug(const std::string& name) {
  std::string slug;
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) slug += static_cast<char>(std::tolower(u));
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.size() > 32) slug.resize(32);
  return slug.empty() ? "project" : slug;
}

std::string ShortHash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return std::string(out, 8);
}

std::string RandomSessionId() {
  std::random_device random;
  char out[13];
  std::snprintf(out, sizeof out, "%06x%06x", random() & 0xffffff, random() & 0xffffff);
  return out;
}

std::vector<std::string> ProxyEnvironment() {
  std::string url = kProxyUrlInBox;
  std::string local = "localhost,127.0.0.1,::1";
  return {
      "HTTP_PROXY=" + url, "HTTPS_PROXY=" + url, "http_proxy=" + url, "https_proxy=" + url,
      "NO_PROXY=" + local, "no_proxy=" + local,
      // Node 24+ honours the variables only when asked to.
      "NODE_USE_ENV_PROXY=1",
      "npm_config_proxy=" + url, "npm_config_https_proxy=" + url,
      "YARN_HTTP_PROXY=" + url, "YARN_HTTPS_PROXY=" + url,
      "PIP_PROXY=" + url,
      // git over ssh: a CONNECT through the proxy, so only allowed hosts answer.
      // ssh finds its files by the passwd entry, not $HOME; the box's HOME is
      // the per-project volume, so name them there (ssh expands ${HOME}).
      std::string("GIT_SSH_COMMAND=ssh -o StrictHostKeyChecking=accept-new") +
          " -o 'UserKnownHostsFile=${HOME}/.ssh/known_hosts'" +
          " -o 'IdentityFile=${HOME}/.ssh/id_ed25519' -o 'IdentityFile=${HOME}/.ssh/id_ecdsa'" +
          " -o 'IdentityFile=${HOME}/.ssh/id_rsa' -o ProxyCommand='" + kShimInBox +
          " connect %h %p'",
  };
}

std::vector<std::pair<std::string, std::string>> ShellEnvironment(
    const std::string& bin, const std::string& shell, const std::string& makeflags_now) {
  // make runs recipes with bash through the front: a definition from
  // MAKEFLAGS overrides the Makefile's own SHELL, and bash runs sh recipes.
  std::string make_shell = "SHELL=" + bin + "/bash";
  return {
      {"SHELL", bin + "/" + shell},
      {"CLAUDE_CODE_SHELL", bin + "/" + shell},
      {"MAKEFLAGS", makeflags_now.empty() ? make_shell : makeflags_now + " " + make_shell},
      {"npm_config_script_shell", bin + "/sh"},
  };
}

std::vector<std::string> BoxEnvironment(const PlanInput& input, const std::string& home_in_box,
                                        const std::string& ca_in_box,
                                        const std::string& session_id) {
  auto get = [&](const char* name) -> const char* {
    return input.getenv ? input.getenv(name) : nullptr;
  };
  std::vector<std::string> env = {
      std::string("PATH=") + kBoxPath,
      "HOME=" + home_in_box,
      "CORRAL_SESSION=" + session_id,
      std::string("CORRAL_WATCHDOG=") + kWatchdogInBox,
  };
  // corral-shell stands in for the shell: PATH finds it first, and the
  // programs that are told which shell to use are told it.
  for (const auto& [name, value] :
       ShellEnvironment(std::string(kSessionMountPoint) + "/bin", "bash", "")) {
    env.push_back(name + "=" + value);
  }
  std::string run = std::string(kSessionMountPoint) + "/";
  env.push_back("CORRAL_ORACLE_SOCKET=" + run + kOracleSocket);
  env.push_back("CORRAL_DENY_LIST_FILE=" + run + kDenyListFile);
  env.push_back("CORRAL_PROXY_SOCKET=" + run + kProxySocket);
  for (std::string& line : ProxyEnvironment()) env.push_back(std::move(line));
  const char* term = get("TERM");
  env.push_back(std::string("TERM=") + (term && *term ? term : "xterm-256color"));
  const char* lang = get("LANG");
  env.push_back(std::string("LANG=") + (lang && *lang ? lang : "C.UTF-8"));
  if (!ca_in_box.empty()) {
    for (const char* name : {"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
                             "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"}) {
      env.push_back(std::string(name) + "=" + ca_in_box);
    }
  }
  // `pass`: by name, values from the environment now, never written down.
  for (const std::string& name : input.policy->pass) {
    if (const char* value = get(name.c_str())) env.push_back(name + "=" + value);
  }
  return env;
}

}  // namespace corral::launcher
