// Text helpers the forge's readers share: private to netfilter/forge/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace corral::netfilter::forge {

// `text` in quotes for a message: bytes that are not printable ASCII as \xNN,
// and cut short, since it may come from anyone.
inline std::string Quoted(std::string_view text) {
  constexpr std::size_t kShown = 200;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[i];
    } else {
      out += "\\x";
      out += "0123456789abcdef"[byte >> 4];
      out += "0123456789abcdef"[byte & 15];
    }
  }
  return out + (text.size() > kShown ? "...'" : "'");
}

inline std::string AsciiLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace corral::netfilter::forge
