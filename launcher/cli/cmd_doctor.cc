// corral doctor: whether a boxed session can start here and, when not,
// what to do (launcher/doctor/ holds the checks).
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/doctor/doctor.h"

namespace corral::cli {
namespace {

// The built-in defaults, for the checks to run on when the config does not
// load: with the environment's keys (CORRAL_ENGINE), else without.
Result<policy::Policy> DefaultPolicy() {
  policy::LoadOptions options;
  options.config_path = "/dev/null";
  if (auto policy = policy::Load(options)) return policy;
  options.getenv = [](const char*) -> const char* { return nullptr; };
  return policy::Load(options);
}

int Doctor(const Globals& globals, const std::string& engine, bool json) {
  launcher::DoctorOptions options;
  options.engine = engine;
  auto policy = LoadPolicy(globals);
  if (!policy) {
    options.config_error = policy.error();
    policy = DefaultPolicy();
    if (!policy) return Fail(policy.error(), kExitUsage);
  }
  options.policy = &*policy;
  auto checks = launcher::RunDoctor(options);
  if (json) {
    std::cout << launcher::DoctorJson(checks).dump(2) << "\n";
  } else {
    std::cout << launcher::DoctorText(checks);
  }
  return launcher::SessionCanStart(checks) ? kExitOk : kExitRefused;
}

}  // namespace

void AddDoctorCommand(CLI::App& app, Globals& globals) {
  struct Options {
    std::string engine;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  CLI::App* doctor =
      app.add_subcommand("doctor", "Say whether a boxed session can start here, and what to do");
  doctor->add_option("--engine", options->engine,
                     "Engine to check (unix:///path, tcp://host:port or ssh://[user@]host); "
                     "default as corral run");
  AddEngineTlsFlags(doctor);
  doctor->add_flag("--json", options->json,
                   "Print {\"ok\", \"checks\": [{name, status, detail, fix}]} for programs");
  doctor->footer(
      "One line per check, in order: engine, runtime, seccomp, user namespace, image, shim,\n"
      "shell, session folder, presence, proxy, CA bundle, config. A failed check names its fix.\n"
      "Starts no engine; each check is bounded in time.\n"
      "Exit status: 0 a boxed session can start here, 1 it cannot, 2 bad flags.\n"
      "Example:\n"
      "  corral doctor\n"
      "  corral doctor --engine unix:///run/podman/podman.sock --json\n");
  doctor->callback(
      [options, &globals] { globals.exit_code = Doctor(globals, options->engine, options->json); });
}

}  // namespace corral::cli
