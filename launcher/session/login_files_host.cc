// Login files on the host side (docs/logins.md, "Subscription logins"): the
// proxy's tokens are read from the user's file as it starts, and the new
// tokens a token endpoint gives are written back to it, so the user's own
// agent on the host stays logged in.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <mutex>

#include <nlohmann/json.hpp>

#include "base/time_text.h"
#include "launcher/plan/plan.h"
#include "launcher/session/session.h"

namespace corral::launcher {
namespace {

// Writes `text` beside `path` and renames it over it, mode 0600: a reader
// sees the old file or the new one, never half of one.
Result<void> ReplaceFile(const std::string& path, const std::string& text) {
  std::string temporary = path + ".corral-" + std::to_string(::getpid());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error::FromErrno("cannot write " + temporary);
  UniqueFd file(fd);
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::unlink(temporary.c_str());
      return Error::FromErrno("cannot write " + temporary);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return Error::FromErrno("cannot replace " + path);
  }
  return Ok();
}

}  // namespace

std::optional<std::string> ReadLoginFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  auto text = ReadWholeFile(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

Result<std::string> FileLoginValue(const BoxLogin& login) {
  auto changed = Error("the login in " + login.file + " changed while the session was being set up: "
                       "start the session again");
  auto text = ReadLoginFile(login.file);
  if (!text) return changed;
  auto json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  nlohmann::json::json_pointer pointer(login.pointer);
  if (!json.is_object() || !json.contains(pointer) || !json[pointer].is_string()) return changed;
  std::string value = json[pointer].get<std::string>();
  if (value.size() != login.stand_in.size()) return changed;
  return value;
}

std::vector<netfilter::TokenEndpoint> TokenEndpoints(const SessionPlan& plan) {
  std::vector<netfilter::TokenEndpoint> endpoints;
  for (const LoginFile& file : plan.login_files) {
    netfilter::TokenEndpoint endpoint;
    endpoint.name = file.path;
    for (const std::string& url : file.token_urls) {
      std::string host = HostOfUrl(url);
      std::size_t path = url.find('/', url.find("://") + 3);
      if (host.empty() || path == std::string::npos) continue;
      endpoint.hosts.push_back(host);
      endpoint.path = url.substr(path);  // the recipe's URLs share one path
    }
    for (const LoginFile::Token& token : file.tokens) {
      if (token.field.empty()) continue;  // not in the endpoint's answers
      netfilter::Login login{token.login.variable, token.login.hosts, token.login.header,
                             token.login.prefix,   "",                 "",
                             token.login.in_body};
      endpoint.fields.push_back({token.field, std::move(login)});
    }
    endpoints.push_back(std::move(endpoint));
  }
  return endpoints;
}

Result<void> KeepTokens(const LoginFile& file, const netfilter::TokenUpdate& update) {
  static std::mutex one_at_a_time;
  std::lock_guard lock(one_at_a_time);
  nlohmann::json json = nlohmann::json::object();
  if (auto text = ReadLoginFile(file.path)) {
    json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) {
      return Error(file.path + " is not a JSON object: the new tokens were not written to it");
    }
  }
  for (const LoginFile::Token& token : file.tokens) {
    auto it = update.tokens.find(token.field);
    if (token.field.empty() || it == update.tokens.end()) continue;
    json[nlohmann::json::json_pointer(token.pointer)] = it->second;
  }
  if (!file.expires_at_ms.empty() && update.expires_in) {
    auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    json[nlohmann::json::json_pointer(file.expires_at_ms)] = now_ms + *update.expires_in * 1000;
  }
  if (!file.refreshed_at.empty()) json[nlohmann::json::json_pointer(file.refreshed_at)] = UtcTime();
  std::string parent = file.path.substr(0, file.path.rfind('/'));
  ::mkdir(parent.c_str(), 0700);
  return ReplaceFile(file.path, json.dump(2) + "\n");
}

}  // namespace corral::launcher
