// The `log` sink's decision lines: one JSON object each, for the event loop
// and the login terminator alike.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace corral::netfilter {

struct Decision {
  std::string client;  // the box's address
  std::string method;
  std::string host;
  uint16_t port = 0;
  std::optional<std::string> address;  // the origin's, once dialed
  std::string decision;                // "allow", "deny", "error"
  std::string reason;
  int status = 0;
  uint64_t bytes_up = 0, bytes_down = 0;
  int64_t duration_ms = 0;
  std::optional<std::string> login;  // a login added to the request: its name, never its value
  // A stand-in refused: "credential-to-wrong-host".
  std::optional<std::string> credential;
  // The forge's judgement (docs/forge.md): the rule that decided, and the
  // repository the request named.
  std::optional<std::string> forge_rule, repository;
  std::optional<std::string> path;  // on a forge host: the request's path, which the rule judged
};

void WriteDecision(const std::function<void(std::string_view)>& log, const Decision& decision);

}  // namespace corral::netfilter
