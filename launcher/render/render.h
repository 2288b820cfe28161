// launcher/render/: a SessionPlan as each engine takes it: an OCI
// config.json, Docker's create body, libpod's SpecGenerator, and Kubernetes
// objects on paper. Pure functions of the plan. Private to launcher/.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher/session_plan.h"

namespace corral::launcher {

namespace oci {
// A complete OCI runtime config.json; root.path is "rootfs" (a bundle).
nlohmann::json Render(const SessionPlan& plan);
}  // namespace oci
namespace docker {
// The body of POST /containers/create (Docker Engine API >= 1.41).
nlohmann::json Render(const SessionPlan& plan);
}  // namespace docker
namespace libpod {
// The body of POST /v4.0.0/libpod/containers/create (SpecGenerator).
nlohmann::json Render(const SessionPlan& plan);
}  // namespace libpod
namespace kubernetes {
// On paper (docs/kubernetes.md): not run on a cluster by corral.
// A plan with logins (docs/logins.md): the proxy Pod ends TLS for login
// hosts with this session CA, which `corral spec` makes; the agent trusts
// `box_bundle` (the host's bundle, then `cert`); `upstream` is
// network.upstream_ca_file's text ("" when unset).
struct LoginCa {
  std::string cert, key, box_bundle, upstream;
};
struct Options {
  std::string proxy_image;    // the corral image, which runs `corral proxy`
  std::string project_claim;  // PersistentVolumeClaim holding the project; "" picks one
  LoginCa logins;
};
// The objects in the order to create them (ConfigMap, the logins' Secret
// when the plan has logins, Service, the two NetworkPolicies, the proxy Pod,
// the agent Pod), and the notes: what the
// cluster must provide and what the plan has that a Pod cannot express.
struct Rendering {
  std::vector<nlohmann::json> objects;
  std::vector<std::string> notes;
};
Rendering Render(const SessionPlan& plan, const Options& options);
// Multi-document YAML, the notes as comments first: what `kubectl apply -f` takes.
std::string ToYaml(const Rendering& rendering);
}  // namespace kubernetes

}  // namespace corral::launcher
