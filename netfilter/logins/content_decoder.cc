// ContentDecoder (logins.h): a response body's gzip, deflate and br undone as
// it streams, so the proxy can hide the real values in it.
#include <brotli/decode.h>
#include <zlib.h>

#include <algorithm>

#include "base/base.h"
#include "netfilter/logins/logins.h"

namespace corral::netfilter {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

// The comma-separated items of a header value, trimmed, empty ones left out.
std::vector<std::string_view> Items(std::string_view value) {
  std::vector<std::string_view> items;
  while (!value.empty()) {
    std::size_t comma = value.find(',');
    std::string_view item = Trim(value.substr(0, comma));
    if (!item.empty()) items.push_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return items;
}

// IANA's HTTP content codings, which a refusal may name.
constexpr std::string_view kRegistered[] = {
    "aes128gcm", "br",           "compress",   "dcb",    "dcz",  "deflate", "exi",
    "gzip",      "pack200-gzip", "x-compress", "x-gzip", "zstd", "identity"};

// A coding's name as ContentDecoder reads it ("x-gzip" is gzip); "" when it
// cannot.
std::string_view Readable(std::string_view coding) {
  if (coding == "gzip" || coding == "x-gzip") return "gzip";
  if (coding == "deflate") return "deflate";
  if (coding == "br") return "br";
  return "";
}

}  // namespace

// One coding undone: output handed on in pieces of at most `piece` bytes.
class ContentDecoder::Stage {
 public:
  virtual ~Stage() = default;
  // Consumes all of `in`; false from `out` stops it (Ok, the caller knows why).
  virtual Result<void> Feed(std::string_view in, const Sink& out) = 0;
  // The body ended: an error when its compressed stream had not.
  virtual Result<void> Finish() = 0;
};

namespace {

// gzip, and deflate: zlib's format, or raw deflate where a server sends that
// instead (as browsers accept), told apart by the zlib header's check bits.
class ZlibStage : public ContentDecoder::Stage {
 public:
  ZlibStage(bool gzip, std::size_t piece) : gzip_(gzip), buffer_(piece) {}
  ~ZlibStage() override {
    if (started_) inflateEnd(&stream_);
  }

  Result<void> Feed(std::string_view in, const ContentDecoder::Sink& out) override {
    if (!started_) {
      // deflate waits for two bytes to see whether a zlib header begins it.
      sniffed_.append(in);
      if (sniffed_.empty() || (!gzip_ && sniffed_.size() < 2)) return Ok();
      int window = gzip_ ? 15 + 16 : ZlibHeader(sniffed_) ? 15 : -15;
      if (inflateInit2(&stream_, window) != Z_OK)
        return Error("zlib could not start (out of memory?)");
      started_ = true;
      std::string first = std::move(sniffed_);
      return Inflate(first, out);
    }
    return Inflate(in, out);
  }

  Result<void> Finish() override {
    if (!sniffed_.empty() || (started_ && !ended_)) {
      return Error(std::string("the ") + (gzip_ ? "gzip" : "deflate") + " stream ended early");
    }
    return Ok();
  }

 private:
  static bool ZlibHeader(std::string_view two) {
    auto cmf = static_cast<uint8_t>(two[0]), flg = static_cast<uint8_t>(two[1]);
    return (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && (cmf * 256 + flg) % 31 == 0;
  }

  Result<void> Inflate(std::string_view in, const ContentDecoder::Sink& out) {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    stream_.avail_in = static_cast<uInt>(in.size());
    while (true) {
      if (ended_) {
        // Another gzip member may follow (as gzip itself reads them); any
        // other trailing bytes are dropped: they never reach the box.
        if (stream_.avail_in == 0 || !gzip_ || *stream_.next_in != 0x1f) return Ok();
        inflateReset(&stream_);
        ended_ = false;
      }
      stream_.next_out = buffer_.data();
      stream_.avail_out = static_cast<uInt>(buffer_.size());
      int rc = inflate(&stream_, Z_NO_FLUSH);
      std::size_t made = buffer_.size() - stream_.avail_out;
      if (made > 0 && !out(std::string_view(reinterpret_cast<const char*>(buffer_.data()), made)))
        return Ok();
      if (rc == Z_STREAM_END) {
        ended_ = true;
        continue;
      }
      if (rc == Z_BUF_ERROR) return Ok();  // no progress: needs more input
      if (rc != Z_OK) {
        return Error(std::string("the ") + (gzip_ ? "gzip" : "deflate") + " stream is malformed: " +
                     (stream_.msg ? stream_.msg : "zlib error " + std::to_string(rc)));
      }
      if (stream_.avail_in == 0 && stream_.avail_out != 0) return Ok();
    }
  }

  bool gzip_;
  std::vector<Bytef> buffer_;
  z_stream stream_{};
  std::string sniffed_;
  bool started_ = false, ended_ = false;
};

class BrotliStage : public ContentDecoder::Stage {
 public:
  explicit BrotliStage(std::size_t piece)
      : buffer_(piece), state_(BrotliDecoderCreateInstance(nullptr, nullptr, nullptr)) {}
  ~BrotliStage() override { BrotliDecoderDestroyInstance(state_); }

