// corral proxy: run the egress proxy alone (the sidecar in "network" mode,
// or for testing). The launcher runs the same netfilter::Proxy in-process.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>

#include "launcher/cli/cli.h"
#include "launcher/network_mode/network_mode.h"
#include "launcher/plan/plan.h"
#include "netfilter/netfilter.h"

namespace corral::cli {
namespace {

struct ProxyOptions {
  std::string listen = "127.0.0.1:3128";
  std::vector<std::string> allow, deny, allow_address;
  std::string hosts_file;
  std::string token;
  unsigned socket_mode = 0600;
  std::string log = "-";
  int threads = 0;
  double head_timeout = -1, connect_timeout = -1, idle_timeout = -1;
  int max_tunnels = -1;
  // Logins (docs/logins.md): JSON from a variable of the proxy's own
  // environment (the sidecar's) or from a file.
  std::string logins_env, logins_file, upstream_ca_file, ca_cert_out;
  std::vector<std::string> hosts_lines;  // a hosts file's lines, as text
  std::string forge_file;                // the forge's scope as JSON (docs/forge.md)
  bool watched = false;                  // somebody watches: the forge's history rules rest
  bool judge_requests = false;           // registries read-only and network.rules (docs/configuration.md)
};

// The logins the options name, into `config`; `upstream_text` gets the
// JSON's upstream CA, for a file of its own.
Result<void> TakeLogins(const ProxyOptions& o, netfilter::ProxyConfig& config,
                        std::string& upstream_text) {
  if (o.logins_env.empty() && o.logins_file.empty()) return Ok();
  if (!o.logins_env.empty() && !o.logins_file.empty()) {
    return Error("give --logins-env or --logins-file, not both");
  }
  std::string text;
  if (!o.logins_env.empty()) {
    const char* value = std::getenv(o.logins_env.c_str());
    if (!value || !*value) {
      return Error("--logins-env " + o.logins_env + ": $" + o.logins_env +
                   " is not set: the proxy would hold no logins (set it to the logins' JSON, "
                   "docs/logins.md)");
    }
    text = value;
    ::unsetenv(o.logins_env.c_str());  // nothing this process starts inherits it
  } else {
    text = launcher::ReadText(o.logins_file);
    if (text.empty()) return Error("cannot read --logins-file " + o.logins_file);
  }
  auto parsed = launcher::network_mode::ParseProxyLogins(text, [](const char* name) {
    return static_cast<const char*>(std::getenv(name));
  });
  if (!parsed) return parsed.error().Context(o.logins_env.empty() ? "--logins-file" : "--logins-env");
  if (parsed->logins.empty() && parsed->forge.empty()) {
    return Error("the logins' JSON lists no login and no forge");
  }
  config.logins = std::move(parsed->logins);
  config.forge = std::move(parsed->forge);
  config.ca = std::move(parsed->ca);
  if (!parsed->upstream_ca.empty() && !o.upstream_ca_file.empty()) {
    return Error("the logins' JSON has an upstream_ca and --upstream-ca-file names one: give one");
  }
  upstream_text = std::move(parsed->upstream_ca);
  return Ok();
}

// `text` in a new file of the proxy's own temp folder (the sidecar's tmpfs),
// read once at Start and removed after; its path.
Result<std::string> TempFile(const std::string& text, const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/corral-" + name + "-XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) return Error::FromErrno("cannot make a file for " + name + " in " + path);
  UniqueFd owned(fd);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      ::unlink(path.c_str());
      return Error::FromErrno("cannot write " + path);
    }
    done += static_cast<std::size_t>(n);
  }
  return path;
}

std::vector<policy::LoadOptions::Override> FlagOverrides(const ProxyOptions& o) {
  std::vector<policy::LoadOptions::Override> out;
  auto list = [&](const char* key, const std::vector<std::string>& values, const char* flag) {
    if (!values.empty()) out.push_back({key, nlohmann::json(values).dump(), flag});
  };
  list("network.allowed_domains", o.allow, "--allow");
  list("network.denied_domains", o.deny, "--deny");
  list("network.allow_addresses", o.allow_address, "--allow-address");
  if (!o.hosts_file.empty()) out.push_back({"network.hosts_file", o.hosts_file, "--hosts"});
  return out;
}

// One JSON line per decision, from any loop thread.
std::function<void(std::string_view)> LogSink(const std::string& where) {
  if (where.empty() || where == "none") return nullptr;
  auto mutex = std::make_shared<std::mutex>();
  if (where == "-") {
    return [mutex](std::string_view line) {
      std::lock_guard lock(*mutex);
      std::cout << line << '\n' << std::flush;
    };
  }
  auto file = std::make_shared<std::ofstream>(where, std::ios::app);
  if (!*file) return nullptr;
  return [mutex, file](std::string_view line) {
    std::lock_guard lock(*mutex);
    *file << line << '\n' << std::flush;
  };
}

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

