// git's pkt-line framing (gitprotocol-common): four hex digits of length
// (the four included), then the payload; 0000, 0001 and 0002 are the flush,
// delim and response-end markers. Anything else that is not exactly this is
// an error: the proxy must read the stream the way git does, or not at all.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace corral::netfilter::forge {

inline constexpr std::size_t kPktHeaderSize = 4;
inline constexpr std::size_t kMaxPktSize = 65520;  // header included (LARGE_PACKET_MAX)
inline constexpr std::size_t kMaxPktPayload = kMaxPktSize - kPktHeaderSize;
inline constexpr std::string_view kFlushPkt = "0000";
inline constexpr std::string_view kDelimPkt = "0001";

enum class PktKind { kLine, kFlush, kDelim, kResponseEnd, kNeedMore, kError };

struct Pkt {
  PktKind kind = PktKind::kNeedMore;
  // kLine: the bytes after the length, a view into the input (may be empty: "0004").
  std::string_view payload;
  // Bytes the packet takes at the start of the input. For kNeedMore: the bytes
  // needed before it can be read (4 while the length is incomplete). 0 for kError.
  std::size_t size = 0;
  std::string error;  // kError: what was wrong, for a message
};

// Reads the one packet at the start of `input` (which may hold more after it).
Pkt ReadPkt(std::string_view input);

// A cursor over a buffer that holds whole packets: Next() reads one and moves on;
// kNeedMore and kError leave the cursor where it was.
class PktReader {
 public:
  explicit PktReader(std::string_view buffer) : buffer_(buffer) {}
  Pkt Next();
  std::size_t offset() const { return offset_; }  // bytes read so far
  std::string_view rest() const { return buffer_.substr(offset_); }

 private:
  std::string_view buffer_;
  std::size_t offset_ = 0;
};

// `payload` framed as one pkt-line. Callers keep payloads at most kMaxPktPayload
// bytes; a longer one is cut there so the framing stays valid.
std::string PktLine(std::string_view payload);

}  // namespace corral::netfilter::forge
