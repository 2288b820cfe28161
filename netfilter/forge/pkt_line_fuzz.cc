// libFuzzer target for what the forge room reads from git: pkt-lines, the
// command list of a push (fed whole, cut in two, and a byte at a time) and
// ref advertisements. Crashes, sanitizer reports and broken invariants
// (abort) are findings.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "netfilter/forge/pkt_line.h"
#include "netfilter/forge/receive_pack.h"

namespace {

using namespace corral::netfilter::forge;
using Progress = ReceivePackCommands::Progress;

void Check(bool ok) {
  if (!ok) std::abort();
}

void FuzzPkt(std::string_view data) {
  Pkt pkt = ReadPkt(data);
  if (pkt.kind == PktKind::kLine) {
    Check(pkt.size <= data.size() && pkt.size >= kPktHeaderSize && pkt.size <= kMaxPktSize);
    Check(PktLine(pkt.payload).substr(kPktHeaderSize) == pkt.payload);
  }
  if (pkt.kind == PktKind::kNeedMore) Check(pkt.size > data.size() && pkt.size <= kMaxPktSize);
}

// The report for whatever was read must itself be whole pkt-lines ending in a flush.
void CheckReport(const ReceivePackCommands& commands) {
  auto judged = JudgeUpdates(commands.updates(), PushRules{{"refs/heads/main"}},
                             [](const RefUpdate& update) { return update.new_oid[0] < '8'; });
  std::string report = RefusalReport(commands.updates(), judged, commands.capabilities());
  PktReader reader(report);
  Pkt pkt = reader.Next();
  while (pkt.kind == PktKind::kLine) pkt = reader.Next();
  Check(pkt.kind == PktKind::kFlush && reader.rest().empty());
}

void FuzzCommands(std::string_view data) {
  ReceivePackCommands whole;
  Progress progress = whole.Feed(data);
  if (progress == Progress::kDone) {
    Check(whole.consumed() <= data.size() && whole.leftover() == data.size() - whole.consumed());
    for (const RefUpdate& update : whole.updates()) Check(IsValidRefName(update.ref));
    CheckReport(whole);
  }
  // Cut anywhere, and a byte at a time: the same outcome.
  for (std::size_t cut : {data.size() / 3, data.size() / 2, data.size() - data.size() / 4}) {
    ReceivePackCommands split;
    (void)split.Feed(data.substr(0, cut));
    Check(split.Feed(data.substr(cut)) == progress);
    if (progress == Progress::kDone) {
      Check(split.updates() == whole.updates() && split.consumed() == whole.consumed());
      Check(split.push_options() == whole.push_options());
    }
  }
  if (data.size() <= 4096) {
    ReceivePackCommands bytewise;
    for (std::size_t i = 0; i < data.size(); ++i) (void)bytewise.Feed(data.substr(i, 1));
    Check(bytewise.progress() == progress);
    if (progress == Progress::kDone) Check(bytewise.consumed() == whole.consumed());
  }
}

void FuzzAdvertisement(std::string_view data) {
  auto ad = ParseAdvertisement(data);
  if (!ad) return;
  Check(ad->object_format == "sha1" || ad->object_format == "sha256");
  Check(ad->service == "git-upload-pack" || ad->service == "git-receive-pack");
  for (const auto& [tag, oid] : ad->peeled) Check(ad->refs.count(tag) == 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, std::size_t size) {
  std::string_view data(reinterpret_cast<const char*>(bytes), size);
  FuzzPkt(data);
  FuzzCommands(data);
  FuzzAdvertisement(data);
  return 0;
}
