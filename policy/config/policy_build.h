// Settings (every key, validated by type) -> the typed Policy. Private.
#pragma once

#include "policy/config/config.h"

namespace corral::policy {

Result<Policy> BuildPolicy(std::map<std::string, Setting> settings);

}  // namespace corral::policy
