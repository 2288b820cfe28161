#include "netfilter/requests/registry_table.h"

#include <array>

namespace corral::netfilter::requests {
namespace {

using K = RegistryKind;

// Reads go everywhere on a registry's hosts; a POST only where a listed client
// sends one while installing or auditing, matched exactly (a POST under the
// audit path is not the audit). Every other method is a write: publish,
// unpublish, dist-tag, owner, deprecate, yank, login, token.
constexpr std::array kTable = {
    RegistryRequest{K::kNpm, "GET", "/**", "packuments, tarballs, search, npm's signing keys"},
    RegistryRequest{K::kNpm, "HEAD", "/**", "reads"},
    RegistryRequest{K::kNpm, "POST", "/-/npm/v1/security/advisories/bulk",
                    "npm 7+ `npm install` and `npm audit` (bulk advisories), yarn 4 `yarn npm "
                    "audit`, pnpm 11 `pnpm audit`"},
    RegistryRequest{K::kNpm, "POST", "/-/npm/v1/security/audits/quick",
                    "npm's quick audit: npm 6 `npm install`, npm 7+ when the bulk endpoint fails, "
                    "yarn 2-3 `yarn npm audit`"},
    RegistryRequest{K::kNpm, "POST", "/-/npm/v1/security/audits",
                    "the full audit: npm 6 `npm audit`, yarn 1 `yarn audit`, pnpm up to 10 "
                    "(retired by registry.npmjs.org, which answers 410; other registries may "
                    "still serve it)"},
    RegistryRequest{K::kPypi, "GET", "/**",
                    "the simple index, JSON API, distributions (pip, uv, poetry)"},
    RegistryRequest{K::kPypi, "HEAD", "/**", "reads"},
    RegistryRequest{K::kCrates, "GET", "/**", "the sparse index, crate downloads, `cargo search`"},
    RegistryRequest{K::kCrates, "HEAD", "/**", "reads"},
    RegistryRequest{K::kRubygems, "GET", "/**", "the compact index, specs, gems (gem, bundler)"},
    RegistryRequest{K::kRubygems, "HEAD", "/**", "reads"},
    RegistryRequest{K::kGo, "GET", "/**", "module proxy and checksum database (GOPROXY, GOSUMDB)"},
    RegistryRequest{K::kGo, "HEAD", "/**", "reads"},
};

}  // namespace

std::span<const RegistryRequest> RegistryTable() { return kTable; }

}  // namespace corral::netfilter::requests
