// The proxy token: Proxy-Authorization Basic with any user and the token as
// the password.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace corral::netfilter {

std::optional<std::string> DecodeBase64(std::string_view text);
std::string EncodeBase64(std::string_view bytes);  // with '=' padding
bool TokenAccepted(const std::optional<std::string>& proxy_authorization, std::string_view token);

}  // namespace corral::netfilter
