// IP addresses in every spelling a URL host may use, and the addresses and
// ranges of network.allow_addresses.
#include <arpa/inet.h>

#include <cstring>
#include <vector>

#include "policy/network/network.h"

namespace corral::policy {
namespace {

// One part of a loose IPv4 spelling: decimal, 0-prefixed octal or 0x hex.
std::optional<uint64_t> ParsePart(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
    if (part.empty()) return 0;  // "0x" is zero, as in browsers
  } else if (part.size() >= 2 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  uint64_t value = 0;
  for (char c : part) {
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    if (digit >= base) return std::nullopt;
    value = value * base + digit;
    if (value > 0xffffffffULL) return std::nullopt;
  }
  return value;
}

constexpr const char* kRangeExamples = "write e.g. `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`";

}  // namespace

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<IpAddress> ParseIpv4AnySpelling(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::vector<uint64_t> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    auto part = ParsePart(text.substr(start, dot == std::string_view::npos ? text.npos : dot - start));
    if (!part) return std::nullopt;
    parts.push_back(*part);
    if (parts.size() > 4) return std::nullopt;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  uint64_t value = 0;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] > 255) return std::nullopt;
    value |= parts[i] << (8 * (3 - i));
  }
  uint64_t last = parts.back();
  std::size_t last_bytes = 4 - (parts.size() - 1);
  if (last_bytes < 4 && last >= (1ULL << (8 * last_bytes))) return std::nullopt;
  value |= last;
  IpAddress ip;
  for (int i = 0; i < 4; ++i) ip.bytes[i] = static_cast<uint8_t>(value >> (8 * (3 - i)));
  return ip;
}

std::optional<IpAddress> ParseIpv6(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  std::string copy(text);
  IpAddress ip;
  ip.v6 = true;
  if (inet_pton(AF_INET6, copy.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  return ip;
}

std::optional<IpAddress> ParseIpStrict(std::string_view text) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    return ParseIpv6(text.substr(1, text.size() - 2));
  }
  if (text.find(':') != std::string_view::npos) return ParseIpv6(text);
  if (text.empty() || text.size() >= INET_ADDRSTRLEN) return std::nullopt;
  std::string copy(text);
  IpAddress ip;
  if (inet_pton(AF_INET, copy.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  return ip;
}

Result<Cidr> ParseCidr(std::string_view text) {
  Cidr cidr;
  cidr.text = std::string(text);
  std::string quoted = "`" + cidr.text + "`";
  std::string_view address = text;
  std::optional<int> prefix;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    address = text.substr(0, slash);
    std::string_view digits = text.substr(slash + 1);
    bool decimal = !digits.empty() && digits.size() <= 3 &&
                   digits.find_first_not_of("0123456789") == std::string_view::npos;
    if (!decimal) {
      return Error(quoted + " needs a prefix length (a number) after the `/`: " + kRangeExamples);
    }
    prefix = std::stoi(std::string(digits));
  }
  auto ip = ParseIpStrict(address);
  if (!ip) return Error(quoted + " is not an IP address or CIDR range: " + kRangeExamples);
  int max = ip->v6 ? 128 : 32;
  cidr.prefix = prefix.value_or(max);
  if (cidr.prefix > max) {
    return Error(quoted + " has a prefix length past /" + std::to_string(max) + ": write e.g. `" +
                 (ip->v6 ? "fd00::/8" : "10.0.0.0/8") + "`");
  }
  cidr.v6 = ip->v6;
  std::memcpy(cidr.bytes, ip->bytes.data(), 16);
  return cidr;
}

}  // namespace corral::policy
