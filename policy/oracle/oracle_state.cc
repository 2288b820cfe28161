#include "policy/oracle/oracle_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

namespace corral::policy {

bool CleanCommands::Contains(const std::string& command) const {
  std::lock_guard lock(mu_);
  return texts_.count(command) != 0;
}

void CleanCommands::Add(const std::string& command) {
  if (command.size() > kLongest) return;
  std::lock_guard lock(mu_);
  std::size_t cost = command.size() + kPerText;
  if (bytes_ + cost > kBudget) {
    texts_.clear();
    bytes_ = 0;
  }
  if (texts_.insert(command).second) bytes_ += cost;
}

OracleStateHolder::OracleStateHolder(LoadOptions source, std::string deny_list_copy,
                                     std::function<void(const std::string&)> on_copy)
    : source_(std::move(source)),
      config_path_(ResolveConfigPath(source_)),
      deny_list_copy_(std::move(deny_list_copy)),
      on_copy_(std::move(on_copy)) {}

Result<std::unique_ptr<OracleStateHolder>> OracleStateHolder::Create(
    LoadOptions source, std::string deny_list_copy,
    std::function<void(const std::string&)> on_copy) {
  std::unique_ptr<OracleStateHolder> holder(new OracleStateHolder(
      std::move(source), std::move(deny_list_copy), std::move(on_copy)));
  holder->ConfigChanged();  // remember the file as it is now
  if (auto loaded = holder->Reload(); !loaded) return loaded.error();
  return holder;
}

bool OracleStateHolder::ConfigChanged() {
  struct stat now {};
  bool exists = !config_path_.empty() && ::stat(config_path_.c_str(), &now) == 0;
  // Editors often replace the file (new inode) rather than write in place.
  bool changed = exists != seen_exists_ ||
                 (exists && (now.st_mtim.tv_sec != seen_.st_mtim.tv_sec ||
                             now.st_mtim.tv_nsec != seen_.st_mtim.tv_nsec ||
                             now.st_size != seen_.st_size || now.st_ino != seen_.st_ino));
  seen_ = now;
  seen_exists_ = exists;
  return changed;
}

Result<void> OracleStateHolder::Reload() {
  auto policy = Load(source_);
  if (!policy) return policy.error();
  auto matcher = Matcher::Create(policy->deny_unattended);
  if (!matcher) return matcher.error();
  WriteDenyListCopy(policy->deny_unattended);
  state_ = std::make_shared<const OracleState>(std::move(*policy), std::move(*matcher));
  return Ok();
}

std::shared_ptr<const OracleState> OracleStateHolder::Current() {
  std::lock_guard lock(mu_);
  if (ConfigChanged()) {
    if (auto reloaded = Reload(); !reloaded) {
      log::warn("the config changed but does not load, so the previous deny list stays: " +
                reloaded.error().message);
    } else {
      log::info("config changed; deny list reloaded");
    }
  }
  return state_;
}

void OracleStateHolder::WriteDenyListCopy(const std::vector<std::string>& entries) const {
  if (deny_list_copy_.empty()) return;
  // Written beside and renamed over, so the shim never reads half a list.
  std::string text = "# corral: the deny list of this session (the shim's fallback)\n";
  for (const auto& entry : entries) text += entry + "\n";
  std::string temp = deny_list_copy_ + ".new";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << text;
  }
  if (::rename(temp.c_str(), deny_list_copy_.c_str()) != 0) {
    log::warn("cannot write the deny list copy " + deny_list_copy_ + ": " + std::strerror(errno));
    return;
  }
  if (on_copy_) on_copy_(text);
}

}  // namespace corral::policy
