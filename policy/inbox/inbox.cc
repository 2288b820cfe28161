// The inbox of commands refused while the user was away: JSON lines under an
// exclusive flock, so concurrent sessions append safely.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "policy/inbox/inbox.h"

namespace corral::policy {
namespace {

constexpr std::size_t kMaxInboxBytes = 16 << 20;  // reading stops here

Result<UniqueFd> OpenInbox(const std::string& state_dir) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) return Error("cannot create " + state_dir + ": " + ec.message());
  return OpenLocked(state_dir + "/inbox.jsonl", O_APPEND);
}

nlohmann::json ToJson(const InboxItem& item) {
  nlohmann::json j = {{"time", item.time},   {"session", item.session}, {"project", item.project},
                      {"agent", item.agent}, {"command", item.command}, {"entry", item.entry}};
  if (!item.refused.empty()) j["refused"] = item.refused;
  if (item.kind != "command") {
    j["kind"] = item.kind;
    j["times"] = item.times;
  }
  return j;
}

InboxItem FromJson(const nlohmann::json& j) {
  auto get = [&j](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  InboxItem item;
  item.time = get("time");
  item.session = get("session");
  item.project = get("project");
  item.agent = get("agent");
  item.command = get("command");
  item.entry = get("entry");
  item.refused = get("refused");
  if (j.contains("kind") && j["kind"].is_string()) item.kind = j["kind"].get<std::string>();
  if (j.contains("times") && j["times"].is_number_unsigned()) item.times = j["times"].get<std::uint64_t>();
  return item;
}

}  // namespace

Result<void> InboxAdd(const std::string& state_dir, const InboxItem& item) {
  auto fd = OpenInbox(state_dir);
  if (!fd) return fd.error();
  std::string line = ToJson(item).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd->get(), line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::FromErrno("cannot write to the inbox in " + state_dir);
    done += static_cast<std::size_t>(n);
  }
  return Ok();
}

Result<std::vector<InboxItem>> InboxTake(const std::string& state_dir, bool keep) {
  auto fd = OpenInbox(state_dir);
  if (!fd) return fd.error();
  std::string text;
  char buffer[8192];
  ssize_t n;
  while ((n = ::pread(fd->get(), buffer, sizeof buffer, static_cast<off_t>(text.size()))) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::FromErrno("cannot read the inbox in " + state_dir);
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxInboxBytes) break;
  }
  std::vector<InboxItem> items;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    auto parsed = nlohmann::json::parse(text.substr(start, end - start), nullptr, false);
    if (parsed.is_object()) items.push_back(FromJson(parsed));  // a torn line is skipped
    start = end + 1;
  }
  if (!keep && ::ftruncate(fd->get(), 0) != 0) {
    return Error::FromErrno("cannot clear the inbox in " + state_dir);
  }
  return items;
}

}  // namespace corral::policy
