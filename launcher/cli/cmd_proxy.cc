// corral proxy: run the egress proxy alone (the sidecar in "network" mode,
// or for testing). The launcher runs the same netfilter::Proxy in-process.
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>

#include "launcher/cli/cli.h"
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
};

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
  // Block the signals before the loops start so only sigwait below sees them.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto proxy = netfilter::Proxy::Start(config);
  if (!proxy) return Fail(proxy.error().Context("proxy"), 1);
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
  sub->callback([options, &globals] { globals.exit_code = RunProxy(*options, globals); });
}

}  // namespace corral::cli
