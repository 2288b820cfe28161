// policy/network/: what the egress proxy accepts in its lists
// (docs/configuration.md, "The proxy's rules"): addresses, canonical host names, domain entries,
// CIDR ranges and hosts files.
// The one public header of policy/network/ (docs/architecture.md).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/base.h"

namespace corral::policy {

// What the egress proxy accepts (docs/configuration.md, "The proxy's rules"), in one place:
// the loader checks every network list with these, and netfilter/ matches
// requests with them, so the config, `corral run --print` and a session agree.

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // v4 uses the first 4

  bool operator==(const IpAddress&) const = default;
  std::string ToString() const;  // "10.0.0.1", "2001:db8::1" (no brackets)
};

// IPv4 in any spelling browsers and inet_aton accept: 1 to 4 parts, each
// decimal, octal (leading 0) or hex (0x); the last part fills the remaining
// bytes ("127.1", "0x7f000001", "017700000001"). nullopt when not such a form.
std::optional<IpAddress> ParseIpv4AnySpelling(std::string_view text);
// Strict textual IPv6 (inet_pton); no brackets, no zone.
std::optional<IpAddress> ParseIpv6(std::string_view text);
// "1.2.3.4" (strict dotted quad) or an IPv6 text, with or without brackets.
std::optional<IpAddress> ParseIpStrict(std::string_view text);

// The canonical host: one spelling of a request's target, used alike by the
// proxy's matcher, resolver, dialer and forwarded Host header.
struct CanonicalHost {
  // Lower case, one trailing dot removed, IDN labels as punycode; an IP
  // literal in its standard form ("127.0.0.1", "[::1]").
  std::string name;
  std::optional<IpAddress> ip;  // set for IP literals in any spelling
};

// Fails (with a reason fit for a 400 body) on anything ambiguous: empty
// labels, control or URL-special characters, percent-encoding, zone ids,
// numeric-looking names that are not a valid IPv4 spelling, over-long names.
Result<CanonicalHost> Canonicalize(std::string_view raw);

// A decimal port 1..65535: ASCII digits only, no sign, no leading zero.
std::optional<uint16_t> ParsePort(std::string_view digits);

// One entry of network.allowed_domains or network.denied_domains (or a
// recipe's hosts): a canonical name or IP literal, or a wildcard suffix, and
// an optional port.
struct DomainEntry {
  std::string text;        // as written, for messages
  std::string host;        // canonical host; for wildcards the suffix without "*."
  bool wildcard = false;   // "*.host": any subdomain, never the apex
  std::optional<uint16_t> port;
};
// The error says what is wrong and what to write instead ("`*` would allow
// every host: ..."); the caller adds which list and where.
Result<DomainEntry> ParseDomainEntry(std::string_view text);

// One entry of network.allow_addresses: an address or a CIDR range.
struct Cidr {
  std::string text;  // as written
  bool v6 = false;
  uint8_t bytes[16] = {};
  int prefix = 0;
};
Result<Cidr> ParseCidr(std::string_view text);

// hosts(5), as network.hosts_file names it: "ADDRESS NAME [ALIAS...]" lines,
// '#' comments. Names are canonicalized; an address may appear for several
// names and vice versa.
using HostsTable = std::unordered_map<std::string, std::vector<IpAddress>>;
Result<HostsTable> ParseHosts(std::string_view text);
Result<HostsTable> ReadHostsFile(const std::string& path);

// One item of network.rules (the proxy judges requests with them,
// netfilter/requests/), e.g. "deny api.internal.example DELETE /**".
struct RequestRule {
  std::string text;  // as written, for the log's `rule` and messages
  bool deny = false;
  std::string host;                  // lower case; for a wildcard the suffix without "*."
  bool wildcard = false;             // "*.host": subdomains at any depth, never the apex
  std::optional<uint16_t> port;      // none: any port
  std::vector<std::string> methods;  // upper case; empty: any method ("*")
  // The path's segments ("/v1/**" -> {"v1", "**"}); a segment may hold '*'
  // (any characters within it) or be "**" (any number of whole segments).
  // A rule judges the path only, never the query.
  std::vector<std::string> path;
};

// Checks one rule's text. The error says what is wrong and what to write
// instead; the config's loader adds file:line:column.
Result<RequestRule> ParseRequestRule(std::string_view text);

enum class RegistryKind { kNpm, kPypi, kCrates, kRubygems, kGo };

// "npm", "pypi", "crates", "rubygems", "go": the names registries.publish uses.
std::string_view RegistryKindName(RegistryKind kind);
std::optional<RegistryKind> RegistryKindNamed(std::string_view name);

// An RFC 9110 token (a method, a header's name).
bool IsHttpToken(std::string_view text);

// One entry of registries.publish: a kind or a registry's host name. The
// error says which kinds there are.
Result<void> CheckPublishEntry(std::string_view entry);

}  // namespace corral::policy
