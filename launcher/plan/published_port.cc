// corral run --publish [HOST_ADDR:]HOST_PORT:BOX_PORT, read and written.
#include <arpa/inet.h>

#include "launcher/session_plan.h"

namespace corral::launcher {
namespace {

constexpr const char* kForm = "[HOST_ADDR:]HOST_PORT:BOX_PORT, e.g. 8080:3000 or 0.0.0.0:8080:3000";

std::optional<int> Port(const std::string& text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  int port = std::stoi(text);
  return port >= 1 && port <= 65535 ? std::optional(port) : std::nullopt;
}

}  // namespace

Result<PublishedPort> ParsePublishedPort(const std::string& text) {
  auto bad = [&text](const std::string& why) {
    return Error("--publish " + text + ": " + why + " (" + kForm + ")");
  };
  PublishedPort port;
  std::string rest = text;
  if (!rest.empty() && rest[0] == '[') {  // [IPv6]:HOST_PORT:BOX_PORT
    auto close = rest.find(']');
    if (close == std::string::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return bad("an IPv6 address is written in brackets, then ':'");
    }
    port.host_address = rest.substr(1, close - 1);
    rest = rest.substr(close + 2);
    in6_addr address{};
    if (::inet_pton(AF_INET6, port.host_address.c_str(), &address) != 1) {
      return bad("'" + port.host_address + "' is not an IPv6 address");
    }
  } else if (std::count(rest.begin(), rest.end(), ':') == 2) {
    port.host_address = rest.substr(0, rest.find(':'));
    rest = rest.substr(rest.find(':') + 1);
    in_addr address{};
    if (::inet_pton(AF_INET, port.host_address.c_str(), &address) != 1) {
      return bad("'" + port.host_address + "' is not an IPv4 address");
    }
  }
  auto colon = rest.find(':');
  if (colon == std::string::npos || rest.find(':', colon + 1) != std::string::npos) {
    return bad("give the host's port and the box's port");
  }
  auto host_port = Port(rest.substr(0, colon));
  auto box_port = Port(rest.substr(colon + 1));
  if (!host_port) return bad("'" + rest.substr(0, colon) + "' is not a port (1-65535)");
  if (!box_port) return bad("'" + rest.substr(colon + 1) + "' is not a port (1-65535)");
  port.host_port = *host_port;
  port.box_port = *box_port;
  return port;
}

std::string DescribePublishedPort(const PublishedPort& port) {
  bool v6 = port.host_address.find(':') != std::string::npos;
  return (v6 ? "[" + port.host_address + "]" : port.host_address) + ":" +
         std::to_string(port.host_port) + " -> " + std::to_string(port.box_port);
}

}  // namespace corral::launcher
