// corral run --print: the plan, the mode, the image and the engine's
// rendering, as the session would send them, with no login's value in it.
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "base/report.h"
#include "launcher/agents/agents.h"
#include "launcher/engine/engine.h"
#include "launcher/session_plan.h"
#include "launcher/session/session.h"
#include "launcher/plan/plan.h"
#include "launcher/render/render.h"

namespace corral::launcher {
namespace {

// The rendering shows what would be sent, but never a login's value.
void HideLoginValues(SessionPlan& plan) {
  for (std::string& entry : plan.env) {
    std::string name = entry.substr(0, entry.find('='));
    if (std::find(plan.passed_by_name.begin(), plan.passed_by_name.end(), name) !=
        plan.passed_by_name.end()) {
      entry = name + "=(from your environment, not shown)";
    }
    for (const BoxLogin& login : plan.logins) {
      if (login.variable == name) entry = name + "=(a stand-in made at start)";
    }
  }
}

}  // namespace

std::string PlanPrintout(SessionPlan plan, Engine* engine,
                         const std::function<const char*(const char*)>& getenv,
                         bool agent_image) {
  std::ostringstream out;
  out << DescribePlan(plan);
  if (engine) {
    // As the session would say it (CORRAL_ENGINE_MODE=network included).
    bool network = WantsNetworkMode(*engine, getenv);
    out << (network && !engine->remote() ? std::string("mode: network (CORRAL_ENGINE_MODE=network)")
                                         : engine->ModeLine())
        << "\n";
    if (network && !plan.logins.empty()) {
      out << "logins: the proxy sidecar holds them (given in its create request, never "
             "the box's); the box trusts the session CA corral makes for it\n";
    }
    if (!plan.runtime.empty()) {
      std::string missing =
          GvisorNotReady(engine->facts(), engine->podman(), engine->endpoint().url);
      if (!missing.empty()) {
        out << missing << " (a session would not start)\n";
      } else {
        out << "runtime gvisor: " << engine->name()
            << (engine->podman() ? " is asked for runsc; the session checks that the box it "
                                   "makes runs on it"
                                 : " has runsc registered as the box needs it")
            << "\n";
      }
    }
    if (agent_image) out << DescribeAgentImage(*engine, plan.image) << "\n";
  }
  HideLoginValues(plan);
  nlohmann::json rendering = !engine            ? oci::Render(plan)
                             : engine->podman() ? libpod::Render(plan)
                                                : docker::Render(plan);
  if (engine) {
    std::string limits =
        LimitsLine(plan.limits, JudgeLimits(plan.limits, engine->facts(), engine->podman()));
    if (!limits.empty()) out << "limits on " << engine->name() << ": " << limits << "\n";
  }
  if (::getuid() != 0) out << DescribeRootlessHost(ReadRootlessHost()) << "\n";
  out << (engine ? engine->name() : std::string("oci")) << " rendering:\n"
      << rendering.dump(2) << "\n";
  return out.str();
}

}  // namespace corral::launcher
