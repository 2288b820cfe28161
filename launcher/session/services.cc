// The session's host services: the oracle and the proxy, writing to the record.
#include <algorithm>
#include <mutex>

#include "launcher/session/session.h"
#include "policy/presence/presence.h"
#include "launcher/launcher.h"

namespace corral::launcher {

std::function<bool()> Watching(const policy::PresencePolicy& presence) {
  auto sources = policy::MakePresenceSources(presence);
  if (!sources) {
    log::warn("presence: " + sources.error().message + "; treating the user as away");
    return [] { return false; };
  }
  auto shared = std::make_shared<std::vector<std::unique_ptr<policy::PresenceSource>>>(
      std::move(*sources));
  // The proxy asks from its connections' threads, at once: one asks at a time.
  auto mutex = std::make_shared<std::mutex>();
  return [shared, mutex] {
    std::lock_guard lock(*mutex);
    return policy::CheckPresence(*shared).watching;
  };
}

void DenyListCopies::Written(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (receiver_) receiver_(text);
}

void DenyListCopies::SendTo(std::function<void(const std::string&)> receiver) {
  std::lock_guard<std::mutex> lock(mu_);
  receiver_ = std::move(receiver);
}

std::uint64_t HostServices::Stop() {
  if (proxy) proxy->Stop();
  std::uint64_t refused = 0;
  if (oracle) {
    oracle->Stop();
    refused = oracle->Stats().refused_while_away;
  }
  notifier.reset();  // sends what is queued, briefly
  return refused;
}

Result<HostServices> StartServices(const policy::Policy& policy,
                                   const policy::LoadOptions& policy_source,
                                   const SessionPlan& plan, bool with_proxy,
                                   SessionRecord& record, const LoginSource& logins) {
  HostServices services;

  policy::OracleOptions oracle;
  oracle.socket_path = plan.session_dir + "/" + kOracleSocket;
  oracle.policy_source = policy_source;
  oracle.deny_list_copy = plan.session_dir + "/" + kDenyListFile;
  oracle.on_deny_list_copy = [copies = services.deny_list_copies](const std::string& text) {
    copies->Written(text);
  };
  oracle.record = [&record](std::string_view line) { record.Command(line); };
  oracle.inbox_dir = policy::StateDir();
  oracle.session = plan.session_id;
  oracle.project = plan.project_dir;
  oracle.agent = plan.labels.count("corral.agent") ? plan.labels.at("corral.agent") : "";
  oracle.watching = Watching(policy.presence);
  services.notifier = std::make_unique<Notifier>(policy.notify, Notifier::DesktopAvailable());
  oracle.on_refused_while_away = [notifier = services.notifier->active() ? services.notifier.get()
                                                                         : nullptr,
                                  refused = services.refused_while_away](
                                     const policy::InboxItem& item) {
    refused->Add(item);
    if (notifier) notifier->Add(item);
  };
  auto started = policy::Oracle::Start(std::move(oracle));
  if (!started) return started.error().Context("the command oracle did not start");
  services.oracle = std::move(*started);

  if (with_proxy) {
    netfilter::ProxyConfig config = netfilter::FromPolicy(policy.network);
    config.rules.allowed_domains = plan.allowed_domains;  // policy's plus the git host
    config.listen = "unix:" + plan.session_dir + "/" + kProxySocket;
    config.log = [&record](std::string_view line) { record.Network(line); };
    auto held = ProxyLogins(plan, logins);
    if (!held) {
      services.Stop();
      return held.error();
    }
    config.logins = std::move(*held);
    config.token_endpoints = TokenEndpoints(plan);
    config.on_tokens = [files = plan.login_files, &record](const netfilter::TokenUpdate& update) {
      for (const LoginFile& file : files) {
        if (file.path != update.endpoint) continue;
        auto kept = KeepTokens(file, update);
        nlohmann::json event = {{"event", "login_tokens_kept"}, {"file", file.path}, {"kept", kept.ok()}};
        if (!kept) event["error"] = kept.error().message;  // names the file, never a token
        record.Write(std::move(event));
      }
    };
    config.upstream_ca_file = UpstreamCaFile(policy, logins.ca_bundle);
    config.forge = ForgeConfig(plan.forge);
    if (plan.request_rules) {
      netfilter::requests::RequestRulesConfig judged;
      judged.rules = policy.network.rules;
      judged.publish = policy.network.publish;
      judged.allowed_domains = plan.allowed_domains;
      for (const auto& [host, kind] : plan.tool_registries) {
        if (auto named = netfilter::requests::RegistryKindNamed(kind)) judged.registries.push_back({host, *named});
      }
      config.requests = std::move(judged);
    }
    config.watching = Watching(policy.presence);
    auto proxy = netfilter::Proxy::Start(config);
    if (!proxy) {
      services.Stop();
      return proxy.error().Context("the egress proxy did not start");
    }
    services.proxy = std::move(*proxy);
    // Before the box is made: its CA mount names this file.
    if (EndsTls(plan)) {
      if (auto ok = WriteBoxCaBundle(plan, logins.ca_bundle, services.proxy->ca_pem()); !ok) {
        services.Stop();
        return ok.error();
      }
    }
  }
  return services;
}

void RefusedWhileAway::Add(const policy::InboxItem& item) {
  std::string command = item.refused.empty() ? item.command : item.refused;
  if (auto cut = command.find('\n'); cut != std::string::npos || command.size() > 80) {
    command = command.substr(0, std::min<std::size_t>(cut, 80)) + "\xe2\x80\xa6";
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (named_.size() < kNamed && std::find(named_.begin(), named_.end(), command) == named_.end()) {
    named_.push_back(std::move(command));
  }
}

std::vector<std::string> RefusedWhileAway::Named() const {
  std::lock_guard<std::mutex> lock(mu_);
  return named_;
}

std::string BlockedLine(std::uint64_t refused_while_away, const std::vector<std::string>& named) {
  if (refused_while_away == 0) return "";
  std::string line = "Had " + std::to_string(refused_while_away) +
                     (refused_while_away == 1 ? " command" : " commands") +
                     " blocked while you were away";
  if (!named.empty()) {
    std::string list;
    for (const std::string& command : named) list += (list.empty() ? "`" : ", `") + command + "`";
    line += " (" + list + (refused_while_away > named.size() ? ", ..." : "") + ")";
  }
  return line + ": corral inbox";
}

}  // namespace corral::launcher
