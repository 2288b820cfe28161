// Where an engine listens, from the URL people give Docker and Podman:
// unix:///path, tcp://host:port (TLS when asked), ssh://[user@]host[:port][/socket].
#include <cctype>

#include "launcher/engine/engine.h"

namespace corral::launcher {
namespace {

bool StartsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

bool AllDigits(const std::string& text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// ssh://[user@]host[:port][/path]: the socket path is the rest, '/' included
// (Podman's form); none means `docker system dial-stdio` there (Docker's).
Result<SshTarget> ParseSsh(const std::string& url, const std::string& source) {
  std::string rest = url.substr(6);
  SshTarget target;
  auto slash = rest.find('/');
  if (slash != std::string::npos) {
    target.socket = rest.substr(slash);
    rest.resize(slash);
  }
  auto at = rest.rfind('@');
  if (at != std::string::npos) {
    target.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
  }
  std::string host = rest;
  if (!rest.empty() && rest[0] == '[') {  // [::1]:22
    auto close = rest.find(']');
    if (close == std::string::npos) return Error(source + ": '" + url + "' has an unclosed '['");
    host = rest.substr(1, close - 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && rest[0] != ':') return Error(source + ": '" + url + "': junk after ']'");
    if (!rest.empty()) target.port = rest.substr(1);
  } else if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    target.port = rest.substr(colon + 1);
  }
  target.host = host;
  std::string why;
  if (target.host.empty()) why = "names no host";
  // A leading '-' would reach ssh as an option (-oProxyCommand=...).
  else if (target.host[0] == '-' || (!target.user.empty() && target.user[0] == '-'))
    why = "has a host or user starting with '-'";
  else if (at != std::string::npos && target.user.empty()) why = "has an empty user before '@'";
  else if (!target.port.empty() && (!AllDigits(target.port) || target.port.size() > 5))
    why = "has a port that is not a number";
  else if (target.socket == "/") why = "names '/' as the socket";
  if (!why.empty()) {
    return Error(source + ": '" + url + "' " + why + " (ssh://[user@]host[:port][/path/to/socket])");
  }
  return target;
}

}  // namespace

Result<Endpoint> ParseEndpoint(const std::string& url, const std::string& source,
                               const TlsSettings& tls) {
  Endpoint e;
  e.url = url;
  e.source = source;
  if (StartsWith(url, "unix://")) {
    e.socket_path = url.substr(7);
    e.base = "http://localhost";
    if (e.socket_path.empty()) return Error(source + ": " + url + " names no socket path");
    return e;
  }
  if (!url.empty() && url[0] == '/') return ParseEndpoint("unix://" + url, source);
  if (StartsWith(url, "ssh://")) {
    auto target = ParseSsh(url, source);
    if (!target) return target.error();
    e.ssh = *target;
    e.base = "http://localhost";  // over the local end of the tunnel (ssh_tunnel.cc)
    return e;
  }
  if (StartsWith(url, "tcp://") || StartsWith(url, "https://") || StartsWith(url, "http://")) {
    std::string hostport = url.substr(url.find("://") + 3);
    hostport = hostport.substr(0, hostport.find('/'));
    if (hostport.empty()) return Error(source + ": '" + url + "' names no host");
    bool secure = StartsWith(url, "https://") || tls.on;
    e.base = (secure ? "https://" : "http://") + hostport;
    if (secure) {
      e.ca = tls.ca;
      e.cert = tls.cert;
      e.key = tls.key;
    }
    return e;
  }
  return Error(source + ": '" + url +
               "' is not unix:///path, tcp://host:port or ssh://[user@]host[:port][/socket]");
}

TlsSettings TlsFromEnvironment(const std::function<const char*(const char*)>& getenv,
                               const std::string& home) {
  auto get = [&](const char* name) -> std::string {
    const char* value = getenv ? getenv(name) : nullptr;
    return value ? value : "";
  };
  TlsSettings tls;
  std::string verify = get("DOCKER_TLS_VERIFY");
  std::string dir = get("DOCKER_CERT_PATH");
  if (dir.empty() && !home.empty()) dir = home + "/.docker";  // Docker's default
  tls.on = !verify.empty() && verify != "0";
  if (tls.on) {
    tls.ca = dir + "/ca.pem";
    tls.cert = dir + "/cert.pem";
    tls.key = dir + "/key.pem";
  }
  // --engine-tls-* (which set these) name single files and turn TLS on.
  for (auto [name, field] : {std::pair{"CORRAL_ENGINE_TLS_CA", &tls.ca},
                             std::pair{"CORRAL_ENGINE_TLS_CERT", &tls.cert},
                             std::pair{"CORRAL_ENGINE_TLS_KEY", &tls.key}}) {
    if (std::string file = get(name); !file.empty()) {
      *field = file;
      tls.on = true;
    }
  }
  return tls;
}

}  // namespace corral::launcher
