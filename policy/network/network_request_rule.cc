// network.rules' items: "[allow|deny] HOST METHODS PATH" (the proxy judges
// requests with them: netfilter/requests/), and registries.publish's.
#include <algorithm>
#include <array>
#include <cstddef>

#include "base/strings.h"
#include "policy/network/network.h"

namespace corral::policy {
namespace {

// Rule texts are short: a message quotes 120 bytes of one.
std::string Quoted(std::string_view text) { return corral::Quoted(text, 120); }


constexpr std::string_view kForm =
    "a rule is written '[allow|deny] HOST METHODS PATH', e.g. 'api.example.com GET,HEAD /v1/**'";

// RFC 9110's methods, PATCH (RFC 5789) and WebDAV's (RFC 4918 and kin): a
// name outside them is most likely a typo.
constexpr std::array<std::string_view, 24> kMethods = {
    "GET",    "HEAD",     "POST",       "PUT",   "DELETE", "CONNECT", "OPTIONS", "TRACE",
    "PATCH",  "PROPFIND", "PROPPATCH",  "MKCOL", "COPY",   "MOVE",    "LOCK",    "UNLOCK",
    "REPORT", "SEARCH",   "MKCALENDAR", "ACL",   "BIND",   "UNBIND",  "REBIND",  "QUERY"};

std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t start = text.find_first_not_of(" \t", i);
    if (start == std::string_view::npos) break;
    std::size_t end = text.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    i = end;
  }
  return out;
}

Result<void> ParseHost(std::string_view text, RequestRule& rule) {
  if (text.find("://") != std::string_view::npos) {
    return Error("the host " + Quoted(text) +
                 " is a URL; write the host name alone, e.g. 'api.example.com'");
  }
  std::string_view name = text;
  if (std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    std::string_view digits = text.substr(colon + 1);
    unsigned long port = 0;
    bool ok = !digits.empty() && digits.size() <= 5 && digits[0] != '0' &&
              digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (ok) port = std::stoul(std::string(digits));
    if (!ok || port == 0 || port > 65535) {
      return Error("the port in " + Quoted(text) + " is not a number from 1 to 65535");
    }
    rule.port = static_cast<uint16_t>(port);
    name = text.substr(0, colon);
  }
  if (name.starts_with("*.")) {
    rule.wildcard = true;
    name.remove_prefix(2);
  }
  std::string lower = AsciiLower(name);
  if (!lower.empty() && lower.back() == '.') lower.pop_back();
  if (lower.empty() || lower.find('*') != std::string::npos) {
    return Error("the host " + Quoted(text) +
                 " is not a host name; write 'api.example.com', or '*.example.com' for its "
                 "subdomains ('*' may only begin a name)");
  }
  std::size_t labels = 0;
  for (std::size_t start = 0; start <= lower.size(); ++labels) {
    std::size_t dot = lower.find('.', start);
    if (dot == std::string::npos) dot = lower.size();
    std::string_view label = std::string_view(lower).substr(start, dot - start);
    bool ok =
        !label.empty() && label.size() <= 63 && label.front() != '-' && label.back() != '-' &&
        label.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string_view::npos;
    if (!ok) {
      return Error("the host " + Quoted(text) +
                   " is not a host name: labels of letters, digits and '-' joined by dots "
                   "(an international name in its xn-- form)");
    }
    start = dot + 1;
  }
  if (rule.wildcard && labels < 2) {
    return Error(Quoted(text) +
                 " would match every host under a top-level domain; name the "
                 "domain, e.g. '*.example.com'");
  }
  rule.host = std::move(lower);
  return Ok();
}

Result<void> ParseMethods(std::string_view text, RequestRule& rule) {
  if (text == "*") return Ok();
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view method = text.substr(start, comma - start);
    start = comma + 1;
    if (method.empty()) {
      return Error("the methods " + Quoted(text) +
                   " hold an empty name; write them comma-separated "
                   "without spaces, e.g. 'GET,HEAD'");
    }
    if (method == "*") {
      return Error("'*' stands alone for every method; write '*' or a list such as 'GET,HEAD'");
    }
    if (!IsHttpToken(method)) {
      return Error(Quoted(method) +
                   " is not an HTTP method: a method is letters such as GET or POST");
    }
    std::string upper(method);
    for (char& c : upper) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    if (upper != method) {
      return Error(Quoted(method) + " is in lower case; HTTP methods are case-sensitive: write " +
                   upper);
    }
    if (std::find(kMethods.begin(), kMethods.end(), method) == kMethods.end()) {
      std::string near = Nearest(method, kMethods);
      return Error(Quoted(method) + " is not an HTTP method" +
                   (near.empty() ? "; write one such as GET, HEAD, POST, PUT, PATCH or DELETE"
                                 : "; did you mean " + near + "?"));
    }
    if (std::find(rule.methods.begin(), rule.methods.end(), method) == rule.methods.end()) {
      rule.methods.emplace_back(method);
    }
  }
  return Ok();
}

