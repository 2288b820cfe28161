// Logins, checked once at Start: which login a host:port belongs to, where a
// stand-in may appear in a request, and the stream filter that puts real
// values in (and takes them out of what comes back) across reads and chunks.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "netfilter/host.h"
#include "netfilter/http_parser.h"

namespace corral::netfilter {

class LoginTable {
 public:
  // Every host must be "name:port" or "[v6]:port"; every value and stand-in
  // at least 8 bytes, of equal length (replacing one by the other keeps
  // Content-Length true), and no two alike.
  static Result<std::shared_ptr<const LoginTable>> Make(std::vector<Login> logins);

  bool empty() const { return logins_.empty(); }
  const std::vector<Login>& logins() const { return logins_; }

  // The logins whose hosts include `host`:`port`: decided from the parse that
  // routes the request, by canonical name (or IP) and port.
  std::vector<const Login*> For(const CanonicalHost& host, uint16_t port) const;

  // The first login whose stand-in occurs in `text`; with `mine`, the first
  // that is not one of those.
  const Login* StandInIn(std::string_view text, const std::vector<const Login*>& mine = {}) const;

 private:
  std::vector<Login> logins_;
  std::vector<std::vector<HostPort>> hosts_;  // per login
};

// The session's logins as they stand: a token endpoint's answer adds new
// ones (a refreshed subscription login) while connections are served. Each
// exchange takes the table as it is when its request arrives.
class LoginStore {
 public:
  explicit LoginStore(std::shared_ptr<const LoginTable> table) : table_(std::move(table)) {}
  std::shared_ptr<const LoginTable> Current() const;
  // The table with `more` after the logins it has (checked as at Start).
  Result<void> Add(std::vector<Login> more);

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const LoginTable> table_;
};

// The verdict on a request's head for a host (`mine`: the logins of that
// host, maybe none). The stand-in of one of `mine` is replaced by its real
// value in that login's header, written exactly as prefix + stand-in; found
// anywhere else in the head it goes as it is (a stand-in is no secret, and
// the host it belongs to may see it). The stand-in of any other login
// refuses the request: it would go to a host it does not belong to.
struct HeadVerdict {
  std::vector<std::string> added;  // names of the logins added
  std::optional<std::string> refused;  // why, naming the login, never a value
  const Login* refused_login = nullptr;
};
HeadVerdict ApplyLogins(const LoginTable& table, const std::vector<const Login*>& mine, RequestHead& head);

// Replaces each `from` with its `to` in a byte stream cut anywhere: a tail
// that could begin a match is held until the next bytes (or Finish) decide.
// Only a true prefix of a `from` is held, so an SSE event that cannot begin a
// secret is passed on whole, at once.
class StreamReplacer {
 public:
  StreamReplacer() = default;
  explicit StreamReplacer(std::vector<std::pair<std::string, std::string>> pairs);
  void Feed(std::string_view in, std::string& out);
  void Finish(std::string& out);  // the message ended: release the held tail
  bool matched() const { return matched_; }
  std::size_t held() const { return held_.size(); }

 private:
  void Run(std::string_view in, std::string& out, bool last);
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::string held_;
  bool matched_ = false;
};

// Real values back to stand-ins: what the box may receive.
StreamReplacer HideValues(const LoginTable& table);
// Stand-ins of `mine` that go in bodies (Login::in_body) to real values: a
// refresh token in the token request.
StreamReplacer BodyValues(const std::vector<const Login*>& mine);
// Stand-ins of logins other than `mine` found (and left as they are): what a
// request body to a host of `mine` may not carry.
StreamReplacer FindStandIns(const LoginTable& table, const std::vector<const Login*>& mine = {});

}  // namespace corral::netfilter
