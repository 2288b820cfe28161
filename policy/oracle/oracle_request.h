// A question to the oracle (docs/architecture.md, "Wire format: shim ⇄ oracle"), read
// from its line. Private to policy/oracle/.
#pragma once

#include <string>
#include <string_view>

#include "policy/oracle/oracle.h"

namespace corral::policy {

struct OracleRequest {
  enum class Kind {
    kCommand,   // {"v":1,"command":...}: may this run?
    kWatching,  // {"ask":"watching"}: the shim's exec check
    kInvalid,   // anything else: refused
  };
  Kind kind = Kind::kInvalid;
  std::string command;
  std::string shell, cwd;  // "" when absent or not strings
  nlohmann::json program;  // as sent; null when absent
};

// Never throws, whatever the line holds. The usual line ({"v":1,"shell":...,
// "command":...,"cwd":...} in ASCII, each key once) is read directly; any
// other goes through nlohmann::json, and reads the same as it would there.
OracleRequest ReadOracleRequest(std::string_view line);

}  // namespace corral::policy
