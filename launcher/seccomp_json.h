// The box's seccomp profile as a flattened OCI linux.seccomp object. Private.
#pragma once

#include <nlohmann/json.hpp>

#include "base/base.h"
#include "policy/policy.h"

namespace corral::launcher {

// From seccomp/ when it is built; until then a small stand-in: everything
// allowed except what an agent never needs (namespaces, mounts, kernel
// modules, keyrings, bpf, ptrace unless allowed...), refused with EPERM.
Result<nlohmann::json> SeccompJson(const policy::SeccompPolicy& user);

}  // namespace corral::launcher
