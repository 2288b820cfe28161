// The built-in deny list. Kept apart from the config table so the static
// shim (which has no config loader) can fall back to it.
#include "policy/matcher/matcher.h"

namespace corral::policy {

const std::vector<std::string>& DefaultDenyList() {
  static const std::vector<std::string> kList = {
      "aws",    "gcloud", "az",      "railway", "fly",       "flyctl",          "kubectl",
      "terraform", "pulumi", "psql", "mysql",   "mongosh",   "redis-cli",       "git push --force",
      "git push -f"};
  return kList;
}

}  // namespace corral::policy
