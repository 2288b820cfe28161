// The canonical host (docs/configuration.md, "The proxy's rules"): one spelling per host,
// for the config's entries and the proxy's requests alike.
#include <idn2.h>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

bool IsLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// A name whose last label starts with a digit could be read as an IPv4
// address by some resolver or client (WHATWG treats it so): refuse it
// unless it parses as one.
bool LooksNumeric(std::string_view name) {
  std::size_t dot = name.rfind('.');
  std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (last.empty()) return false;
  if (last.size() >= 2 && last[0] == '0' && last[1] == 'x') return true;
  for (char c : last) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Result<std::string> ToAscii(std::string_view raw) {
  bool ascii = true;
  for (unsigned char c : raw) ascii = ascii && c < 0x80;
  if (ascii) return std::string(raw);
  std::string input(raw);
  char* output = nullptr;
  // UTS #46 mapping (full-width letters, ideographic full stops) before
  // punycode, as browsers do; the result is then checked like any ASCII name.
  int rc = idn2_to_ascii_8z(input.c_str(), &output, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
  if (rc != IDN2_OK) {
    return Error("host is not a valid internationalized name (" + std::string(idn2_strerror(rc)) + ")");
  }
  std::string result(output);
  idn2_free(output);
  return result;
}

Result<CanonicalHost> CanonicalizeIpv6(std::string_view raw) {
  if (raw.size() < 3 || raw.back() != ']') return Error("malformed IPv6 literal (expected [address])");
  std::string_view inner = raw.substr(1, raw.size() - 2);
  if (inner.find('%') != std::string_view::npos) return Error("IPv6 zone ids are not accepted");
  auto ip = ParseIpv6(inner);
  if (!ip) return Error("malformed IPv6 literal");
  return CanonicalHost{"[" + ip->ToString() + "]", ip};
}

}  // namespace

Result<CanonicalHost> Canonicalize(std::string_view raw) {
  if (raw.empty()) return Error("empty host");
  if (raw.size() > 1024) return Error("host name too long");
  for (unsigned char c : raw) {
    if (c <= 0x20 || c == 0x7f || c == '%' || c == '/' || c == '\\' || c == '@' || c == '?' ||
        c == '#' || c == '"' || c == '<' || c == '>' || c == '^' || c == '`' || c == '{' ||
        c == '|' || c == '}' || c == ',' || c == ';' || c == '\'') {
      return Error("host contains a character that is not allowed in a host name");
    }
  }
  if (raw.front() == '[') return CanonicalizeIpv6(raw);
  if (raw.find(':') != std::string_view::npos || raw.find(']') != std::string_view::npos) {
    return Error("IPv6 literals must be written in brackets");
  }
  auto ascii = ToAscii(raw);
  if (!ascii) return ascii.error();
  std::string name = std::move(*ascii);
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (name.empty()) return Error("empty host");
  if (LooksNumeric(name)) {
    auto ip = ParseIpv4AnySpelling(name);
    if (!ip) return Error("host looks like an IPv4 address but is not a valid one");
    return CanonicalHost{ip->ToString(), ip};
  }
  if (name.size() > 253) return Error("host name longer than 253 characters");
  std::size_t label = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '.') {
      if (label == 0) return Error("host has an empty label (\"..\" or a leading dot)");
      if (label > 63) return Error("host has a label longer than 63 characters");
      if (name[i - 1] == '-' || name[i - label] == '-') {
        return Error("host has a label starting or ending with '-'");
      }
      label = 0;
      continue;
    }
    if (!IsLabelChar(name[i])) return Error("host contains a character not allowed in a host name");
    ++label;
  }
  return CanonicalHost{std::move(name), std::nullopt};
}

std::optional<uint16_t> ParsePort(std::string_view digits) {
  // A leading zero is octal to some parsers ("0443" is 291): one spelling only.
  if (digits.empty() || digits.size() > 5 || digits[0] == '0') return std::nullopt;
  unsigned value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return std::nullopt;
  return static_cast<uint16_t>(value);
}

}  // namespace corral::policy