Result<void> ParsePath(std::string_view text, RequestRule& rule) {
  if (text.empty() || text[0] != '/') {
    return Error("the path " + Quoted(text) +
                 " does not start with '/': a path starts with '/', e.g. '/v1/**'");
  }
  if (std::size_t q = text.find('?'); q != std::string_view::npos) {
    return Error("the path " + Quoted(text) + " has a query; a rule judges the path only: write " +
                 Quoted(text.substr(0, q)));
  }
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '%' || c == '#' || c == '\\' || c == ';' || byte <= 0x20 || byte >= 0x7f) {
      return Error("the path " + Quoted(text) +
                   " holds a '%', '#', '\\', ';', space, control or non-ASCII character; write "
                   "the path as the server resolves it, unescaped");
    }
  }
  if (text == "/") return Ok();
  if (text.back() == '/') {
    return Error("the path " + Quoted(text) + " ends with '/'; write " +
                 Quoted(text.substr(0, text.size() - 1)) +
                 " (it matches with or without the "
                 "slash) or " +
                 Quoted(std::string(text) + "**") + " for everything under it");
  }
  for (std::size_t start = 1; start <= text.size();) {
    std::size_t slash = text.find('/', start);
    if (slash == std::string_view::npos) slash = text.size();
    std::string_view segment = text.substr(start, slash - start);
    start = slash + 1;
    if (segment.empty()) {
      return Error("the path " + Quoted(text) + " has an empty segment ('//'); write one '/'");
    }
    if (segment == "." || segment == "..") {
      return Error("the path " + Quoted(text) + " has a '" + std::string(segment) +
                   "' segment; write the path resolved, as the server reads it");
    }
    if (segment != "**" && segment.find("**") != std::string_view::npos) {
      return Error(
          "'**' must be a whole segment (any number of segments), as in '/v1/**'; "
          "within a segment, '*' matches any characters: " +
          Quoted(segment) + " is written " +
          Quoted(segment.find_first_not_of('*') == std::string_view::npos
                     ? std::string("**")
                     : std::string(segment).replace(segment.find("**"), 2, "*")));
    }
    rule.path.emplace_back(segment);
  }
  return Ok();
}

}  // namespace

Result<RequestRule> ParseRequestRule(std::string_view text) {
  RequestRule rule;
  rule.text = std::string(Trim(text));
  std::vector<std::string_view> fields = Fields(text);
  if (fields.size() == 4) {
    std::string verb = AsciiLower(fields[0]);
    if (verb != "allow" && verb != "deny") {
      return Error(Quoted(fields[0]) + " is neither 'allow' nor 'deny'; " + std::string(kForm));
    }
    rule.deny = verb == "deny";
    fields.erase(fields.begin());
  }
  if (fields.size() != 3) {
    return Error(Quoted(text) + " has " + std::to_string(fields.size()) + " part" +
                 (fields.size() == 1 ? "" : "s") + "; " + std::string(kForm));
  }
  if (auto host = ParseHost(fields[0], rule); !host) return host.error();
  if (auto methods = ParseMethods(fields[1], rule); !methods) return methods.error();
  if (auto path = ParsePath(fields[2], rule); !path) return path.error();
  return rule;
}

namespace {
constexpr std::array<std::string_view, 5> kKindNames = {"npm", "pypi", "crates", "rubygems", "go"};
}  // namespace

std::string_view RegistryKindName(RegistryKind kind) { return kKindNames[static_cast<int>(kind)]; }

std::optional<RegistryKind> RegistryKindNamed(std::string_view name) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i) {
    if (kKindNames[i] == name) return static_cast<RegistryKind>(i);
  }
  return std::nullopt;
}

Result<void> CheckPublishEntry(std::string_view entry) {
  if (RegistryKindNamed(entry)) return Ok();
  std::string_view kinds = "npm, pypi, crates, rubygems, go";
  if (entry.find('.') == std::string_view::npos) {
    std::string near = Nearest(entry, kKindNames);
    return Error(Quoted(entry) + " is not a registry kind (" + std::string(kinds) + ") or host" +
                 (near.empty() ? "" : "; did you mean " + near + "?"));
  }
  auto probe = ParseRequestRule(std::string(entry) + " GET /");
  if (!probe || probe->wildcard || probe->port || probe->host != entry) {
    return Error(Quoted(entry) + " is not a registry kind (" + std::string(kinds) +
                 ") or a registry's host name in lower case, without port or '*'");
  }
  return Ok();
}

bool IsHttpToken(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace corral::policy
