#include "netfilter/forge/pkt_line.h"

namespace corral::netfilter::forge {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Pkt Failed(std::string error) {
  Pkt pkt;
  pkt.kind = PktKind::kError;
  pkt.error = std::move(error);
  return pkt;
}

}  // namespace

Pkt ReadPkt(std::string_view input) {
  Pkt pkt;
  // A bad digit is reported at once, even before all four have arrived.
  std::size_t length = 0;
  for (std::size_t i = 0; i < kPktHeaderSize && i < input.size(); ++i) {
    int digit = HexValue(input[i]);
    if (digit < 0) return Failed("pkt-line length is not four hex digits");
    length = length * 16 + static_cast<std::size_t>(digit);
  }
  if (input.size() < kPktHeaderSize) {
    pkt.size = kPktHeaderSize;
    return pkt;
  }
  switch (length) {
    case 0:
      pkt.kind = PktKind::kFlush;
      pkt.size = kPktHeaderSize;
      return pkt;
    case 1:
      pkt.kind = PktKind::kDelim;
      pkt.size = kPktHeaderSize;
      return pkt;
    case 2:
      pkt.kind = PktKind::kResponseEnd;
      pkt.size = kPktHeaderSize;
      return pkt;
    case 3: return Failed("pkt-line length 0003 is invalid");
    default: break;
  }
  if (length > kMaxPktSize) return Failed("pkt-line longer than 65520 bytes");
  pkt.size = length;
  if (input.size() < length) return pkt;  // kNeedMore, and now we know how much
  pkt.kind = PktKind::kLine;
  pkt.payload = input.substr(kPktHeaderSize, length - kPktHeaderSize);
  return pkt;
}

Pkt PktReader::Next() {
  Pkt pkt = ReadPkt(buffer_.substr(offset_));
  if (pkt.kind != PktKind::kNeedMore && pkt.kind != PktKind::kError) offset_ += pkt.size;
  return pkt;
}

std::string PktLine(std::string_view payload) {
  if (payload.size() > kMaxPktPayload) payload = payload.substr(0, kMaxPktPayload);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::size_t length = payload.size() + kPktHeaderSize;
  std::string out;
  out.reserve(length);
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kDigits[(length >> shift) & 0xf]);
  out.append(payload);
  return out;
}

}  // namespace corral::netfilter::forge
