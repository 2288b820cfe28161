// An entry of the proxy's allow and deny lists: "example.com", "*.example.com",
// an IP literal, each with an optional ":port". A refusal says what to write.
#include <algorithm>
#include <cctype>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

constexpr std::string_view kEveryHost =
    " would allow every host: list the hosts, or `*.example.com` for a domain's subdomains";

std::string Quoted(std::string_view text) { return "`" + std::string(text) + "`"; }

// "the host alone" as a fix, when what is left is an entry; else an example.
std::string WriteTheHost(std::string_view host) {
  if (!host.empty() && ParseDomainEntry(host)) return "write the host alone, " + Quoted(host);
  return "write the host alone, as in `example.com`";
}

// The authority of a URL ("https://user@x.com:8443/p" -> "x.com:8443").
std::string_view AuthorityOf(std::string_view url) {
  std::string_view rest = url.substr(url.find("://") + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (std::size_t at = rest.rfind('@'); at != std::string_view::npos) rest.remove_prefix(at + 1);
  return rest;
}

// What is wrong with an entry that is not written as a host at all (a URL, a
// path, blanks, a user name), or "" when it is written as one.
std::string NotAHost(std::string_view text) {
  std::string quoted = Quoted(text);
  if (text.find("://") != std::string_view::npos) {
    return quoted + " is a URL: " + WriteTheHost(AuthorityOf(text));
  }
  if (std::any_of(text.begin(), text.end(), [](char c) { return std::isspace(c & 0xff); })) {
    return quoted + " has a space: a host name has none";
  }
  if (std::size_t slash = text.find('/'); slash != std::string_view::npos) {
    if (ParseIpStrict(text.substr(0, slash))) {
      return quoted + " is an address range: list single hosts here (a range of private "
                      "addresses goes in network.allow_addresses)";
    }
    return quoted + " has a path: " + WriteTheHost(text.substr(0, slash));
  }
  if (std::size_t at = text.rfind('@'); at != std::string_view::npos) {
    return quoted + " has a user name: " + WriteTheHost(text.substr(at + 1));
  }
  // Two colons or more outside brackets: an IPv6 address whose port, if any,
  // cannot be told apart from its last group.
  if (text.front() != '[' && std::count(text.begin(), text.end(), ':') >= 2) {
    std::string bracketed = "[" + std::string(text) + "]";
    return quoted + " is an IPv6 address without brackets: write it as " + Quoted(bracketed) +
           " (quoted in YAML), with a port after the bracket: " + Quoted(bracketed + ":8443");
  }
  return "";
}

// Splits "host:port" or "[v6]:port"; the port is checked, the host is not.
Result<std::string_view> SplitPort(std::string_view text, DomainEntry& entry) {
  std::string_view host = text;
  std::optional<std::string_view> port;
  if (text.front() == '[') {
    std::size_t close = text.find(']');
    if (close == std::string_view::npos) {
      return Error(Quoted(text) + " has a malformed IPv6 literal: write it as in `[2001:db8::10]`");
    }
    host = text.substr(0, close + 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') {
      return Error(Quoted(text) + " has text after the IPv6 literal: write a port after a colon, "
                                  "as in `[2001:db8::10]:8443`");
    }
    if (!rest.empty()) port = rest.substr(1);
  } else if (std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (port) {
    entry.port = ParsePort(*port);
    if (!entry.port) {
      return Error(Quoted(text) + " has a port that is not a number from 1 to 65535 (decimal, no "
                                  "leading zeros): write it as in `example.com:8443`");
    }
  }
  return host;
}

}  // namespace

Result<DomainEntry> ParseDomainEntry(std::string_view text) {
  if (text.empty()) {
    return Error("an empty entry: remove it, or write a host such as `example.com`");
  }
  if (std::string why = NotAHost(text); !why.empty()) return Error(why);
  DomainEntry entry;
  entry.text = std::string(text);
  auto split = SplitPort(text, entry);
  if (!split) return split.error();
  std::string_view host = *split;
  if (host == "*") return Error(Quoted(text) + std::string(kEveryHost));
  if (host.starts_with("*.")) {
    entry.wildcard = true;
    host.remove_prefix(2);
  }
  if (host.find('*') != std::string_view::npos) {
    return Error(Quoted(text) + " has a `*` that is not a leading `*.`: write `*.example.com` "
                                "for a domain's subdomains");
  }
  auto canonical = Canonicalize(host);
  if (!canonical) {
    return Error(Quoted(text) + " is not a host name (" + canonical.error().message +
                 "): write a name such as `example.com`");
  }
  if (entry.wildcard && canonical->ip) {
    return Error(Quoted(text) + " is a wildcard over an IP address: list addresses one by one");
  }
  if (entry.wildcard && canonical->name.find('.') == std::string::npos) {
    return Error(Quoted(text) + " would allow a whole top-level domain: name a domain, as in "
                                "`*.example.com`");
  }
  entry.host = canonical->name;
  return entry;
}

}  // namespace corral::policy
