// A remote's URL, read the way git reads it (connect.c, transport.c), so the
// proxy's scope holds the repositories git would reach.
#include <cstddef>
#include <string>

#include "netfilter/forge/forge_text.h"
#include "netfilter/forge/repo_path.h"

namespace corral::netfilter::forge {
namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The scheme git would see: letters first, then letters, digits, '+', '.', '-'.
std::size_t SchemeLength(std::string_view url) {
  std::size_t i = 0;
  while (i < url.size() && (IsAlpha(url[i]) || (i > 0 && (IsDigit(url[i]) || url[i] == '+' ||
                                                          url[i] == '.' || url[i] == '-')))) {
    ++i;
  }
  return i;
}

// A host name ("github.com") or bracketed IPv6 literal ("[::1]"), lower case.
Result<std::string> ParseHost(std::string_view host) {
  if (host.empty()) return Error("names no host");
  if (host.front() == '[') {
    if (host.size() < 4 || host.back() != ']' ||
        host.find_first_not_of("0123456789abcdefABCDEF:.", 1) != host.size() - 1 ||
        host.find(':') == std::string_view::npos) {
      return Error("has the host " + Quoted(host) + ", which is not an IPv6 address in brackets");
    }
    return AsciiLower(host);
  }
  bool label_start = true;
  for (char c : host) {
    bool dot = c == '.';
    if (!(IsAlpha(c) || IsDigit(c) || c == '-' || c == '_' || dot) || (dot && label_start)) {
      return Error("has the host " + Quoted(host) +
                   ", which is not a host name (letters, digits, '-', dots between labels)");
    }
    label_start = dot;
  }
  if (label_start || host.size() > 253) {
    return Error("has the host " + Quoted(host) + ", which is not a host name");
  }
  return AsciiLower(host);
}

// "host", "host:port", "[v6]", "[v6]:port" as "host:port".
Result<std::string> ParseHostPort(std::string_view text, std::string_view default_port) {
  std::size_t close = text.front() == '[' ? text.find(']') : 0;
  if (close == std::string_view::npos) return Error("has an unclosed '[' in its host");
  std::size_t colon = text.find(':', close);
  auto host = ParseHost(text.substr(0, colon));
  if (!host) return host.error();
  if (colon == std::string_view::npos) return *host + ":" + std::string(default_port);
  std::string_view port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string_view::npos ||
      std::stoul(std::string(port)) == 0 || std::stoul(std::string(port)) > 65535) {
    return Error("has the port " + Quoted(port) + "; a port is a number from 1 to 65535");
  }
  return *host + ":" + std::to_string(std::stoul(std::string(port)));
}

// scheme://[user[:pass]@]host[:port]/path: git decodes the path's escapes.
Result<Remote> ParseUrlForm(std::string_view scheme_text, std::string_view rest) {
  // The transports git reaches a forge by, and the port each uses by default.
  struct Transport {
    std::string_view scheme, name, port;
  };
  constexpr Transport kTransports[] = {
      {"https", "https", "443"}, {"http", "http", "80"},   {"ssh", "ssh", "22"},
      {"git+ssh", "ssh", "22"},  {"ssh+git", "ssh", "22"}, {"git", "git", "9418"},
  };
  std::string scheme = AsciiLower(scheme_text);
  if (scheme == "file") return Error("is a repository on this machine, not on a forge");
  Remote remote;
  std::string_view port;
  for (const Transport& transport : kTransports) {
    if (scheme == transport.scheme) {
      remote.scheme = transport.name;
      port = transport.port;
    }
  }
  if (remote.scheme.empty()) {
    return Error("uses the transport " + Quoted(scheme_text) +
                 "; a forge remote uses https or ssh");
  }

  if (rest.find_first_of("?#") != std::string_view::npos) {
    return Error("has a query or fragment; a remote's URL names a repository only");
  }
  std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return Error("names no repository after the host");
  std::string_view authority = rest.substr(0, slash);
  std::size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    if (authority.find('@') != at) return Error("has two '@' before its host");
    if (remote.scheme == "git") return Error("has a user name, which git:// does not take");
    authority.remove_prefix(at + 1);
  }
  if (authority.empty()) return Error("names no host");
  auto host = ParseHostPort(authority, port);
  if (!host) return host.error();
  remote.host = std::move(*host);

  std::string_view path = rest.substr(slash);
  if (path.starts_with("/~")) return Error("names a path in a user's home, not a forge repository");
  auto target = ResolveTarget(path);
  if (!target) return target.error();
  auto repo = RepoPathFromSegments(target->segments);
  if (!repo) return repo.error();
  remote.repo = std::move(*repo);
  return remote;
}

// [user@]host:path or [user@][v6]:path. git sends the path as written (no
// escapes) and takes one starting with '/' or '~' as a path on the server's
// disk, which no forge serves.
Result<Remote> ParseScpForm(std::string_view url) {
  std::size_t host_start = 0;
  std::size_t user_end = url.substr(0, url.find_first_of(":[")).rfind('@');
  if (user_end != std::string_view::npos) {
    if (url.find('@') != user_end) return Error("has two '@' before its host");
    host_start = user_end + 1;
  }
  std::size_t colon = url.find(':', host_start);
  if (host_start < url.size() && url[host_start] == '[') {
    std::size_t close = url.find(']', host_start);
    if (close == std::string_view::npos || close + 1 >= url.size() || url[close + 1] != ':') {
      return Error("has a '[' host not followed by ']:' and the repository");
    }
    colon = close + 1;
  }
  auto host = ParseHost(url.substr(host_start, colon - host_start));
  if (!host) return host.error();
  std::string_view path = url.substr(colon + 1);
  if (path.starts_with('/') || path.starts_with('~')) {
    return Error("names a path on the server's disk; a forge remote is host:owner/name.git");
  }
  auto repo = ParseRepoPath(path);
  if (!repo) return repo.error();
  return Remote{*host + ":22", "ssh", std::move(*repo)};
}

}  // namespace

Result<Remote> ParseRemoteUrl(std::string_view url) {
  auto parsed = [&]() -> Result<Remote> {
    if (url.empty()) return Error("is empty");
    std::size_t scheme = SchemeLength(url);
    // "<transport>::<address>" runs git-remote-<transport>: not a forge remote.
    if (scheme > 0 && url.substr(scheme).starts_with("::")) {
      return Error("runs the remote helper " + Quoted(url.substr(0, scheme)) +
                   ", not a forge remote");
    }
    for (char c : url) {
      auto byte = static_cast<unsigned char>(c);
      if (byte <= ' ' || byte == 0x7f || byte >= 0x80 || c == '\\') {
        return Error("holds a space, backslash, control or non-ASCII byte");
      }
    }
    if (scheme > 0 && url.substr(scheme).starts_with("://")) {
      return ParseUrlForm(url.substr(0, scheme), url.substr(scheme + 3));
    }
    // As git: scp-like when a ':' comes before any '/', else a local path.
    std::size_t colon = url.find(':');
    std::size_t slash = url.find('/');
    if (colon == std::string_view::npos || (slash != std::string_view::npos && slash < colon)) {
      return Error("is a path on this machine, not a forge remote");
    }
    return ParseScpForm(url);
  }();
  if (!parsed) return parsed.error().Context("remote " + Quoted(url));
  return parsed;
}

}  // namespace corral::netfilter::forge
