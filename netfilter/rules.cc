#include "netfilter/rules.h"

#include <algorithm>

namespace corral::netfilter {
namespace {

constexpr std::string_view kBadPort = "has a port that is not a number from 1 to 65535 (decimal, no leading zeros)";

Result<DomainEntry> ParseEntry(const std::string& text, std::string_view list) {
  auto fail = [&](std::string_view why) {
    return Error(std::string(list) + ": '" + text + "' " + std::string(why));
  };
  if (text.empty()) return fail("is empty");
  if (text.find("://") != std::string::npos || text.find('/') != std::string::npos) {
    return fail("is not a host; write the host name only, e.g. example.com or *.example.com");
  }
  // Two colons or more outside brackets: an IPv6 address whose port, if any,
  // cannot be told apart from its last group.
  if (text.front() != '[' && std::count(text.begin(), text.end(), ':') >= 2) {
    return fail("is an IPv6 address without brackets; write it as '[" + text +
                "]' (quoted in YAML), with a port after the bracket: '[" + text + "]:8443'");
  }
  DomainEntry entry;
  entry.text = text;
  std::string_view host = text;
  if (!text.empty() && text.front() == '[') {
    std::size_t close = text.find(']');
    if (close == std::string::npos) return fail("has a malformed IPv6 literal");
    host = std::string_view(text).substr(0, close + 1);
    std::string_view rest = std::string_view(text).substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return fail("has text after the IPv6 literal");
      entry.port = ParsePort(rest.substr(1));
      if (!entry.port) return fail(kBadPort);
    }
  } else if (std::size_t colon = text.rfind(':'); colon != std::string::npos) {
    host = std::string_view(text).substr(0, colon);
    entry.port = ParsePort(std::string_view(text).substr(colon + 1));
    if (!entry.port) return fail(kBadPort);
  }
  if (host.size() >= 2 && host.substr(0, 2) == "*.") {
    entry.wildcard = true;
    host.remove_prefix(2);
  }
  if (host.find('*') != std::string_view::npos) {
    return fail("is too broad or malformed; only a leading '*.' is allowed, as in *.example.com");
  }
  auto canonical = Canonicalize(host);
  if (!canonical) return fail("is not a valid host: " + canonical.error().message);
  if (entry.wildcard) {
    if (canonical->ip) return fail("is a wildcard over an IP address; list addresses one by one");
    if (canonical->name.find('.') == std::string::npos) {
      return fail("would match a whole top-level domain; name a domain, as in *.example.com");
    }
  }
  entry.host = canonical->name;
  return entry;
}

Result<std::vector<DomainEntry>> ParseEntries(const std::vector<std::string>& texts,
                                              std::string_view list) {
  std::vector<DomainEntry> out;
  for (const std::string& text : texts) {
    auto entry = ParseEntry(text, list);
    if (!entry) return entry.error();
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