int RunProxy(const ProxyOptions& options, const Globals& globals) {
  auto policy = LoadPolicy(globals, FlagOverrides(options));
  if (!policy) return Fail(policy.error(), kExitUsage);
  netfilter::ProxyConfig config = netfilter::FromPolicy(policy->network);
  config.listen = options.listen;
  config.socket_mode = options.socket_mode;
  config.token = options.token;
  if (config.token.empty()) {
    if (const char* env = std::getenv("CORRAL_PROXY_TOKEN")) config.token = env;
  }
  config.threads = options.threads;
  if (options.head_timeout > 0) config.limits.head_timeout = Millis(options.head_timeout);
  if (options.connect_timeout > 0) config.limits.connect_timeout = Millis(options.connect_timeout);
  if (options.idle_timeout > 0) config.limits.idle_timeout = Millis(options.idle_timeout);
  if (options.max_tunnels >= 0) config.limits.max_tunnels = options.max_tunnels;
  config.log = LogSink(options.log);
  if (!config.log && options.log != "none") {
    return Fail(Error::FromErrno("cannot open log file " + options.log), kExitUsage);
  }
  std::string upstream_text;
  if (auto ok = TakeLogins(options, config, upstream_text); !ok) return Fail(ok.error(), kExitUsage);
  config.upstream_ca_file = options.upstream_ca_file;
  if (!options.forge_file.empty()) {
    if (!config.forge.empty()) return Fail(Error("the logins' JSON names a forge and --forge-file one: give one"), kExitUsage);
    auto forge = netfilter::forge::ParseForgeConfigJson(launcher::ReadText(options.forge_file));
    if (!forge) return Fail(forge.error().Context("--forge-file " + options.forge_file), kExitUsage);
    config.forge = std::move(*forge);
  }
  if (options.watched) config.watching = [] { return true; };
  if (options.judge_requests) {
    netfilter::requests::RequestRulesConfig judged;
    judged.rules = policy->network.rules;
    judged.publish = policy->network.publish;
    judged.allowed_domains = config.rules.allowed_domains;
    config.requests = std::move(judged);
  }
  if (!upstream_text.empty()) {
    auto file = TempFile(upstream_text, "upstream-ca");
    if (!file) return Fail(file.error(), 1);
    config.upstream_ca_file = *file;
  }
  std::string hosts_copy;
  if (!options.hosts_lines.empty()) {
    if (!options.hosts_file.empty()) {
      return Fail(Error("give --hosts or --hosts-line, not both"), kExitUsage);
    }
    std::string text;
    for (const std::string& line : options.hosts_lines) text += line + "\n";
    auto file = TempFile(text, "hosts");
    if (!file) return Fail(file.error(), 1);
    hosts_copy = config.hosts_file = *file;
  }
  if (!options.ca_cert_out.empty() && config.logins.empty() && config.forge.empty() && !config.requests) {
    return Fail(Error("--ca-cert-out: the proxy makes a CA only to hold logins or judge a forge: give "
                      "--logins-env, --logins-file or --forge-file"),
                kExitUsage);
  }
  // Block the signals before the loops start so only sigwait below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto proxy = netfilter::Proxy::Start(config);
  // Read at Start: the copy goes at once.
  if (!upstream_text.empty()) ::unlink(config.upstream_ca_file.c_str());
  if (!hosts_copy.empty()) ::unlink(hosts_copy.c_str());
  if (!proxy) return Fail(proxy.error().Context("proxy"), 1);
  if (!options.ca_cert_out.empty()) {
    if (auto ok = launcher::WriteFile(options.ca_cert_out, (*proxy)->ca_pem(), 0644); !ok) {
      (*proxy)->Stop();
      return Fail(ok.error().Context("--ca-cert-out"), 1);
    }
  }
  if (!config.forge.empty()) {
    std::cerr << "corral proxy: judging the forge's requests (" << config.forge.forges.size()
              << (config.forge.forges.size() == 1 ? " host" : " hosts") << ")" << std::endl;
  }
  if (!config.logins.empty()) {
    std::cerr << "corral proxy: holding " << config.logins.size()
              << (config.logins.size() == 1 ? " login" : " logins") << std::endl;
  }
  std::cerr << "corral proxy: listening on " << (*proxy)->address() << std::endl;
  while (true) {
    int sig = 0;
    if (sigwait(&signals, &sig) != 0) continue;
    if (sig != SIGHUP) break;
    auto reloaded = LoadPolicy(globals, FlagOverrides(options));
    Result<void> ok = reloaded ? (*proxy)->Reload(netfilter::FromPolicy(reloaded->network).rules)
                               : Result<void>(reloaded.error());
    if (ok) std::cerr << "corral proxy: reloaded the allowlist" << std::endl;
    else std::cerr << "corral proxy: reload failed, keeping the old lists: " << ok.error().message << std::endl;
  }
  (*proxy)->Stop();
  std::cerr << "corral proxy: stopped" << std::endl;
  return kExitOk;
}

}  // namespace

void AddProxyCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<ProxyOptions>();
  CLI::App* sub = app.add_subcommand("proxy", "Run the egress proxy (the only way out of a box)");
  sub->footer(
      "Lists given as flags replace the config file's network.* lists.\n"
      "Every decision is printed as one JSON line (--log). SIGHUP reloads the lists;\n"
      "SIGTERM stops. The token may also come from CORRAL_PROXY_TOKEN.\n"
      "Logins (docs/logins.md): the proxy puts each login's real value in its header on\n"
      "requests to its hosts alone, ending TLS for those hosts with a session CA, and\n"
      "refuses its stand-in anywhere else. --logins-env NAME reads them as JSON from the\n"
      "variable NAME (then unset), --logins-file FILE from a file:\n"
      "  {\"logins\": [{\"name\": \"ANTHROPIC_API_KEY\", \"hosts\": [\"api.anthropic.com:443\"],\n"
      "    \"header\": \"x-api-key\", \"prefix\": \"\", \"value\": \"sk-ant-...\",\n"
      "    \"stand_in\": \"sk-ant-...\"}],\n"
      "   \"ca\": {\"cert\": \"PEM\", \"key\": \"PEM\"}, \"upstream_ca\": \"PEM\"}\n"
      "\"value_env\": NAME instead of \"value\" takes the value from the proxy's variable\n"
      "NAME; a stand-in is as long as its value. Without \"ca\" the proxy makes its CA;\n"
      "--ca-cert-out writes its certificate for clients to trust. The proxy corral runs\n"
      "for a network-mode session (a sidecar) gets its logins this way.\n"
      "Examples:\n"
      "  corral proxy --listen 127.0.0.1:3128 --allow '*.example.com' --allow pypi.org\n"
      "  corral proxy --listen unix:/run/corral/proxy.sock --token \"$TOKEN\"\n");
  sub->add_option("--listen", options->listen, "HOST:PORT or unix:PATH (port 0 picks a free one)");
  // allow_extra_args(false): one entry per flag, taken as written (CLI11 would
  // otherwise read `[2001:db8::10]` as a list and drop the brackets).
  sub->add_option("--allow", options->allow, "Allowed host: name, *.name, optional :port (repeat)")
      ->allow_extra_args(false);
  sub->add_option("--deny", options->deny, "Denied host, wins over --allow (repeat)")
      ->allow_extra_args(false);
  sub->add_option("--allow-address", options->allow_address,
                  "IP or CIDR the proxy may dial although private or local (repeat)")
      ->allow_extra_args(false);
  sub->add_option("--hosts", options->hosts_file, "hosts(5) file consulted before DNS")
      ->check(CLI::ExistingFile);
  sub->add_option_function<std::string>(
         "--socket-mode",
         [options](const std::string& text) {
           char* end = nullptr;
           unsigned long mode = std::strtoul(text.c_str(), &end, 8);
           if (text.empty() || *end != '\0' || mode > 0777) {
             throw CLI::ValidationError("--socket-mode", "an octal mode such as 0600, not " + text);
           }
           options->socket_mode = static_cast<unsigned>(mode);
         },
         "A unix socket's mode, octal (default 0600)");
  sub->add_option("--token", options->token, "Require Proxy-Authorization Basic with this password");
  sub->add_option("--log", options->log, "Decision log: FILE, '-' for stdout, or 'none'");
  sub->add_option("--threads", options->threads, "Event loops (default: one per core)");
  sub->add_option("--head-timeout", options->head_timeout, "Seconds to receive a request head (408)");
  sub->add_option("--connect-timeout", options->connect_timeout, "Seconds to resolve and connect (504)");
  sub->add_option("--idle-timeout", options->idle_timeout, "Seconds a silent tunnel stays open");
  sub->add_option("--max-tunnels", options->max_tunnels, "Most concurrent tunnels (429 past it)");
  sub->add_option("--hosts-line", options->hosts_lines,
                  "A hosts(5) line consulted before DNS, as --hosts's are (repeat)")
      ->allow_extra_args(false);
  sub->add_option("--logins-env", options->logins_env,
                  "Logins as JSON in this environment variable (see below)");
  sub->add_option("--logins-file", options->logins_file, "Logins as JSON in this file")
      ->check(CLI::ExistingFile);
  sub->add_option("--upstream-ca-file", options->upstream_ca_file,
                  "PEM bundle login hosts' certificates are checked against (default: the "
                  "system's)")
      ->check(CLI::ExistingFile);
  sub->add_option("--forge-file", options->forge_file,
                  "The forge's scope as JSON: git and API hosts, the project's repositories (docs/forge.md)")
      ->check(CLI::ExistingFile);
  sub->add_flag("--judge-requests", options->judge_requests,
                "Judge requests to the package registries (read-only unless registries.publish) and to "
                "hosts with network.rules: their TLS is ended (as a session's proxy does)");
  sub->add_flag("--watched", options->watched,
                "Somebody watches: pushes are not judged by the forge's history rules (tests, a proxy run by hand)");
  sub->add_option("--ca-cert-out", options->ca_cert_out,
                  "Write the session CA's certificate (never its key) here once started");
  sub->callback([options, &globals] { globals.exit_code = RunProxy(*options, globals); });
}

}  // namespace corral::cli
