#include "netfilter/logins/logins.h"

#include <nlohmann/json.hpp>

namespace corral::netfilter {
namespace {

bool Matches(const std::vector<HostPort>& hosts, const CanonicalHost& host, uint16_t port) {
  for (const HostPort& hp : hosts) {
    if (hp.port == port && hp.host.name == host.name) return true;
  }
  return false;
}

Result<std::vector<HostPort>> ParseHosts(const std::vector<std::string>& hosts, const std::string& where) {
  std::vector<HostPort> out;
  for (const std::string& host : hosts) {
    auto parsed = ParseAuthority(host, std::nullopt);
    if (!parsed) return Error(where + ": host '" + host + "' must be NAME:PORT: " + parsed.error().message);
    out.push_back(*parsed);
  }
  return out;
}

void ReplaceAll(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

Result<std::shared_ptr<const TokenEndpoints>> TokenEndpoints::Make(std::vector<TokenEndpoint> endpoints) {
  auto made = std::make_shared<TokenEndpoints>();
  for (const TokenEndpoint& endpoint : endpoints) {
    std::string where = "token endpoint '" + endpoint.name + "'";
    if (endpoint.name.empty()) return Error("a token endpoint has no name; give each one a name for the log");
    if (endpoint.hosts.empty()) return Error(where + " names no host");
    if (endpoint.path.empty() || endpoint.path[0] != '/') return Error(where + ": its path must begin with '/'");
    if (endpoint.fields.empty()) return Error(where + " names no token field");
    auto hosts = ParseHosts(endpoint.hosts, where);
    if (!hosts) return hosts.error();
    made->covered_.insert(made->covered_.end(), hosts->begin(), hosts->end());
    made->hosts_.push_back(std::move(*hosts));
    for (const TokenEndpoint::Field& field : endpoint.fields) {
      std::string of = where + ", field '" + field.field + "'";
      if (field.field.empty() || field.login.name.empty()) return Error(of + ": name the field and its login");
      auto goes = ParseHosts(field.login.hosts, of);
      if (!goes) return goes.error();
      made->covered_.insert(made->covered_.end(), goes->begin(), goes->end());
    }
  }
  made->endpoints_ = std::move(endpoints);
  return std::shared_ptr<const TokenEndpoints>(std::move(made));
}

const TokenEndpoint* TokenEndpoints::For(const CanonicalHost& host, uint16_t port, std::string_view method,
                                         std::string_view target) const {
  if (method != "POST") return nullptr;
  std::string_view path = target.substr(0, target.find('?'));
  for (std::size_t i = 0; i < endpoints_.size(); ++i) {
    if (endpoints_[i].path == path && Matches(hosts_[i], host, port)) return &endpoints_[i];
  }
  return nullptr;
}

bool TokenEndpoints::Covers(const CanonicalHost& host, uint16_t port) const {
  return Matches(covered_, host, port);
}

Result<CapturedTokens> CaptureTokens(const TokenEndpoint& endpoint, const LoginTable& held, std::string& body) {
  CapturedTokens captured;
  captured.update.endpoint = endpoint.name;
  auto answer = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) return captured;  // not JSON: an error page holds no token
  std::vector<std::pair<std::string, std::string>> swaps;  // real, stand-in
  for (const TokenEndpoint::Field& field : endpoint.fields) {
    auto it = answer.find(field.field);
    if (it == answer.end() || !it->is_string()) continue;
    std::string value = it->get<std::string>();
    captured.update.tokens[field.field] = value;
    std::string stand_in;
    for (const Login& login : held.logins()) {
      if (login.value == value) stand_in = login.stand_in;
    }
    for (const Login& login : captured.logins) {
      if (login.value == value) stand_in = login.stand_in;
    }
    if (stand_in.empty()) {
      stand_in = MakeStandIn(value);
      if (stand_in.empty()) {
        return Error("the token endpoint's " + field.field + " is too short to stand in for");
      }
      Login login = field.login;
      login.value = value;
      login.stand_in = stand_in;
      captured.logins.push_back(std::move(login));
    }
    swaps.emplace_back(value, stand_in);
  }
  if (auto it = answer.find("expires_in"); it != answer.end() && it->is_number_integer()) {
    captured.update.expires_in = it->get<int64_t>();
  }
  for (const auto& [value, stand_in] : swaps) ReplaceAll(body, value, stand_in);
  // Each token must now read as its stand-in: one written with JSON escapes
  // was not found above, and would reach the box as it is.
  auto after = nlohmann::json::parse(body, nullptr, false);
  for (const TokenEndpoint::Field& field : endpoint.fields) {
    auto it = after.is_object() ? after.find(field.field) : after.end();
    if (it == after.end() || !it->is_string()) continue;
    for (const auto& [value, stand_in] : swaps) {
      if (it->get<std::string>() == value) {
        return Error("the token endpoint's " + field.field + " could not be replaced where it is written");
      }
    }
  }
  return captured;
}

}  // namespace corral::netfilter
