// The oracle's current policy and compiled list, reloaded when the config
// file changes. Private to policy/.
#pragma once

#include <sys/stat.h>

#include <mutex>

#include "policy/policy.h"

namespace corral::policy {

struct OracleState {
  Policy policy;
  Matcher matcher;
};

class OracleStateHolder {
 public:
  // Loads the policy once; an error here stops the oracle from starting.
  // `on_copy` (may be empty) is told each rewritten copy's text.
  static Result<std::unique_ptr<OracleStateHolder>> Create(
      LoadOptions source, std::string deny_list_copy,
      std::function<void(const std::string&)> on_copy = nullptr);

  // The current state; reloads first when the config file changed. A config
  // that no longer loads keeps the last good state (and says so once).
  std::shared_ptr<const OracleState> Current();

 private:
  OracleStateHolder(LoadOptions source, std::string deny_list_copy,
                    std::function<void(const std::string&)> on_copy);
  Result<void> Reload();
  bool ConfigChanged();
  void WriteDenyListCopy(const std::vector<std::string>& entries) const;

  LoadOptions source_;
  std::string config_path_;
  std::string deny_list_copy_;
  std::function<void(const std::string&)> on_copy_;
  std::mutex mu_;
  std::shared_ptr<const OracleState> state_;
  struct stat seen_ {};
  bool seen_exists_ = false;
};

}  // namespace corral::policy
