// corral image ls | build AGENT | rm AGENT|TAG...: the agents' images on the
// engine `corral run` uses (launcher/agents/ builds them).
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "launcher/agents/agents.h"
#include "launcher/cli/cli.h"
#include "launcher/engine/engine.h"
#include "launcher/plan/plan.h"
#include "launcher/launcher.h"

namespace corral::cli {
namespace {

using launcher::CorralImage;
using launcher::Engine;
using launcher::kExitBoxFailed;

struct ImageOptions {
  std::string engine;  // --engine
  bool json = false;
  std::string agent;
  std::string version;
  std::vector<std::string> names;
};

Result<Engine> ConnectEngine(const policy::Policy& policy, const std::string& flag) {
  auto choice = launcher::ChooseEndpoints(flag, policy.engine,
                                          [](const char* name) { return std::getenv(name); });
  if (!choice) return choice.error();
  return Engine::Connect(*choice);
}

std::string Size(long long bytes) {
  char out[32];
  std::snprintf(out, sizeof out, "%.0f MB", static_cast<double>(bytes) / 1e6);
  return out;
}

std::string Date(long long seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  char out[32];
  std::tm utc{};
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M", gmtime_r(&t, &utc));
  return out;
}

int List(const policy::Policy& policy, const ImageOptions& options) {
  auto engine = ConnectEngine(policy, options.engine);
  if (!engine) return Fail(engine.error(), kExitBoxFailed);
  auto images = launcher::ListCorralImages(*engine);
  if (!images) return Fail(images.error(), kExitBoxFailed);
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const CorralImage& i : *images) {
      out.push_back({{"tag", i.tag},
                     {"agent", i.agent},
                     {"version", i.version},
                     {"id", i.id},
                     {"size", i.size},
                     {"created", i.created}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-44s %-10s %-9s %s\n", "TAG", "AGENT", "SIZE", "CREATED (UTC)");
  for (const CorralImage& i : *images) {
    std::printf("%-44s %-10s %-9s %s\n", i.tag.c_str(), i.agent.empty() ? "-" : i.agent.c_str(),
                Size(i.size).c_str(), Date(i.created).c_str());
  }
  return kExitOk;
}

int Build(const policy::Policy& policy, const ImageOptions& options) {
  auto recipes = launcher::Recipes(policy.agents);
  if (!recipes) return Fail(recipes.error(), kExitUsage);
  const launcher::Recipe* recipe = launcher::FindRecipe(*recipes, options.agent);
  bool corral_itself = recipe == nullptr && options.agent == "corral";
  if (corral_itself && !options.version.empty()) {
    return Fail(Error("corral's image holds this corral (" CORRAL_VERSION "): it takes no "
                      "--version"),
                kExitUsage);
  }
  if (recipe == nullptr && !corral_itself) {
    std::string closest = launcher::ClosestRecipe(*recipes, options.agent);
    return Fail(Error("no agent is called " + options.agent +
                      (closest.empty() ? "" : " (did you mean " + closest + "?)") +
                      "; `corral agents` lists them"),
                kExitUsage);
  }
  launcher::PlanInput host = launcher::HostPlanInput(policy);
  if (host.shim_path.empty() || host.shell_path.empty()) {
    return Fail(Error("corral-shim and corral-shell, which go into the image, were not found "
                      "beside corral: set CORRAL_SHIM to corral-shim's path"),
                kExitBoxFailed);
  }
  if (host.ca_bundle.empty()) {
    return Fail(Error("this host has no CA bundle for the build to trust (looked for "
                      "SSL_CERT_FILE and /etc/ssl/certs/ca-certificates.crt)"),
                kExitBoxFailed);
  }
  auto engine = ConnectEngine(policy, options.engine);
  if (!engine) return Fail(engine.error(), kExitBoxFailed);
  if (corral_itself) {
    std::error_code ec;
    std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    auto tag = launcher::EnsureCorralImage(*engine, CORRAL_VERSION, self, host.ca_bundle,
                                           host.shim_path, host.shell_path);
    if (!tag) return Fail(tag.error(), kExitBoxFailed);
    std::cout << *tag << "\n";
    return kExitOk;
  }
  auto version = launcher::AgentImageVersion(&*engine, *recipe, options.version);
  if (!version) return Fail(version.error(), kExitBoxFailed);
  auto tag = launcher::EnsureAgentImage(*engine, *recipe, *version, host.ca_bundle, host.shim_path,
                                        host.shell_path);
  if (!tag) return Fail(tag.error(), kExitBoxFailed);
  std::cout << *tag << "\n";
  return kExitOk;
}

// An agent's name stands for every version of its image; a tag for itself.
// Only corral's own images are removed.
int Remove(const policy::Policy& policy, const ImageOptions& options) {
  auto engine = ConnectEngine(policy, options.engine);
  if (!engine) return Fail(engine.error(), kExitBoxFailed);
  auto images = launcher::ListCorralImages(*engine);
  if (!images) return Fail(images.error(), kExitBoxFailed);
  std::vector<std::string> tags;
  for (const std::string& name : options.names) {
    std::size_t before = tags.size();
    for (const CorralImage& image : *images) {
      if (image.tag == launcher::ShortTag(name) || (!image.agent.empty() && image.agent == name)) {
        tags.push_back(image.tag);
      }
    }
    if (tags.size() == before) {
      return Fail(Error(name + ": " + engine->name() +
                        " has no image of an agent by that name "
                        "and no corral image with that tag (`corral image ls` lists them); "
                        "nothing was removed"),
                  kExitUsage);
    }
  }
  for (const std::string& tag : tags) {
    auto removed = engine->RemoveImage(tag);
    if (!removed) return Fail(removed.error(), kExitBoxFailed);
    if (*removed) std::cout << "removed " << tag << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddImageCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<ImageOptions>();
  CLI::App* image = app.add_subcommand("image", "List, build and remove the agents' images");
  image->require_subcommand(1);
  image->footer(
      "An agent's image is Debian, the tools agents use (git, ssh, curl, make, python3, node),\n"
      "the agent at one version, and corral-shell in front of /bin/sh and /bin/bash, tagged\n"
      "corral-agent-AGENT:VERSION. `corral run AGENT` builds it the first time.\n"
      "Exit status: 0 done, 2 bad input, 125 the engine or the build failed.");

  auto engine_option = [options](CLI::App* sub) {
    sub->add_option("--engine", options->engine, "Engine API endpoint (as for corral run)");
  };

  CLI::App* ls = image->add_subcommand("ls", "List corral's images on the engine");
  ls->add_flag("--json", options->json,
               "Print a JSON array: tag, agent, version, id, size, created");
  engine_option(ls);
  ls->callback(WithPolicy(globals, options, List));

  CLI::App* build = image->add_subcommand("build", "Build an agent's image (if it is not built)");
  build->add_option("agent", options->agent, "The agent (`corral agents` lists them)")->required();
  build->add_option("--version", options->version,
                    "The agent's version (default: the recipe's pin, this host's own, the "
                    "newest image built, else the latest)");
  build->footer(
      "Example: corral image build codex --version 0.171.0\n"
      "`corral image build corral` builds corral's own image (the proxy sidecar).\n"
      "Prints the image's tag; the steps and their progress go to stderr.");
  engine_option(build);
  build->callback(WithPolicy(globals, options, Build));

  CLI::App* rm = image->add_subcommand("rm",
                                       "Remove agents' images: every version of an "
                                       "agent, or one tag");
  rm->add_option("names", options->names, "AGENT or TAG (corral image ls)")->required();
  rm->footer("Example: corral image rm claude corral-agent-codex:0.171.0");
  engine_option(rm);
  rm->callback(WithPolicy(globals, options, Remove));
}

}  // namespace corral::cli
