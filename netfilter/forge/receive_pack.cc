#include "netfilter/forge/receive_pack.h"

#include <algorithm>
#include <utility>

#include "netfilter/forge/pkt_line.h"

namespace corral::netfilter::forge {
namespace {

// The settings a refusal names, so the user knows what lets a push through.
constexpr std::string_view kHistorySetting = "forge.history: allow";
constexpr std::string_view kProtectedSetting = "forge.protected_branches";

constexpr std::size_t kSha1Size = 40;
constexpr std::size_t kSha256Size = 64;

bool IsZeroOid(std::string_view oid) {
  return !oid.empty() && oid.find_first_not_of('0') == std::string_view::npos;
}

bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// Lower-case hex of one of git's two oid sizes.
bool IsOid(std::string_view text) {
  if (text.size() != kSha1Size && text.size() != kSha256Size) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// git ends most pkt-lines with one LF, and readers drop it.
std::string_view Chomp(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  return line;
}

std::set<std::string> SplitCapabilities(std::string_view list) {
  std::set<std::string> out;
  while (!list.empty()) {
    std::size_t space = list.find(' ');
    std::string_view word = list.substr(0, space);
    if (!word.empty()) out.emplace(word);
    list = space == std::string_view::npos ? std::string_view() : list.substr(space + 1);
  }
  return out;
}

// The oid size the capabilities name ("object-format=..."); 0 when unknown
// or named twice.
std::size_t OidSizeOf(const std::set<std::string>& capabilities) {
  std::string_view format;
  for (const std::string& capability : capabilities) {
    if (!capability.starts_with("object-format=")) continue;
    if (!format.empty()) return 0;
    format = std::string_view(capability).substr(14);
  }
  if (format.empty() || format == "sha1") return kSha1Size;
  if (format == "sha256") return kSha256Size;
  return 0;
}

}  // namespace

bool RefUpdate::Creates() const { return IsZeroOid(old_oid); }
bool RefUpdate::Deletes() const { return IsZeroOid(new_oid); }

bool IsValidRefName(std::string_view ref) {
  if (!ref.starts_with("refs/") || ref.ends_with("/") || ref.ends_with(".")) return false;
  if (ref.find("..") != std::string_view::npos || ref.find("//") != std::string_view::npos ||
      ref.find("@{") != std::string_view::npos) {
    return false;
  }
  for (char c : ref) {
    if (IsControl(c) || std::string_view(" ~^:?*[\\").find(c) != std::string_view::npos) {
      return false;
    }
  }
  // Per component: none starts with "." or ends with ".lock".
  std::size_t start = 0;
  while (start < ref.size()) {
    std::size_t slash = std::min(ref.find('/', start), ref.size());
    std::string_view part = ref.substr(start, slash - start);
    if (part.starts_with(".") || part.ends_with(".lock")) return false;
    start = slash + 1;
  }
  return true;
}

// ---- The command list of a receive-pack request ----

ReceivePackCommands::Progress ReceivePackCommands::Feed(std::string_view bytes) {
  if (progress_ != Progress::kNeedMore) return progress_;
  while (progress_ == Progress::kNeedMore) {
    Pkt pkt;
    if (pending_.empty()) {
      pkt = ReadPkt(bytes);
      if (pkt.kind == PktKind::kNeedMore) {
        pending_.assign(bytes);  // shorter than one packet, so small
        return progress_;
      }
    } else {
      // Complete the packet cut at the end of an earlier Feed(), no more than it needs.
      pkt = ReadPkt(pending_);
      while (pkt.kind == PktKind::kNeedMore && !bytes.empty()) {
        std::size_t take = std::min(pkt.size - pending_.size(), bytes.size());
        pending_.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        pkt = ReadPkt(pending_);
      }
      if (pkt.kind == PktKind::kNeedMore) return progress_;
    }
    if (pkt.kind == PktKind::kError) {
      Fail(pkt.error);
      break;
    }
    if (consumed_ + pkt.size > kMaxBytes) {
      Fail("the push's command list is larger than 4 MiB");
      break;
    }
    if (pkt.kind == PktKind::kLine || pkt.kind == PktKind::kFlush) {
      Take(pkt.payload, pkt.kind == PktKind::kFlush);
    } else {
      Fail("unexpected delim or response-end packet in a push");
    }
    consumed_ += pkt.size;
    if (pending_.empty()) {
      bytes.remove_prefix(pkt.size);
    } else {
      pending_.clear();  // after Take(): the payload pointed into it
    }
  }
  if (progress_ == Progress::kDone) leftover_ = bytes.size();
  return progress_;
}

void ReceivePackCommands::Take(std::string_view payload, bool flush) {
  if (section_ == Section::kPushOptions) {
    if (flush) {
      progress_ = Progress::kDone;
      return;
    }
    std::string_view option = Chomp(payload);
    if (std::any_of(option.begin(), option.end(), IsControl)) {
      return Fail("a push option holds a control character");
    }
    push_options_.emplace_back(option);
    return;
  }
  if (!flush) return TakeCommand(Chomp(payload));
  // Push options follow the commands' flush only when asked, and only with commands.
  if (!updates_.empty() && capabilities_.count("push-options")) {
    section_ = Section::kPushOptions;
  } else {
    progress_ = Progress::kDone;
  }
}

void ReceivePackCommands::TakeCommand(std::string_view line) {
  std::size_t nul = line.find('\0');
  std::string_view text = line.substr(0, nul);
  if (text == "push-cert") {
    return Fail(
        "signed pushes (git push --signed) are not read by corral's proxy; push without --signed");
  }
  if (text.starts_with("shallow ")) {
    std::string_view oid = text.substr(8);
    if (!updates_.empty() || nul != std::string_view::npos) {
      return Fail("misplaced shallow line in a push");
    }
    if (!IsOid(oid) || (oid_size_ && oid.size() != oid_size_)) {
      return Fail("bad oid in a shallow line");
    }
    oid_size_ = oid.size();
    shallow_.emplace_back(oid);
    return;
  }
  if (updates_.size() >= kMaxCommands) return Fail("the push has more than 10000 ref updates");

  bool first = updates_.empty();
  if (nul != std::string_view::npos) {
    // git reads capabilities on any line; corral only where git's client puts them.
    if (!first) return Fail("capabilities after the first command of a push");
    std::string_view list = line.substr(nul + 1);
    if (std::any_of(list.begin(), list.end(), IsControl)) {
      return Fail("a control character in the push's capabilities");
    }
    capabilities_ = SplitCapabilities(list);
  }

  std::size_t space1 = text.find(' ');
  std::size_t space2 = space1 == std::string_view::npos ? space1 : text.find(' ', space1 + 1);
  if (space2 == std::string_view::npos) return Fail("a push command is not \"old new ref\"");
  RefUpdate update{std::string(text.substr(0, space1)),
                   std::string(text.substr(space1 + 1, space2 - space1 - 1)),
                   std::string(text.substr(space2 + 1))};
  if (!IsOid(update.old_oid) || update.new_oid.size() != update.old_oid.size() ||
      !IsOid(update.new_oid) || (oid_size_ && update.old_oid.size() != oid_size_)) {
    return Fail("a push command's object ids are not hex of one length");
  }
  oid_size_ = update.old_oid.size();
  if (first && OidSizeOf(capabilities_) != oid_size_) {
    return Fail("the push's object ids do not match its object-format");
  }
  if (update.Creates() && update.Deletes()) {
    return Fail("a push command with neither old nor new object");
  }
  if (!IsValidRefName(update.ref)) {
    return Fail("a push names an invalid ref: \"" + update.ref + "\"");
  }
  if (!refs_.insert(update.ref).second) {
    return Fail("a push names the ref " + update.ref + " twice");
  }
  updates_.push_back(std::move(update));
}

void ReceivePackCommands::Fail(std::string message) {
  progress_ = Progress::kError;
  error_ = Error("git push request: " + std::move(message));
}

bool ReceivePackCommands::ExpectsPack() const {
  return std::any_of(updates_.begin(), updates_.end(),
                     [](const RefUpdate& update) { return !update.Deletes(); });
}

// ---- The ref advertisement ----

namespace {

Error AdvertisementError(std::string_view what) {
  return Error("git ref advertisement: " + std::string(what));
}

const char kVersion2[] =
    "the git host answered in protocol v2; corral's proxy reads v0/v1 advertisements "
    "(the request must not send Git-Protocol: version=2)";

// One "oid name" line into `ad`; the first holds the capabilities.
Result<void> TakeRefLine(std::string_view line, bool first, Advertisement& ad) {
  std::size_t nul = line.find('\0');
  if (first != (nul != std::string_view::npos)) {
    return AdvertisementError(first ? "no capabilities on the first line"
                                    : "a NUL after the first line");
  }
  std::string_view text = line.substr(0, nul);
  if (first) {
    std::string_view list = line.substr(nul + 1);
    if (std::any_of(list.begin(), list.end(), IsControl)) {
      return AdvertisementError("bad capabilities");
    }
    ad.capabilities = SplitCapabilities(list);
  }
  std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return AdvertisementError("a line is not \"oid ref\"");
  std::string_view oid = text.substr(0, space), name = text.substr(space + 1);
  if (!IsOid(oid)) return AdvertisementError("a bad object id");
  if (first && name == "capabilities^{}") {
    if (!IsZeroOid(oid)) return AdvertisementError("capabilities^{} with an object");
    return Ok();
  }
  if (name.ends_with("^{}")) {
    std::string base(name.substr(0, name.size() - 3));
    if (!ad.refs.count(base) || !ad.peeled.emplace(base, oid).second) {
      return AdvertisementError("a peeled line for a ref not advertised before it");
    }
    return Ok();
  }
  if (name != "HEAD" && !IsValidRefName(name)) return AdvertisementError("an invalid ref name");
  if (!ad.refs.emplace(name, oid).second) return AdvertisementError("a ref advertised twice");
  return Ok();
}

// Object format and HEAD's target from the capabilities; all oids of one size.
Result<void> ReadCapabilities(Advertisement& ad) {
  std::size_t oid_size = OidSizeOf(ad.capabilities);
  if (oid_size == 0) return AdvertisementError("an unknown object-format");
  ad.object_format = oid_size == kSha256Size ? "sha256" : "sha1";
  for (const auto* map : {&ad.refs, &ad.peeled}) {
    for (const auto& [name, oid] : *map) {
      if (oid.size() != oid_size) {
        return AdvertisementError("object ids do not match object-format");
      }
    }
  }
  for (const std::string& capability : ad.capabilities) {
    if (!capability.starts_with("symref=HEAD:")) continue;
    if (!ad.head_target.empty()) return AdvertisementError("HEAD is named twice in symref");
    ad.head_target = capability.substr(12);
    if (!IsValidRefName(ad.head_target)) return AdvertisementError("HEAD points at an invalid ref");
  }
  return Ok();
}

}  // namespace

Result<Advertisement> ParseAdvertisement(std::string_view body) {
  Advertisement ad;
  PktReader reader(body);
  Pkt pkt = reader.Next();
  std::string_view line = Chomp(pkt.payload);
  if (pkt.kind == PktKind::kLine && line == "version 2") return AdvertisementError(kVersion2);
  if (pkt.kind != PktKind::kLine || !line.starts_with("# service=")) {
    return AdvertisementError("the body does not start with \"# service=\" (not smart HTTP)");
  }
  ad.service = line.substr(10);
  if (ad.service != "git-upload-pack" && ad.service != "git-receive-pack") {
    return AdvertisementError("an unknown service");
  }
  if (reader.Next().kind != PktKind::kFlush) {
    return AdvertisementError("no flush after the service line");
  }

  // Lines in order: "version 1"?, refs (the first with capabilities, or only
  // "capabilities^{}" in an empty repository), then upload-pack's "shallow" lines.
  enum class Expect { kVersionOrFirst, kFirst, kRefs, kShallow } expect = Expect::kVersionOrFirst;
  for (;;) {
    pkt = reader.Next();
    if (pkt.kind == PktKind::kFlush) break;
    if (pkt.kind != PktKind::kLine) {
      return AdvertisementError(pkt.kind == PktKind::kError ? pkt.error
                                                            : "cut short or a stray packet");
    }
    line = Chomp(pkt.payload);
    if (expect == Expect::kVersionOrFirst && line.starts_with("version ")) {
      if (line == "version 2") return AdvertisementError(kVersion2);
      if (line != "version 1") return AdvertisementError("an unknown protocol version");
      expect = Expect::kFirst;
    } else if (expect != Expect::kVersionOrFirst && expect != Expect::kFirst &&
               line.starts_with("shallow ")) {
      if (!IsOid(line.substr(8))) return AdvertisementError("a bad shallow line");
      expect = Expect::kShallow;
    } else if (expect == Expect::kShallow) {
      return AdvertisementError("a ref after the shallow lines");
    } else {
      bool first = expect != Expect::kRefs;
      if (Result<void> taken = TakeRefLine(line, first, ad); !taken) return taken.error();
      // After "capabilities^{}" (no refs) only shallow lines may come.
      expect = first && ad.refs.empty() ? Expect::kShallow : Expect::kRefs;
    }
  }
  if (!reader.rest().empty()) return AdvertisementError("bytes after the final flush");
  if (Result<void> read = ReadCapabilities(ad); !read) return read.error();
  return ad;
}

// ---- The answer to a refused push ----

namespace {

constexpr std::string_view kNotPushed =
    "not pushed: another ref in this push was refused by corral";
constexpr std::string_view kBandTwoNote =
    "corral: this push was refused as a whole while nobody watches; nothing was written";
constexpr std::size_t kMaxReason = 1000;

// A reason as git prints it: one line, no control characters, not empty.
std::string OneLine(std::string_view reason) {
  std::string out(reason.substr(0, kMaxReason));
  std::replace_if(out.begin(), out.end(), IsControl, ' ');
  return out.empty() ? std::string("refused by corral") : out;
}

}  // namespace

std::string RefusalReport(const std::vector<RefUpdate>& updates,
                          const std::map<std::string, std::string>& refused,
                          const std::set<std::string>& client_capabilities) {
  std::string report = PktLine("unpack ok\n");
  for (const RefUpdate& update : updates) {
    auto found = refused.find(update.ref);
    std::string_view reason = found == refused.end() ? kNotPushed : std::string_view(found->second);
    report += PktLine("ng " + update.ref + " " + OneLine(reason) + "\n");
  }
  report += kFlushPkt;

  // Side band: the report is a byte stream cut into band-1 packets, whose size
  // limit (band byte and length included) is 65520 for side-band-64k, 1000 for side-band.
  std::size_t limit = client_capabilities.count("side-band-64k") ? kMaxPktSize
                      : client_capabilities.count("side-band")   ? 1000
                                                                 : 0;
  if (limit == 0) return report;
  std::string out = PktLine("\2" + std::string(kBandTwoNote) + "\n");
  std::size_t chunk = limit - kPktHeaderSize - 1;
  for (std::size_t at = 0; at < report.size(); at += chunk) {
    out += PktLine("\1" + report.substr(at, chunk));
  }
  out += kFlushPkt;
  return out;
}

// ---- The judge ----

std::map<std::string, std::string> JudgeUpdates(
    const std::vector<RefUpdate>& updates, const PushRules& rules,
    const std::function<bool(const RefUpdate&)>& is_fast_forward) {
  std::map<std::string, std::string> refused;
  std::string history = " (" + std::string(kHistorySetting) + " lets it through)";
  for (const RefUpdate& update : updates) {
    const std::string& ref = update.ref;
    if (update.Deletes()) {
      refused[ref] = "corral: deleting " + ref + " is refused while nobody watches" + history;
    } else if (rules.protected_refs.count(ref)) {
      refused[ref] = "corral: " + ref + " is protected and is not written while nobody watches; " +
                     "push another branch instead (" + std::string(kProtectedSetting) +
                     " names the protected refs)";
    } else if (update.Creates()) {
      continue;
    } else if (ref.starts_with("refs/tags/")) {
      refused[ref] = "corral: moving the existing tag " + ref +
                     " is refused while nobody watches; push a new tag instead" + history;
    } else if (!is_fast_forward(update)) {
      refused[ref] =
          "corral: " + ref + " is not a fast-forward; rewriting history is refused " +
          "while nobody watches; rebase onto the remote branch and push without --force" + history;
    }
  }
  return refused;
}

}  // namespace corral::netfilter::forge
