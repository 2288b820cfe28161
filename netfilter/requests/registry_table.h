// What installing from a registry needs, by kind: private to
// netfilter/requests/. The one table of the requests a read-only registry
// lets through.
#pragma once

#include <span>
#include <string_view>

#include "netfilter/requests/requests.h"

namespace corral::netfilter::requests {

struct RegistryRequest {
  RegistryKind kind;
  std::string_view method;
  std::string_view path;    // exact, resolved; "/**": any path
  std::string_view reason;  // which client sends it while installing
};

std::span<const RegistryRequest> RegistryTable();

}  // namespace corral::netfilter::requests
