// corral spec: print the box's rendering for this project; runs nothing.
#include <iostream>

#include "launcher/agents/agents.h"
#include "launcher/cli/cli.h"
#include "launcher/launcher.h"
#include "launcher/session/session.h"
#include "launcher/plan/plan.h"
#include "launcher/render/render.h"

namespace corral::cli {
namespace {

struct SpecOptions {
  std::vector<std::string> command;  // AGENT [ARGS...]
  std::string format = "oci";
  std::string image;
  std::string session_dir;
  launcher::kubernetes::Options kubernetes{"corral:" CORRAL_VERSION, "", {}};
};

// A plan with logins: the session CA the proxy's Pod ends TLS with, and the
// agent's bundle with its certificate (docs/logins.md).
Result<launcher::kubernetes::LoginCa> LoginCaFor(const launcher::SessionPlan& plan,
                                                 const policy::Policy& policy,
                                                 const std::string& host_bundle) {
  if (plan.logins.empty()) return launcher::kubernetes::LoginCa{};
  auto ca = netfilter::MakeSessionCaPem();
  if (!ca) return ca.error();
  launcher::kubernetes::LoginCa out{ca->cert, ca->key,
                                    launcher::BoxCaBundleText(plan, host_bundle, ca->cert), ""};
  if (std::string file = launcher::UpstreamCaFile(policy, ""); !file.empty()) {
    out.upstream = launcher::ReadText(file);
    if (out.upstream.empty()) return Error("cannot read network.upstream_ca_file " + file);
  }
  return out;
}

int RunSpec(const SpecOptions& options, const Globals& globals) {
  auto policy = LoadPolicy(globals);
  if (!policy) return Fail(policy.error(), kExitUsage);
  launcher::PlanInput input = launcher::HostPlanInput(*policy);
  input.agent_command = options.command;
  input.image = options.image;
  input.session_dir = options.session_dir;
  // `pass` values are read when a session starts; a printed spec names them only.
  input.getenv = [&policy, names = std::make_shared<std::vector<std::string>>()](
                     const char* name) -> const char* {
    for (const auto& pass : policy->pass) {
      if (pass == name) {
        names->push_back("<$" + pass + " at start>");
        return names->back().c_str();
      }
    }
    return std::getenv(name);
  };
  // An agent corral knows gets what `corral run` gives it boxed: its folders,
  // login variables (by name), hosts, switch and image.
  auto recipes = launcher::Recipes(policy->agents);
  if (!recipes) return Fail(recipes.error(), kExitUsage);
  const launcher::Recipe* recipe =
      options.command.empty() ? nullptr : launcher::FindRecipe(*recipes, options.command.front());
  if (!recipe && !options.command.empty()) {
    if (std::string miss = launcher::UnknownAgent(*recipes, options.command.front());
        !miss.empty()) {
      std::cerr << "corral: " << miss << "\n";
      return launcher::kExitNotFound;
    }
  }
  if (recipe) {
    auto run = launcher::ApplyRecipe(*recipe, options.command,
                                     {true, policy->level, input.home, input.state_dir,
                                      input.getenv, launcher::PassLogins(*policy)});
    if (!run) return Fail(run.error(), kExitUsage);
    input.agent_command = std::move(run->command);
    input.agent = std::move(run->additions);
    if (input.image.empty() &&
        policy->settings.at("image").origin == policy::Origin::kDefault) {
      // Its pin, else this host's own version; the registry is not asked.
      launcher::VersionSources sources = launcher::HostVersionSources(nullptr);
      sources.registry_latest = [](const std::string&) -> Result<std::string> {
        return std::string("latest");
      };
      auto version = launcher::ChooseAgentVersion(*recipe, "", sources);
      if (!version) return Fail(version.error(), launcher::kExitBoxFailed);
      input.image = launcher::AgentImageTag(recipe->name, version->version);
    }
  }
  // As `corral run`: the box (the agent's Pod) gets stand-ins, the proxy the values.
  input.logins_through_proxy = true;
  auto plan = launcher::MakePlan(input);
  if (!plan) return Fail(plan.error(), launcher::kExitBoxFailed);
  // A login variable is named, never shown.
  for (std::string& entry : plan->env) {
    std::string name = entry.substr(0, entry.find('='));
    if (std::find(plan->passed_by_name.begin(), plan->passed_by_name.end(), name) !=
        plan->passed_by_name.end()) {
      entry = name + "=<$" + name + " at start>";
    }
  }
  if (!options.session_dir.empty()) {
    if (auto ok = launcher::PrepareSessionDir(*plan); !ok) {
      return Fail(ok.error(), launcher::kExitBoxFailed);
    }
  }
  if (options.format == "kubernetes") {
    // A Pod runs as the agent's user from the start: no gate (docs/exec-check.md).
    if (auto ok = launcher::WithoutExecGate(*plan, policy->seccomp); !ok) {
      return Fail(ok.error(), launcher::kExitBoxFailed);
    }
    auto kubernetes = options.kubernetes;
    auto ca = LoginCaFor(*plan, *policy, input.ca_bundle);
    if (!ca) return Fail(ca.error(), launcher::kExitBoxFailed);
    kubernetes.logins = std::move(*ca);
    auto rendering = launcher::kubernetes::Render(*plan, kubernetes);
    std::cout << launcher::kubernetes::ToYaml(rendering);
    return kExitOk;
  }
  // Made anew when a session starts; a Pod (above) takes the rendered ones.
  for (std::string& entry : plan->env) {
    std::string name = entry.substr(0, entry.find('='));
    for (const launcher::BoxLogin& login : plan->logins) {
      if (login.variable == name) entry = name + "=<a stand-in made at start>";
    }
  }
  nlohmann::json out = options.format == "docker"   ? launcher::docker::Render(*plan)
                       : options.format == "libpod" ? launcher::libpod::Render(*plan)
                                                    : launcher::oci::Render(*plan);
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

}  // namespace

void AddSpecCommand(CLI::App& app, Globals& globals) {
  auto options = std::make_shared<SpecOptions>();
  CLI::App* sub = app.add_subcommand("spec", "Print the box for this project; runs nothing");
  sub->footer(
      "Formats: oci (config.json for an OCI runtime bundle, the spec of record),\n"
      "docker (POST /containers/create body), libpod (Podman SpecGenerator),\n"
      "kubernetes (YAML for kubectl apply -f: the agent's Pod, a proxy Pod and Service,\n"
      "NetworkPolicies, a ConfigMap; on paper, not tested on a cluster: docs/kubernetes.md).\n"
      "Usage: corral spec [OPTIONS] AGENT [ARGS...]\n"
      "corral's options come before the agent's name; every word after it is the\n"
      "agent's, verbatim, as with `corral run`.\n"
      "Examples:\n"
      "  corral spec claude --resume abc\n"
      "  corral spec --format docker sh -c 'make test'\n"
      "  corral spec --format kubernetes --project-claim shop-src claude -p 'fix the build'\n");
  sub->add_option("--format", options->format, "oci, docker, libpod or kubernetes")
      ->check(CLI::IsMember({"oci", "docker", "libpod", "kubernetes"}));
  sub->add_option("--proxy-image", options->kubernetes.proxy_image,
                  "kubernetes: the corral image, for the proxy Pod (default corral:VERSION)");
  sub->add_option("--project-claim", options->kubernetes.project_claim,
                  "kubernetes: the PersistentVolumeClaim holding the project "
                  "(default corral-project-NAME)");
  sub->add_option("--image", options->image, "Image to run (default: the `image` setting)");
  sub->add_option("--session-dir", options->session_dir,
                  "Use and prepare this session folder (masks, shim mount point, seccomp.json), "
                  "e.g. to run the OCI bundle with runc");
  sub->callback([options, &globals] {
    options->command = globals.command_words;
    globals.exit_code = RunSpec(*options, globals);
  });
}

}  // namespace corral::cli