  Result<void> Feed(std::string_view in, const ContentDecoder::Sink& out) override {
    if (!state_) return Error("brotli could not start (out of memory?)");
    if (ended_) return Ok();  // bytes after the stream's end are dropped
    fed_ |= !in.empty();
    auto next_in = reinterpret_cast<const uint8_t*>(in.data());
    std::size_t avail_in = in.size();
    while (true) {
      uint8_t* next_out = buffer_.data();
      std::size_t avail_out = buffer_.size();
      BrotliDecoderResult rc = BrotliDecoderDecompressStream(state_, &avail_in, &next_in,
                                                             &avail_out, &next_out, nullptr);
      std::size_t made = buffer_.size() - avail_out;
      if (made > 0 && !out(std::string_view(reinterpret_cast<const char*>(buffer_.data()), made)))
        return Ok();
      switch (rc) {
        case BROTLI_DECODER_RESULT_SUCCESS: ended_ = true; return Ok();
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return Ok();
        case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue;
        default:
          return Error(std::string("the br stream is malformed: ") +
                       BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state_)));
      }
    }
  }

  Result<void> Finish() override {
    if (fed_ && !ended_) return Error("the br stream ended early");
    return Ok();
  }

 private:
  std::vector<uint8_t> buffer_;
  BrotliDecoderState* state_;
  bool fed_ = false, ended_ = false;
};

}  // namespace

std::vector<std::string> BodyCodings(const ResponseHead& res) {
  std::vector<std::string> codings;
  for (const Header& h : res.headers) {
    if (!EqualsIgnoreCase(h.name, "content-encoding")) continue;
    for (std::string_view item : Items(h.value)) {
      if (!EqualsIgnoreCase(item, "identity")) codings.push_back(Lower(item));
    }
  }
  for (const std::string& coding : res.transfer_codings) {
    if (!EqualsIgnoreCase(coding, "identity")) codings.push_back(Lower(coding));
  }
  return codings;
}

ResponseHead DecodedHead(ResponseHead res) {
  std::erase_if(res.headers, [](const Header& h) {
    return EqualsIgnoreCase(h.name, "content-encoding") ||
           EqualsIgnoreCase(h.name, "content-length");
  });
  res.transfer_codings.clear();
  res.body = BodyKind::kChunked;
  res.content_length = 0;
  return res;
}

std::string ReadableAcceptEncoding(std::string_view value) {
  std::string out;
  for (std::string_view item : Items(value)) {
    std::string name = Lower(Trim(item.substr(0, item.find(';'))));
    if (name != "identity" && Readable(name).empty()) continue;  // zstd, compress, "*", ...
    out += (out.empty() ? "" : ", ") + std::string(item);
  }
  return out.empty() ? "identity" : out;
}

Result<std::unique_ptr<ContentDecoder>> ContentDecoder::Make(
    const std::vector<std::string>& codings, DecodeLimits limits) {
  auto decoder = std::unique_ptr<ContentDecoder>(new ContentDecoder(limits));
  // Applied in the order listed, so undone from the last.
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    std::string_view name = Readable(Lower(*it));
    if (name.empty()) {
      // Named only when it is a registered coding: the origin chose the
      // text, and a refusal is not searched for real values.
      std::string coding = Lower(*it);
      bool registered = std::find(std::begin(kRegistered), std::end(kRegistered), coding) !=
                        std::end(kRegistered);
      return Error("the body is encoded with " + (registered ? "'" + coding + "'" : "a coding") +
                   " that corral's proxy cannot decode (it reads gzip, deflate and br), so it "
                   "could not hide the logins' real values in it");
    }
    if (name == "br") {
      decoder->stages_.push_back(std::make_unique<BrotliStage>(limits.piece));
    } else {
      decoder->stages_.push_back(std::make_unique<ZlibStage>(name == "gzip", limits.piece));
    }
  }
  decoder->made_.assign(decoder->stages_.size(), 0);
  return decoder;
}

ContentDecoder::ContentDecoder(DecodeLimits limits) : limits_(limits) {}
ContentDecoder::~ContentDecoder() = default;

Result<void> ContentDecoder::Feed(std::string_view in, const Sink& out) {
  return Run(0, in, false, out);
}

Result<void> ContentDecoder::Finish(const Sink& out) { return Run(0, {}, true, out); }

// Stage `i` gets `in`; its output goes on to stage i + 1, the last one's to
// `out`. Every stage's output counts against the limit, so a bomb inside a
// bomb stops as early as a plain one.
Result<void> ContentDecoder::Run(std::size_t i, std::string_view in, bool finish, const Sink& out) {
  if (failed_) return *failed_;
  if (i == stages_.size()) {
    if (!in.empty() && !out(in)) return Fail(Error("the decoded body was not taken"));
    return Ok();
  }
  auto next = [&](std::string_view piece) {
    made_[i] += piece.size();
    if (made_[i] > limits_.max_total) {
      Fail(Error("the body decodes to more than " + std::to_string(limits_.max_total >> 20) +
                 " MiB, which corral's proxy does not pass on (a decompression bomb?)"));
      return false;
    }
    return Run(i + 1, piece, false, out).ok();
  };
  Result<void> fed = in.empty() ? Ok() : stages_[i]->Feed(in, next);
  if (failed_) return *failed_;
  if (!fed) return Fail(fed.error());
  if (!finish) return Ok();
  if (Result<void> done = stages_[i]->Finish(); !done) return Fail(done.error());
  return Run(i + 1, {}, true, out);
}

Error ContentDecoder::Fail(Error error) {
  if (!failed_) failed_ = std::move(error);
  return *failed_;
}

}  // namespace corral::netfilter
