#include "netfilter/http/http.h"


namespace corral::netfilter {

std::optional<std::string> DecodeBase64(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int v = value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  return out;
}

std::string EncodeBase64(std::string_view bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 | static_cast<uint8_t>(bytes[i + 1]) << 8 |
                 static_cast<uint8_t>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out.push_back(kDigits[(v >> shift) & 63]);
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out.push_back(kDigits[(v >> 18) & 63]);
    out.push_back(kDigits[(v >> 12) & 63]);
    out.push_back(i + 1 < bytes.size() ? kDigits[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

bool TokenAccepted(const std::optional<std::string>& proxy_authorization, std::string_view token) {
  if (token.empty()) return true;
  if (!proxy_authorization) return false;
  std::string_view value = *proxy_authorization;
  if (value.size() < 6 || !EqualsIgnoreCase(value.substr(0, 6), "basic ")) return false;
  value.remove_prefix(6);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  auto decoded = DecodeBase64(value);
  if (!decoded) return false;
  auto colon = decoded->find(':');
  if (colon == std::string::npos) return false;
  std::string_view password = std::string_view(*decoded).substr(colon + 1);
  // Compare in time independent of where the first difference is.
  unsigned char diff = password.size() == token.size() ? 0 : 1;
  for (std::size_t i = 0; i < password.size() && i < token.size(); ++i) {
    diff |= static_cast<unsigned char>(password[i] ^ token[i]);
  }
  return diff == 0;
}

}  // namespace corral::netfilter
