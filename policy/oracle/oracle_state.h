// The oracle's current policy and compiled list, reloaded when the config
// file changes. Private to policy/oracle/.
#pragma once

#include <sys/stat.h>

#include <mutex>
#include <unordered_set>

#include "policy/oracle/oracle.h"

namespace corral::policy {

// Commands the matcher found nothing in: asked again, they are allowed
// without a parse, whoever watches (the matcher reads nothing but the text
// and the list). Agents ask the same few commands over and over; a parse of
// even `true` costs ~15 us of CPU on a cold cache, a lookup ~1 us. Bounded:
// emptied when its texts, each counted with kPerText for the set's own
// memory, pass kBudget bytes. Thread-safe.
class CleanCommands {
 public:
  bool Contains(const std::string& command) const;
  void Add(const std::string& command);

  static constexpr std::size_t kLongest = 4096;  // longer texts are not kept
  static constexpr std::size_t kBudget = 1 << 20;
  static constexpr std::size_t kPerText = 64;  // a node, its hash, a bucket

 private:
  mutable std::mutex mu_;
  std::unordered_set<std::string> texts_;
  std::size_t bytes_ = 0;
};

struct OracleState {
  Policy policy;
  Matcher matcher;
  mutable CleanCommands clean;  // for this matcher only: a reload starts afresh
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
