// corral cache ls | rm [NAME...]: the package caches' volumes (npm, pip,
// cargo, Go) on the engine `corral run` uses.
#include <iostream>

#include "launcher/cli/cli.h"
#include "launcher/launcher.h"

namespace corral::cli {
namespace {

struct CacheOptions {
  std::string engine;  // --engine
  std::vector<std::string> names;
};

int ListCaches(const policy::Policy& policy, const CacheOptions& options) {
  auto listed = launcher::ListCaches(policy, options.engine);
  if (!listed) return Fail(listed.error(), kExitRefused);
  std::cout << *listed;
  return kExitOk;
}

int RemoveCaches(const policy::Policy& policy, const CacheOptions& options) {
  if (auto ok = launcher::CheckCacheNames(options.names); !ok) return Fail(ok.error(), kExitUsage);
  auto removed = launcher::RemoveCaches(policy, options.engine, options.names);
  if (!removed) return Fail(removed.error(), kExitRefused);
  std::cout << removed->lines;
  std::cerr << removed->problems;
  return removed->problems.empty() ? kExitOk : kExitRefused;
}

}  // namespace

void AddCacheCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<CacheOptions>();
  CLI::App* cache = app.add_subcommand("cache", "List and remove the boxes' package caches (npm, pip, cargo, Go)");
  cache->require_subcommand(1);
  cache->footer(
      "npm's, pip's, cargo's and Go's caches are volumes on the engine, one per tool shared by\n"
      "your projects' boxes (caches.mode: shared), or one per tool and project (caches.mode:\n"
      "project, or the folders in caches.own_projects); docs/sessions.md says what sharing\n"
      "them means. Exit status: 0 done, 1 the engine did not answer or a cache stayed, 2 bad "
      "input.");

  auto engine_option = [options](CLI::App* sub) {
    sub->add_option("--engine", options->engine, "Engine API endpoint (as for corral run)");
    AddEngineTlsFlags(sub);
  };

  CLI::App* ls = cache->add_subcommand("ls", "List your package caches' volumes on the engine");
  ls->footer("Example: corral cache ls --engine unix:///run/user/1000/podman/podman.sock");
  engine_option(ls);
  ls->callback(WithPolicy(globals, options, ListCaches));

  CLI::App* rm = cache->add_subcommand(
      "rm", "Remove package caches: all of yours, a tool's, or volumes by name");
  rm->add_option("names", options->names,
                 "npm, pip, cargo, go, go-build (that tool's caches), or a VOLUME from "
                 "`corral cache ls`; none: all");
  rm->footer(
      "A cache a running box uses stays (stop its session first); the next session starts it\n"
      "empty. Examples:\n"
      "  corral cache rm              (every cache of yours on the engine)\n"
      "  corral cache rm npm\n"
      "  corral cache rm corral-cache-pip-u1000-myapp-1a2b3c4d\n");
  engine_option(rm);
  rm->callback(WithPolicy(globals, options, RemoveCaches));
}

}  // namespace corral::cli
