#include "netfilter/rules/rules.h"

namespace corral::netfilter {
namespace {

Result<std::vector<DomainEntry>> ParseEntries(const std::vector<std::string>& texts,
                                              std::string_view list) {
  std::vector<DomainEntry> out;
  for (const std::string& text : texts) {
    auto entry = policy::ParseDomainEntry(text);
    if (!entry) return entry.error().Context(list);
    out.push_back(std::move(*entry));
  }
  return out;
}

bool HostMatches(const DomainEntry& entry, const CanonicalHost& host) {
  if (!entry.wildcard) return entry.host == host.name;
  if (host.ip) return false;
  const std::string& name = host.name;
  return name.size() > entry.host.size() + 1 &&
         name.compare(name.size() - entry.host.size(), entry.host.size(), entry.host) == 0 &&
         name[name.size() - entry.host.size() - 1] == '.';
}

std::string HostPortText(const CanonicalHost& host, uint16_t port, Method method) {
  if (port == DefaultPort(method)) return host.name;
  return host.name + ":" + std::to_string(port);
}

}  // namespace

Result<Rules> ParseRules(const RuleLists& lists) {
  Rules rules;
  auto allowed = ParseEntries(lists.allowed_domains, "network.allowed_domains");
  if (!allowed) return allowed.error();
  rules.allowed = std::move(*allowed);
  auto denied = ParseEntries(lists.denied_domains, "network.denied_domains");
  if (!denied) return denied.error();
  rules.denied = std::move(*denied);
  for (const std::string& text : lists.allow_addresses) {
    auto cidr = ParseCidr(text);
    if (!cidr) return cidr.error().Context("network.allow_addresses");
    rules.allow_addresses.push_back(std::move(*cidr));
  }
  return rules;
}

uint16_t DefaultPort(Method method) { return method == Method::kConnect ? 443 : 80; }

Verdict DecideHost(const Rules& rules, const CanonicalHost& host, uint16_t port, Method method) {
  for (const DomainEntry& entry : rules.denied) {
    if (HostMatches(entry, host) && (!entry.port || *entry.port == port)) {
      return {false, "denied-domain", "listed in network.denied_domains as '" + entry.text + "'",
              "remove '" + entry.text + "' from network.denied_domains"};
    }
  }
  for (const DomainEntry& entry : rules.allowed) {
    if (HostMatches(entry, host) && entry.port.value_or(DefaultPort(method)) == port) {
      return {true, "", "allowed by '" + entry.text + "'", ""};
    }
  }
  std::string wanted = HostPortText(host, port, method);
  if (host.ip) {
    return {false, "ip-literal", "IP addresses are refused unless listed",
            "add '" + wanted + "' to network.allowed_domains (--allow " + wanted + ")"};
  }
  return {false, "not-allowed", "not in network.allowed_domains",
          "add '" + wanted + "' to network.allowed_domains (--allow " + wanted + ")"};
}

std::optional<Verdict> CheckAddress(const Rules& rules, const IpAddress& address) {
  auto special = SpecialAddressClass(address);
  if (!special) return std::nullopt;
  auto embedded = EmbeddedIpv4(address);
  for (const Cidr& cidr : rules.allow_addresses) {
    if (CidrContains(cidr, address) || (embedded && CidrContains(cidr, *embedded))) {
      return std::nullopt;
    }
  }
  std::string text = address.ToString();
  return Verdict{false, "address-refused",
                 "address " + text + " is " + std::string(*special),
                 "add '" + text + "' to network.allow_addresses (--allow-address " + text + ")"};
}

}  // namespace corral::netfilter
