// The session's host services: the oracle and the proxy, writing to the record.
#include "launcher/session/session.h"
#include "policy/presence/presence.h"

namespace corral::launcher {

std::function<bool()> Watching(const policy::PresencePolicy& presence) {
  auto sources = policy::MakePresenceSources(presence);
  if (!sources) {
    log::warn("presence: " + sources.error().message + "; treating the user as away");
    return [] { return false; };
  }
  auto shared = std::make_shared<std::vector<std::unique_ptr<policy::PresenceSource>>>(
      std::move(*sources));
  return [shared] { return policy::CheckPresence(*shared).watching; };
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
  if (services.notifier->active()) {
    oracle.on_refused_while_away = [notifier = services.notifier.get()](
                                       const policy::InboxItem& item) { notifier->Add(item); };
  }
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
    auto proxy = netfilter::Proxy::Start(config);
    if (!proxy) {
      services.Stop();
      return proxy.error().Context("the egress proxy did not start");
    }
    services.proxy = std::move(*proxy);
    // Before the box is made: its CA mount names this file.
    if (!plan.logins.empty() || !plan.login_files.empty()) {
      if (auto ok = WriteBoxCaBundle(plan, logins.ca_bundle, services.proxy->ca_pem()); !ok) {
        services.Stop();
        return ok.error();
      }
    }
  }
  return services;
}

std::string BlockedLine(std::uint64_t refused_while_away) {
  if (refused_while_away == 0) return "";
  return "Had " + std::to_string(refused_while_away) +
         (refused_while_away == 1 ? " command" : " commands") +
         " blocked while you were away: corral inbox";
}

}  // namespace corral::launcher
