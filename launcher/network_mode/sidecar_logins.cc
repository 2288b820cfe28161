// The logins a proxy elsewhere holds, as the JSON `corral proxy --logins-env`
// reads (docs/logins.md): written by the session for its sidecar, and by the
// Kubernetes rendering for its proxy Pod.
#include "launcher/network_mode/network_mode.h"

namespace corral::launcher::network_mode {

using nlohmann::json;

std::string ProxyLoginsJson(const ProxyLogins& logins, bool values_by_name) {
  json list = json::array();
  for (const netfilter::Login& login : logins.logins) {
    json entry = {{"name", login.name},       {"hosts", login.hosts},
                  {"header", login.header},   {"prefix", login.prefix},
                  {"stand_in", login.stand_in}};
    if (login.in_body) entry["in_body"] = true;
    if (login.basic) entry["basic"] = true;
    if (values_by_name) {
      entry["value_env"] = login.name;
    } else {
      entry["value"] = login.value;
    }
    list.push_back(std::move(entry));
  }
  json out = {{"logins", list}};
  if (!logins.ca.empty()) out["ca"] = {{"cert", logins.ca.cert}, {"key", logins.ca.key}};
  if (!logins.upstream_ca.empty()) out["upstream_ca"] = logins.upstream_ca;
  if (!logins.forge.empty()) out["forge"] = json::parse(netfilter::forge::ForgeConfigJson(logins.forge));
  return out.dump();
}

namespace {

// The string at `key` of `object`, "" when absent; an error when not a string.
Result<std::string> Text(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return Error(where + ": \"" + key + "\" must be a string");
  return it->get<std::string>();
}

Result<netfilter::Login> LoginOf(const json& entry, std::size_t index,
                                 const std::function<const char*(const char*)>& getenv) {
  std::string where = "login " + std::to_string(index + 1);
  if (!entry.is_object()) return Error(where + " is not an object");
  netfilter::Login login;
  for (auto [key, field] : {std::pair{"name", &login.name}, std::pair{"header", &login.header},
                            std::pair{"prefix", &login.prefix}, std::pair{"value", &login.value},
                            std::pair{"stand_in", &login.stand_in}}) {
    auto text = Text(entry, key, where);
    if (!text) return text.error();
    *field = std::move(*text);
  }
  if (!login.name.empty()) where = "login " + login.name;
  auto hosts = entry.find("hosts");
  if (hosts == entry.end() || !hosts->is_array() || hosts->empty()) {
    return Error(where + ": \"hosts\" must list host:port entries");
  }
  for (const json& host : *hosts) {
    if (!host.is_string()) return Error(where + ": \"hosts\" must list host:port entries");
    login.hosts.push_back(host.get<std::string>());
  }
  for (auto [key, flag] : {std::pair{"in_body", &login.in_body}, std::pair{"basic", &login.basic}}) {
    auto it = entry.find(key);
    if (it == entry.end()) continue;
    if (!it->is_boolean()) return Error(where + ": \"" + key + "\" must be true or false");
    *flag = it->get<bool>();
  }
  auto by_name = Text(entry, "value_env", where);
  if (!by_name) return by_name.error();
  if (!by_name->empty()) {
    if (!login.value.empty()) return Error(where + ": give \"value\" or \"value_env\", not both");
    const char* value = getenv ? getenv(by_name->c_str()) : nullptr;
    if (!value || !*value) {
      return Error(where + ": $" + *by_name + " is not set in the proxy's environment (its "
                   "value comes from there: give the proxy that variable)");
    }
    login.value = value;
  }
  // A login only in request bodies may have no header (the proxy checks the rest).
  if (login.name.empty() || (login.header.empty() && !login.in_body) || login.value.empty() ||
      login.stand_in.empty()) {
    return Error(where + ": \"name\", \"header\", \"stand_in\" and \"value\" (or \"value_env\") "
                 "are required");
  }
  if (login.value.size() != login.stand_in.size()) {
    return Error(where + ": its value is " + std::to_string(login.value.size()) +
                 " bytes and its stand-in " + std::to_string(login.stand_in.size()) +
                 ": the box's stand-in was made from another value (make the stand-ins again "
                 "from the value the proxy has)");
  }
  return login;
}

}  // namespace

Result<ProxyLogins> ParseProxyLogins(std::string_view text,
                                     const std::function<const char*(const char*)>& getenv) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error("the logins are not a JSON object");
  ProxyLogins out;
  auto list = doc.find("logins");
  if (list == doc.end() || !list->is_array()) return Error("the logins have no \"logins\" list");
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto login = LoginOf((*list)[i], i, getenv);
    if (!login) return login.error();
    out.logins.push_back(std::move(*login));
  }
  if (auto ca = doc.find("ca"); ca != doc.end()) {
    if (!ca->is_object()) return Error("the logins' \"ca\" must be an object with cert and key");
    auto cert = Text(*ca, "cert", "the logins' ca");
    auto key = Text(*ca, "key", "the logins' ca");
    if (!cert) return cert.error();
    if (!key) return key.error();
    if (cert->empty() || key->empty()) return Error("the logins' \"ca\" needs both cert and key");
    out.ca = {std::move(*cert), std::move(*key)};
  }
  auto upstream = Text(doc, "upstream_ca", "the logins");
  if (!upstream) return upstream.error();
  out.upstream_ca = std::move(*upstream);
  if (auto forge = doc.find("forge"); forge != doc.end()) {
    auto parsed = netfilter::forge::ParseForgeConfigJson(forge->dump());
    if (!parsed) return parsed.error();
    out.forge = std::move(*parsed);
  }
  return out;
}

Result<SidecarLogins> MakeSidecarLogins(std::vector<netfilter::Login> logins,
                                        const std::string& upstream_ca_text,
                                        netfilter::forge::ForgeConfig forge) {
  if (logins.empty() && forge.empty()) return SidecarLogins{};
  auto ca = netfilter::MakeSessionCaPem();
  if (!ca) return ca.error().Context("the proxy sidecar's session CA");
  ProxyLogins held{std::move(logins), *ca, upstream_ca_text, std::move(forge)};
  SidecarLogins out{ProxyLoginsJson(held), ca->cert, !upstream_ca_text.empty()};
  if (out.blob.size() > kMaxProxyLoginsBytes) {
    return Error("the logins for the proxy sidecar take " + std::to_string(out.blob.size()) +
                 " bytes, more than an environment variable holds (" +
                 std::to_string(kMaxProxyLoginsBytes) + "): network.upstream_ca_file is too "
                 "big; name a file with only the CAs your login hosts need");
  }
  return out;
}

}  // namespace corral::launcher::network_mode
