// Login files in the plan (docs/logins.md, "Subscription logins"): each
// token in the host's file gets a stand-in, which the box's copy holds in
// its place; the session's proxy holds the real token, read again from the
// host's file when it starts.
#include <nlohmann/json.hpp>

#include "launcher/plan/plan.h"
#include "netfilter/netfilter.h"

namespace corral::launcher {
namespace {

// The plan's hosts for a token: host:port, its base URL's when that is set.
BoxLogin Resolved(const BoxLogin& login, const PlanInput& input) {
  BoxLogin planned = login;
  const char* base_url = input.getenv && !login.base_url_variable.empty()
                             ? input.getenv(login.base_url_variable.c_str())
                             : nullptr;
  planned.hosts = LoginHosts(login, base_url);
  return planned;
}

// The box's copy of `text`, and its tokens as logins; nullopt (and a note)
// when a token cannot stand in, or the file is not JSON.
std::optional<std::string> StandInFor(const LoginFile& file, const std::string& text, const PlanInput& input,
                                      SessionPlan& plan) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    plan.notes.push_back("warning: login file " + file.path + " is not a JSON object: the box gets no copy of it");
    return std::nullopt;
  }
  std::vector<BoxLogin> found;
  for (const LoginFile::Token& token : file.tokens) {
    nlohmann::json::json_pointer pointer(token.pointer);
    if (!json.contains(pointer) || !json[pointer].is_string()) continue;
    std::string value = json[pointer].get<std::string>();
    if (value.empty()) continue;
    BoxLogin login = Resolved(token.login, input);
    login.file = file.path;
    login.pointer = token.pointer;
    // A token also in a login variable keeps that one's stand-in: the proxy
    // holds one login for one value.
    for (const BoxLogin& other : plan.logins) {
      const char* other_value = other.file.empty() && input.getenv ? input.getenv(other.variable.c_str()) : nullptr;
      if (other_value && value == other_value) login.stand_in = other.stand_in;
    }
    if (login.stand_in.empty()) login.stand_in = netfilter::MakeStandIn(value);
    if (login.stand_in.empty()) {
      plan.notes.push_back("warning: the " + login.variable + " in " + file.path +
                           " is too short to stand in for: the box gets no copy of the file");
      return std::nullopt;
    }
    json[pointer] = login.stand_in;
    found.push_back(std::move(login));
  }
  plan.logins.insert(plan.logins.end(), found.begin(), found.end());
  return json.dump(2) + "\n";
}

}  // namespace

void PlanLoginFiles(const PlanInput& input, SessionPlan& plan) {
  if (!input.logins_through_proxy || input.agent.logins_pass) return;
  for (LoginFile file : input.agent.login_files) {
    for (LoginFile::Token& token : file.tokens) token.login = Resolved(token.login, input);
    auto text = input.read_login_file ? input.read_login_file(file.path) : std::nullopt;
    if (text) plan.box_login_files[file.path] = StandInFor(file, *text, input, plan);
    plan.login_files.push_back(std::move(file));
  }
}

}  // namespace corral::launcher
