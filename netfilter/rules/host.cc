#include "netfilter/rules/rules.h"

namespace corral::netfilter {

Result<HostPort> ParseAuthority(std::string_view authority, std::optional<uint16_t> default_port) {
  std::string_view host = authority;
  std::optional<std::string_view> port_text;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error("malformed IPv6 literal (missing ']')");
    host = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return Error("unexpected text after the IPv6 literal");
      port_text = rest.substr(1);
    }
  } else if (std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port_text = authority.substr(colon + 1);
  }
  HostPort out;
  if (port_text) {
    auto port = ParsePort(*port_text);
    if (!port) return Error("port must be a number from 1 to 65535, in decimal without leading zeros");
    out.port = *port;
  } else if (default_port) {
    out.port = *default_port;
  } else {
    return Error("a port is required (host:port)");
  }
  auto canonical = Canonicalize(host);
  if (!canonical) return canonical.error();
  out.host = std::move(*canonical);
  return out;
}

}  // namespace corral::netfilter
